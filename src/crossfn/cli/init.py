"""``crossfn init function NAME``: write a ready-to-test composition function project.

The project holds the function (``<module>/fn.py``), a passing test, a
``pyproject.toml`` depending on crossfn, ``package/crossplane.yaml``, a
Dockerfile whose build and runtime images ship the same Python, and an
``example/`` to ``crossfn render``. The files are templates kept in
``crossfn.sdk._templates``; they are written to a temporary directory first and
moved into place at the end, so a failure leaves nothing behind.
"""

from __future__ import annotations

import argparse
import importlib.resources
import os
import re
import shutil
import tempfile
from typing import Any

from crossfn import __version__, errors
from crossfn.cli import _output

__all__ = ["register"]

_NAME = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")

# Template file -> where it goes in the project ({module} is the Python package).
_FILES = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "gitignore.tmpl": ".gitignore",
    "dockerignore.tmpl": ".dockerignore",
    "Dockerfile.tmpl": "Dockerfile",
    "init.py.tmpl": "{module}/__init__.py",
    "fn.py.tmpl": "{module}/fn.py",
    "test_fn.py.tmpl": "tests/test_fn.py",
    "crossplane.yaml.tmpl": "package/crossplane.yaml",
    "xr.yaml.tmpl": "example/xr.yaml",
    "composition.yaml.tmpl": "example/composition.yaml",
    "functions.yaml.tmpl": "example/functions.yaml",
}


def register(subparsers: Any) -> None:
    """Add ``init function`` to the command line."""
    parser = subparsers.add_parser("init", help="start a new project")
    sub = parser.add_subparsers(dest="init_command", metavar="KIND", required=True)
    fn = sub.add_parser(
        "function",
        help="write a new composition function project",
        description="Write a composition function project NAME: function, test, package metadata, "
        "Dockerfile and an example to render.",
    )
    fn.add_argument("name", metavar="NAME", help="the function's name, e.g. function-greet (a DNS label)")
    fn.add_argument("--directory", "-C", help="where to write it (default: ./NAME); must not exist or be empty")
    fn.set_defaults(handler=_init_function)


def _render(template: str, values: dict[str, str]) -> str:
    text = importlib.resources.files("crossfn.sdk._templates").joinpath(template).read_text()
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def write_project(name: str, directory: str) -> list[str]:
    """Write the project for function ``name`` into ``directory``; returns the files written."""
    if not _NAME.match(name) or len(name) > 63:
        raise errors.InputError(
            f"cannot create function {name!r}: NAME must be a DNS label (lower-case letters, digits and '-')"
        )
    if os.path.exists(directory) and (not os.path.isdir(directory) or os.listdir(directory)):
        raise errors.InputError(f"cannot create function {name!r}: {directory} exists and is not an empty directory")
    module = name.replace("-", "_")
    values = {"name": name, "module": module, "crossfn_version": __version__}
    parent = os.path.dirname(os.path.abspath(directory))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".crossfn-init-", dir=parent)
    written = []
    try:
        for template, target in _FILES.items():
            rel = target.format(module=module)
            path = os.path.join(staging, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(_render(template, values))
            written.append(rel)
        if os.path.isdir(directory):
            os.rmdir(directory)
        os.replace(staging, directory)
    except OSError as exc:
        raise errors.InputError(f"cannot create function {name!r} in {directory}: {exc}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return written


def _init_function(args: argparse.Namespace) -> int:
    directory = args.directory or args.name
    written = write_project(args.name, directory)
    lines = [f"Created {args.name} in {directory}:", *(f"  {rel}" for rel in written)]
    lines.append(f"Next: cd {directory} && pip install -e '.[dev]' && python -m pytest")
    _output.write("\n".join(lines) + "\n")
    return 0
