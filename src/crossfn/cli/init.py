"""``crossfn init function NAME``: write a ready-to-test composition function project.

The project holds the function (``<module>/fn.py``), a passing test, a
``pyproject.toml`` depending on crossfn, ``package/crossplane.yaml``, a
Dockerfile whose build and runtime images ship the same Python, an
``example/`` to ``crossfn render``, and ``wheels/``: a wheel of the running
crossfn, which the install commands and the Dockerfile take crossfn from, so
that the project builds where crossfn is on no package index. ``crossfn init
wheel DIR`` writes that wheel again (after upgrading crossfn). The files are
templates kept in ``crossfn.sdk._templates``; they are written to a temporary
directory first and moved into place at the end, so a failure leaves nothing
behind.
"""

from __future__ import annotations

import argparse
import importlib.resources
import keyword
import os
import re
import shutil
import sys
import tempfile
from typing import Any

from crossfn import __version__, errors
from crossfn.cli import _output, _wheel

__all__ = ["register"]

_NAME = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
# The step input's API group is NAME under this domain (see composition.yaml.tmpl).
_INPUT_GROUP = "{name}.fn.crossplane.io"
# Where the project keeps the crossfn wheel it installs from.
_WHEELS = "wheels"

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
    fn.add_argument(
        "--directory", "-C", help="where to write it (default: ./NAME); must not exist or be empty"
    )
    fn.set_defaults(handler=_init_function)
    wheel = sub.add_parser(
        "wheel",
        help="write a wheel of this crossfn into a directory",
        description="Write a wheel of the running crossfn into DIR, for a function project to install "
        "where crossfn is on no package index (pip install --find-links DIR). `init function` "
        "puts one in the project's wheels/; run this after upgrading crossfn.",
    )
    wheel.add_argument("directory", metavar="DIR", help="where to write the wheel (created if missing)")
    wheel.set_defaults(handler=_init_wheel)


def _render(template: str, values: dict[str, str]) -> str:
    text = importlib.resources.files("crossfn.sdk._templates").joinpath(template).read_text()
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def _check_name(name: str) -> None:
    """Raise one line unless ``name`` makes a valid DNS label, API group and Python package."""
    problem = None
    module = name.replace("-", "_")
    if not _NAME.fullmatch(name) or len(name) > 63:
        problem = (
            "NAME must be a DNS label (at most 63 lower-case letters, digits and '-', starting with a letter)"
        )
    elif len(_INPUT_GROUP.format(name=name)) > 253:
        problem = f"the input's API group {_INPUT_GROUP.format(name=name)} is longer than 253 characters"
    elif keyword.iskeyword(module):
        problem = f"its Python package {module} would be a Python keyword"
    elif module in sys.stdlib_module_names or module == "crossfn":
        problem = f"its Python package {module} would hide the module of that name"
    if problem:
        raise errors.InputError(f"cannot create function {name!r}: {problem}")


def write_project(name: str, directory: str) -> list[str]:
    """Write the project for function ``name`` into ``directory``; returns the files written."""
    _check_name(name)
    if os.path.exists(directory) and (not os.path.isdir(directory) or os.listdir(directory)):
        raise errors.InputError(
            f"cannot create function {name!r}: {directory} exists and is not an empty directory"
        )
    module = name.replace("-", "_")
    values = {"name": name, "module": module, "crossfn_version": __version__}
    parent = os.path.dirname(os.path.abspath(directory))
    try:
        os.makedirs(parent, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=".crossfn-init-", dir=parent)
    except FileExistsError as exc:  # a file where a parent directory should be
        raise errors.InputError(
            f"cannot create function {name!r} in {directory}: {exc.filename} is not a directory"
        ) from exc
    except OSError as exc:
        raise errors.InputError(
            f"cannot create function {name!r} in {directory}: {exc.strerror or exc}"
        ) from exc
    written = []
    try:
        for template, target in _FILES.items():
            rel = target.format(module=module)
            path = os.path.join(staging, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(_render(template, values))
            written.append(rel)
        wheel = _wheel.write_wheel(os.path.join(staging, _WHEELS))
        written.append(f"{_WHEELS}/{os.path.basename(wheel)}")
        if os.path.isdir(directory):
            os.rmdir(directory)
        os.replace(staging, directory)
    except (OSError, errors.CrossfnError) as exc:
        raise errors.InputError(f"cannot create function {name!r} in {directory}: {exc}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return written


def _init_function(args: argparse.Namespace) -> int:
    directory = args.directory or args.name
    written = write_project(args.name, directory)
    lines = [f"Created {args.name} in {directory}:", *(f"  {rel}" for rel in written)]
    lines.append(
        f"Next: cd {directory} && pip install --find-links {_WHEELS} -e '.[dev]' && python -m pytest"
    )
    _output.write("\n".join(lines) + "\n")
    return 0


def _init_wheel(args: argparse.Namespace) -> int:
    _output.write(f"Wrote {_wheel.write_wheel(args.directory)}\n")
    return 0
