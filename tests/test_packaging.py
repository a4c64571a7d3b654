"""The project builds a wheel and an sdist that install into a fresh venv, where ``crossfn version`` and a
render of a bundled example work (issue 25: crossfn is on no package index; README.md, "Install").

Built with pip's own PEP 517 front end (``pip wheel``) and setuptools' backend for the sdist (what
``python -m build --sdist`` calls), so nothing beyond the dev install is needed; the fresh venvs get
their dependencies from the package index, as a user's would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "xbucket"


def _run(argv: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=600)
    assert proc.returncode == 0, f"{' '.join(argv)}:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel and an sdist of the checkout, built from a copy of its files (no build/ left in the tree)."""
    tree, out = tmp_path_factory.mktemp("tree"), tmp_path_factory.mktemp("dist")
    files = _run(["git", "ls-files", "-z"], cwd=ROOT).stdout.split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            ".",
        ],
        cwd=tree,
    )
    _run(
        [sys.executable, "-c", f"from setuptools import build_meta; build_meta.build_sdist({str(out)!r})"],
        cwd=tree,
    )
    return out


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["whl", "tar.gz"], ids=["wheel", "sdist"])
def test_installs_into_a_fresh_venv_and_renders(tmp_path: Path, dist: Path, kind: str) -> None:
    [package] = dist.glob(f"crossfn-*.{kind}")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    _run([str(venv / "bin" / "pip"), "install", "-q", f"{package}[render]"])
    crossfn = str(venv / "bin" / "crossfn")
    version = _run([crossfn, "version"]).stdout
    assert version.startswith("Client Version: v"), version
    rendered = _run([crossfn, "render", "xr.yaml", "composition.yaml", "functions.yaml"], cwd=EXAMPLE).stdout
    golden = (ROOT / "tests" / "examples" / "golden" / "default" / "xbucket.yaml").read_text()
    assert rendered == golden, "the installed package renders the bundled example as the checkout does"
