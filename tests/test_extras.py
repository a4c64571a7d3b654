"""A lean install: `pip install crossfn` is the SDK and runtime; each tool names the extra it needs.

A missing extra is simulated by a ``None`` entry in ``sys.modules`` for one
module the extra installs (``import`` then fails, ``find_spec`` finds nothing),
as in an environment where it was never installed.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from crossfn import cli, errors, extras
from crossfn.functions.auto_ready import _cel as auto_ready_cel
from crossfn.gocompat import cel

_ROOT = Path(__file__).resolve().parents[1]
_XBUCKET = [
    str(_ROOT / "examples" / "xbucket" / f) for f in ("xr.yaml", "composition.yaml", "functions.yaml")
]
_ROBOTS = [
    str(_ROOT / "examples" / "starlark-robots" / f) for f in ("xr.yaml", "composition.yaml", "functions.yaml")
]
_KCL = [
    str(_ROOT / "tests" / "functions" / "kcl" / "testdata" / "inline" / f)
    for f in ("xr.yaml", "composition.yaml", "functions.yaml")
]
_CRD = str(_ROOT / "tests" / "data" / "schemas" / "provider" / "ec2.aws.example.io_instances.yaml")


@pytest.fixture
def fresh_imports() -> Iterator[None]:
    """Let a test import crossfn packages afresh; afterwards sys.modules is as it was."""
    saved = dict(sys.modules)
    yield
    for name in set(sys.modules) - set(saved):
        del sys.modules[name]
    sys.modules.update(saved)


_GUARDED = (
    "crossfn.render",
    "crossfn.validate",
    "crossfn.comptest",
    "crossfn.controller",
    "crossfn.functions.starlark",
    "crossfn.functions.kcl",
)


def _forget(monkeypatch: pytest.MonkeyPatch, package: str) -> None:
    """Make the next import of ``package`` run it again (``from crossfn import render`` reads the attribute first)."""
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        del sys.modules[name]
    parent, _, name = package.rpartition(".")
    monkeypatch.delattr(sys.modules[parent], name, raising=False)


@pytest.mark.parametrize(
    ("package", "missing", "want"),
    [
        pytest.param("crossfn.render", "celpy", "crossfn.render: needs the render extra: pip install 'crossfn[render]'", id="Render"),
        pytest.param("crossfn.validate", "celpy", "crossfn.validate: needs the validate extra: pip install 'crossfn[validate]'", id="Validate"),
        pytest.param("crossfn.comptest", "celpy", "crossfn.render: needs the render extra: pip install 'crossfn[render]'", id="CompositionTests"),
        pytest.param("crossfn.controller", "lightkube", "crossfn.controller: needs the controller extra: pip install 'crossfn[controller]'", id="ControllerClient"),
        pytest.param("crossfn.controller", "cryptography", "crossfn.controller: needs the controller extra: pip install 'crossfn[controller]'", id="ControllerTLS"),
        pytest.param("crossfn.functions.starlark", "starlark", "crossfn.functions.starlark: needs the starlark extra: pip install 'crossfn[starlark]'", id="Starlark"),
        pytest.param("crossfn.functions.kcl", "kcl_lib", "crossfn.functions.kcl: needs the kcl extra: pip install 'crossfn[kcl]'", id="Kcl"),
    ],
)  # fmt: skip
@pytest.mark.usefixtures("fresh_imports")
def test_import_without_the_extra_names_it(
    monkeypatch: pytest.MonkeyPatch, package: str, missing: str, want: str
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)
    for guarded in _GUARDED:
        _forget(monkeypatch, guarded)
    with pytest.raises(errors.MissingExtraError) as caught:
        importlib.import_module(package)
    assert str(caught.value) == want
    assert isinstance(caught.value, ImportError), "importing a module that needs an extra is an ImportError"


@pytest.mark.parametrize(
    ("argv", "missing", "want"),
    [
        pytest.param(["render", *_XBUCKET], "celpy", "crossfn render: needs the render extra: pip install 'crossfn[render]'", id="Render"),
        pytest.param(["render", *_ROBOTS], "starlark", "crossfn render: needs the starlark extra: pip install 'crossfn[starlark]'", id="RenderStarlarkFunction"),
        pytest.param(["validate", _CRD, _XBUCKET[0]], "celpy", "crossfn validate: needs the validate extra: pip install 'crossfn[validate]'", id="Validate"),
        pytest.param(["test", str(_ROOT / "tests" / "comptest" / "testdata" / "cases")], "celpy", "crossfn test: needs the render extra: pip install 'crossfn[render]'", id="Test"),
        pytest.param(["convert", "pipeline-composition", str(_ROOT / "examples" / "legacy-resources" / "composition.yaml")], "celpy", "crossfn convert pipeline-composition: needs the render extra: pip install 'crossfn[render]'", id="Convert"),
        pytest.param(["controller", "init"], "httpx2", "crossfn controller init: needs the controller extra: pip install 'crossfn[controller]'", id="Controller"),
        pytest.param(["function", "serve", "starlark"], "starlark", "crossfn function serve: needs the starlark extra: pip install 'crossfn[starlark]'", id="ServeStarlark"),
        pytest.param(["function", "serve", "kcl"], "kcl_lib", "crossfn function serve: needs the kcl extra: pip install 'crossfn[kcl]'", id="ServeKcl"),
        pytest.param(["render", *_KCL], "kcl_lib", "crossfn: note: running function-kcl v0.12.2 as the built-in kcl (behaves as v0.12.2)\ncrossfn render: needs the kcl extra: pip install 'crossfn[kcl]'", id="RenderKclFunction"),
    ],
)  # fmt: skip
@pytest.mark.usefixtures("fresh_imports")
def test_command_without_the_extra_prints_one_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    missing: str,
    want: str,
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)
    for guarded in _GUARDED:
        _forget(monkeypatch, guarded)
    code = cli.main(argv)
    captured = capsys.readouterr()
    assert (code, captured.err, captured.out) == (1, want + "\n", "")


def test_auto_ready_cel_without_the_cel_extra_is_a_warning_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "celpy", None)
    for cached in (cel.module, cel.environment, auto_ready_cel._program):
        cached.cache_clear()
    try:
        with pytest.raises(auto_ready_cel.CelError) as caught:
            auto_ready_cel.evaluate("object.status.ready == true", {"status": {"ready": True}})
    finally:
        for cached in (cel.module, cel.environment, auto_ready_cel._program):
            cached.cache_clear()
    assert str(caught.value) == (
        "failed to compile query: CEL expressions: needs the cel extra: pip install 'crossfn[cel]'"
    )


def test_extras_are_the_projects() -> None:
    """Every extra crossfn.extras checks is declared in pyproject.toml, and none of its modules is core."""
    project = tomllib.loads((_ROOT / "pyproject.toml").read_text())["project"]
    declared = project["optional-dependencies"]
    assert set(extras.EXTRAS) <= set(declared)
    assert set(declared["all"][0].split("[", 1)[1].rstrip("]").split(",")) >= set(extras.EXTRAS) - {"cel"}
    core = " ".join(project["dependencies"]).lower()
    for extra, modules in extras.EXTRAS.items():
        for module in modules:
            assert module not in core, f"{module} (extra {extra}) is a core dependency"


_CORE = """
import importlib.abc, json, sys
BLOCKED = {blocked!r}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, Block())
import crossfn.sdk, crossfn.sdk.runtime, crossfn.sdk.testing, crossfn.sdk.request, crossfn.sdk.response
import crossfn.functions.patch_and_transform, crossfn.functions.auto_ready, crossfn.engine, crossfn.schemas
import crossfn.cli
from crossfn.functions import auto_ready
from crossfn.sdk import testing
rsp = testing.run(auto_ready.compose, testing.request_from_yaml("observed: {{}}"))
crossfn.schemas.builtin.document()
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)))
"""


def test_core_works_without_any_extra() -> None:
    """The SDK, the runtime and the built-ins patch-and-transform and auto-ready import with no extra installed."""
    blocked = sorted(
        {m for modules in extras.EXTRAS.values() for m in modules}
        | {"pydantic", "jsonschema", "kubernetes_validate", "cel", "opentelemetry"}
    )
    out = subprocess.run(
        [sys.executable, "-c", _CORE.format(blocked=blocked)],
        capture_output=True,
        text=True,
        cwd=_ROOT,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1]) == []
