"""The one module loader: directories isolate same-named modules, and import failures are one line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from crossfn import errors
from crossfn.sdk import _loader

_MODULE = "crossfn_loader_probe"


@pytest.fixture(autouse=True)
def _forget_probe() -> Iterator[None]:
    yield
    for name in [m for m in sys.modules if m.split(".")[0] == _MODULE]:
        del sys.modules[name]


def _dir(tmp_path: Path, name: str, source: str) -> Path:
    d = tmp_path / name
    d.mkdir()
    (d / f"{_MODULE}.py").write_text(source)
    return d


def test_same_named_modules_in_two_directories_stay_apart(tmp_path: Path) -> None:
    a = _dir(tmp_path, "a", "TAG = 'a'\n")
    b = _dir(tmp_path, "b", "TAG = 'b'\n")
    assert _loader.load(f"{_MODULE}:TAG", search=a) == "a"
    assert _loader.load(f"{_MODULE}:TAG", search=b) == "b"
    assert _loader.load(f"{_MODULE}:TAG", search=a) == "a"


def test_a_directory_module_is_imported_once(tmp_path: Path) -> None:
    d = _dir(tmp_path, "d", "import itertools\nCOUNT = next(itertools.count())\nOBJ = object()\n")
    assert _loader.load(f"{_MODULE}:OBJ", search=d) is _loader.load(f"{_MODULE}:OBJ", search=d)


@pytest.mark.parametrize(
    ("reason", "source", "ref", "want"),
    [
        pytest.param(
            "An exception at import time.",
            "raise RuntimeError('no config\\nat all')\n",
            f"{_MODULE}:f",
            f'cannot load function "{_MODULE}:f": importing {_MODULE} raised RuntimeError: no config at all',
            id="RaisesAtImport",
        ),
        pytest.param(
            "A syntax error.",
            "def f(:\n",
            f"{_MODULE}:f",
            f'cannot load function "{_MODULE}:f": importing {_MODULE} raised SyntaxError: ',
            id="SyntaxError",
        ),
        pytest.param(
            "sys.exit while importing.",
            "import sys\nsys.exit(3)\n",
            f"{_MODULE}:f",
            f'cannot load function "{_MODULE}:f": importing {_MODULE} raised SystemExit: 3',
            id="SysExit",
        ),
        pytest.param(
            "A missing dependency.",
            "import crossfn_no_such_dependency\n",
            f"{_MODULE}:f",
            f'cannot load function "{_MODULE}:f": cannot import {_MODULE}: '
            "No module named 'crossfn_no_such_dependency'",
            id="MissingDependency",
        ),
        pytest.param(
            "No such attribute.",
            "x = 1\n",
            f"{_MODULE}:f.g",
            f'cannot load function "{_MODULE}:f.g": {_MODULE} has no attribute f.g',
            id="NoAttribute",
        ),
        pytest.param(
            "A module __getattr__ (a lazy export) that raises while the object is looked up.",
            "def __getattr__(name):\n    raise ValueError('no lazy ' + name)\n",
            f"{_MODULE}:f",
            f'cannot load function "{_MODULE}:f": importing {_MODULE}:f raised ValueError: no lazy f',
            id="LazyExportRaises",
        ),
        pytest.param(
            "A lazy export whose own import fails.",
            "def __getattr__(name):\n    import crossfn_no_such_dependency\n",
            f"{_MODULE}:f",
            f'cannot load function "{_MODULE}:f": cannot import {_MODULE}:f: '
            "No module named 'crossfn_no_such_dependency'",
            id="LazyExportImportFails",
        ),
        pytest.param("Not module:object.", "", _MODULE, "want MODULE:OBJECT", id="NoColon"),
    ],
)
def test_failures_are_one_input_error_line(
    tmp_path: Path, reason: str, source: str, ref: str, want: str
) -> None:
    d = _dir(tmp_path, "d", source)
    with pytest.raises(errors.InputError) as exc:
        _loader.load(ref, search=d)
    assert "\n" not in str(exc.value), reason
    assert str(exc.value).startswith(want) if want.endswith(": ") else want in str(exc.value), reason
