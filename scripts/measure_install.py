"""Measure what ``pip install crossfn`` and each extra install: megabytes and distributions.

Usage (from the project root)::

    python scripts/measure_install.py [--extras core,render,...] [--also PKG ...] [--write]

Builds crossfn's wheel once, then for each target makes a fresh venv
(``python3 -m venv``), installs the wheel (``crossfn`` for core,
``crossfn[<extra>]`` otherwise) and reports ``du -sm`` of the venv's
site-packages without pip and setuptools (which every venv has), and the
number of distributions installed, crossfn included, pip and setuptools not.
Byte-code compiled by pip at install counts, as it does on a user's disk.
``--also`` installs more distributions into every venv (to count a dependency
that another branch adds). ``--write`` rewrites the "Install size" section of
docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
SECTION = "## Install size"
TARGETS = ("core", "render", "validate", "starlark", "controller", "all", "dev")
_UNCOUNTED = ("pip", "setuptools", "_distutils_hack", "pkg_resources", "distutils-precedence.pth")
_UNCOUNTED_DIST = re.compile(r"^(pip|setuptools)-[^-]+\.dist-info$")


def build_wheel(out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
        check=True,
    )
    return next(out.glob("crossfn-*.whl"))


def measure(wheel: Path, target: str, also: list[str], work: Path) -> tuple[int, int, list[str]]:
    """``(megabytes, distributions, their names)`` of a fresh venv with ``target`` installed."""
    venv = work / f"venv-{target}"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    spec = str(wheel) if target == "core" else f"{wheel}[{target}]"
    subprocess.run([str(python), "-m", "pip", "install", "-q", spec, *also], check=True)
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
    )  # fmt: skip
    excludes = [f"--exclude={name}" for name in _UNCOUNTED] + ["--exclude=pip-*", "--exclude=setuptools-*"]
    du = subprocess.run(["du", "-sm", *excludes, str(site)], check=True, capture_output=True, text=True)
    megabytes = int(du.stdout.split()[0])
    dists = sorted(
        p.name.split("-")[0]
        for p in site.iterdir()
        if p.name.endswith(".dist-info") and not _UNCOUNTED_DIST.match(p.name)
    )
    return megabytes, len(dists), dists


def table(rows: list[tuple[str, int, int, list[str]]]) -> str:
    """A Markdown table: core lists its distributions, each extra those it adds to core."""
    lines = [
        "| install | installed size | distributions | which (an extra: those it adds to core) |",
        "|---|---:|---:|---|",
    ]
    core = next((set(dists) for target, _, _, dists in rows if target == "core"), set())
    for target, mb, count, dists in rows:
        what = "`pip install crossfn`" if target == "core" else f"`pip install 'crossfn[{target}]'`"
        shown = dists if target == "core" else [d for d in dists if d not in core]
        lines.append(f"| {what} | {mb} MB | {count} | {', '.join(shown)} |")
    return "\n".join(lines)


def write(text: str, also: list[str]) -> None:
    body = DOC.read_text()
    extra = f" --also {' '.join(also)}" if also else ""
    section = (
        f"{SECTION}\n\n"
        "What the core install (`pip install crossfn`, from a wheel: [README.md](../README.md#install)) and each extra put on disk: `du -sm` of a fresh venv's site-packages\n"
        "without pip and setuptools, and the distributions installed (crossfn included). Target: core at\n"
        "most 70 MB (before the extras existed it was 233 MB in 38 distributions; the official Python SDK\n"
        "installs 59 MB in 11). Each extra includes core.\n"
        f"Measured with `python scripts/measure_install.py{extra}` on Python {platform.python_version()}, "
        f"{platform.machine()}"
        + (
            f" (`--also`: {', '.join(also)}, core dependencies that other branches add, counted here)"
            if also
            else ""
        )
        + ".\n\n"
        f"{text}\n"
    )
    if SECTION in body:
        start = body.index(SECTION)
        end = body.find("\n## ", start + len(SECTION))
        body = body[:start] + section + (body[end + 1 :] if end != -1 else "")
    else:
        body = body.rstrip("\n") + "\n\n" + section
    DOC.write_text(body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--extras", default=",".join(TARGETS), help="comma-separated targets (default: %(default)s)"
    )
    parser.add_argument("--also", nargs="*", default=[], help="more distributions to install into every venv")
    parser.add_argument("--write", action="store_true", help="rewrite docs/performance.md's section")
    args = parser.parse_args(argv)
    os.environ.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    with tempfile.TemporaryDirectory(prefix="crossfn-install-") as tmp:
        work = Path(tmp)
        wheel = build_wheel(work / "wheel")
        rows = []
        for target in args.extras.split(","):
            mb, count, dists = measure(wheel, target, args.also, work)
            print(f"{target}: {mb} MB, {count} distributions", file=sys.stderr)
            rows.append((target, mb, count, dists))
    text = table(rows)
    print(text)
    if args.write:
        write(text, args.also)
    return 0


if __name__ == "__main__":
    sys.exit(main())
