"""``scripts/envtest-assets``, which ``./scripts/check`` and ``.ci/run`` share: where the cluster tests'
binaries come from, or one line saying they will be skipped."""

from __future__ import annotations

import lzma
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTE = (
    "note: no envtest binaries, so the cluster tests will be skipped: set KUBEBUILDER_ASSETS to a directory "
    "holding etcd and kube-apiserver (controller-runtime's setup-envtest: export KUBEBUILDER_ASSETS=\"$(setup-envtest "
    'use -p path)"; docs/development.md)\n'
)


def _checkout(tmp_path: Path, *, shared: bool) -> Path:
    """A checkout with the script, and beside it ../shared/envtest holding two xz-compressed "binaries"."""
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy2(ROOT / "scripts" / "envtest-assets", repo / "scripts")
    if shared:
        src = tmp_path / "shared" / "envtest"
        src.mkdir(parents=True)
        for name in ("etcd", "kube-apiserver"):
            (src / f"{name}.xz").write_bytes(
                lzma.compress(f"#!/bin/sh\necho {name}\n".encode(), format=lzma.FORMAT_XZ)
            )
    return repo


def _run(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("KUBEBUILDER_ASSETS", "XDG_CACHE_HOME")}
    return subprocess.run(
        [str(repo / "scripts" / "envtest-assets")],
        env={**base, **env},
        capture_output=True,
        text=True,
        check=True,
    )


def test_kubebuilder_assets_wins(tmp_path: Path) -> None:
    proc = _run(_checkout(tmp_path, shared=True), {"KUBEBUILDER_ASSETS": "/opt/envtest"})
    assert (proc.stdout, proc.stderr) == ("/opt/envtest\n", ""), "the variable is used as it is"


def test_shared_binaries_are_unpacked_once_into_the_cache(tmp_path: Path) -> None:
    repo = _checkout(tmp_path, shared=True)
    first = _run(repo, {"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assets = Path(first.stdout.strip())
    assert (assets.parent, first.stderr) == (tmp_path / "cache" / "crossfn" / "envtest", "")
    for name in ("etcd", "kube-apiserver"):
        binary = assets / name
        assert os.access(binary, os.X_OK), f"{name} unpacked and executable"
        assert subprocess.run([binary], capture_output=True, text=True, check=True).stdout == f"{name}\n"
    (assets / "etcd").write_text("#!/bin/sh\necho kept\n")
    again = _run(repo, {"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert again.stdout == first.stdout, "the same archives, the same directory"
    assert (assets / "etcd").read_text() == "#!/bin/sh\necho kept\n", "already unpacked: not unpacked again"


def test_no_binaries_is_one_line_and_how_to_get_them(tmp_path: Path) -> None:
    proc = _run(_checkout(tmp_path, shared=False), {"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert (proc.stdout, proc.stderr) == ("", NOTE)


@pytest.mark.parametrize("script", ["scripts/check", ".ci/run"])
def test_check_and_ci_share_the_one_script(script: str) -> None:
    text = (ROOT / script).read_text()
    if script == "scripts/check":
        assert 'assets="$(scripts/envtest-assets)"' in text, "the README's command finds the binaries itself"
    assert "xz -dc" not in text, "the unpacking lives once, in scripts/envtest-assets"
