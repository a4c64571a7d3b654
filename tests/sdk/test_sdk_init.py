"""Tests for ``crossfn init function``: the scaffold's own tests pass straight away."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest
import yaml

from crossfn import cli
from crossfn.sdk import resource


def test_scaffold_tests_pass_right_after_init(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "function-greet"
    assert cli.main(["init", "function", "function-greet", "--directory", str(target)]) == 0
    out = capsys.readouterr().out
    assert "function_greet/fn.py" in out
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=target,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout


def test_scaffold_files(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "fn"
    assert cli.main(["init", "function", "function-x", "-C", str(target)]) == 0
    files = sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())
    assert files == sorted(
        [
            ".dockerignore",
            ".gitignore",
            "Dockerfile",
            "README.md",
            "example/composition.yaml",
            "example/functions.yaml",
            "example/xr.yaml",
            "function_x/__init__.py",
            "function_x/fn.py",
            "package/crossplane.yaml",
            "pyproject.toml",
            "tests/test_fn.py",
        ]
    )
    meta = yaml.safe_load((target / "package/crossplane.yaml").read_text())
    assert (meta["kind"], meta["metadata"]["name"]) == ("Function", "function-x")
    functions = yaml.safe_load((target / "example/functions.yaml").read_text())
    assert (
        functions["metadata"]["annotations"]["render.crossfn.io/runtime-inprocess-object"]
        == "function_x.fn:compose"
    )
    composition = yaml.safe_load((target / "example/composition.yaml").read_text())
    assert composition["spec"]["pipeline"][0]["functionRef"]["name"] == "function-x"
    froms = [
        line.split()[1]
        for line in (target / "Dockerfile").read_text().splitlines()
        if line.startswith("FROM ")
    ]
    assert froms == ["debian:12-slim", "gcr.io/distroless/python3-debian12:nonroot"], (
        "build and runtime images must both be Debian 12 (Python 3.11)"
    )
    assert not list(tmp_path.glob(".crossfn-init-*")), "no staging directory is left behind"


@pytest.mark.parametrize(
    ("reason", "name", "existing_message"),
    [
        pytest.param(
            "Upper case is not a DNS label.", "Function", (False, "NAME must be a DNS label"), id="BadName"
        ),
        pytest.param(
            "A non-empty directory is never overwritten.",
            "function-y",
            (True, "exists and is not an empty directory"),
            id="Exists",
        ),
    ],
)
def test_init_errors(
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    reason: str,
    name: str,
    existing_message: tuple[bool, str],
) -> None:
    existing, message = existing_message
    target = tmp_path / "t"
    if existing:
        target.mkdir()
        (target / "keep").write_text("mine")
    assert cli.main(["init", "function", name, "-C", str(target)]) == 1, reason
    captured = capsys.readouterr()
    assert captured.out == "", "no partial output"
    assert message in captured.err, reason
    if existing:
        assert [p.name for p in target.iterdir()] == ["keep"], reason


def test_scaffold_example_renders(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "function-demo"
    assert cli.main(["init", "function", "function-demo", "-C", str(target)]) == 0
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "crossfn",
            "render",
            "example/xr.yaml",
            "example/composition.yaml",
            "example/functions.yaml",
        ],
        cwd=target,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        # As after `pip install -e .`: the function's package is importable.
        env={**os.environ, "PYTHONPATH": str(target)},
    )
    assert result.returncode == 0, result.stderr
    kinds = {(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(result.stdout) if d}
    assert ("ConfigMap", resource.child_name("world", "greeting")) in kinds, result.stdout
