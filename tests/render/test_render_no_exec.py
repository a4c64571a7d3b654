"""``--no-exec``: render and test refuse Functions that would run code crossfn does not ship (issue 15)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from crossfn import cli, errors
from crossfn.render import _runtimes

_X = Path(__file__).parents[2] / "examples" / "xbucket"


def _fn(runtime: str, **annotations: str) -> dict[str, object]:
    meta: dict[str, object] = {"name": "function-patch-and-transform"}
    if runtime:
        meta["annotations"] = {"render.crossplane.io/runtime": runtime, **annotations}
    return {"apiVersion": "pkg.crossplane.io/v1", "kind": "Function", "metadata": meta,
            "spec": {"package": "xpkg.crossplane.io/someone/function-anything:v1"}}  # fmt: skip


_BUILTIN = {"apiVersion": "pkg.crossplane.io/v1", "kind": "Function", "metadata": {"name": "fn"},
            "spec": {"package": "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.8"}}  # fmt: skip


@pytest.mark.parametrize(
    ("reason", "fn", "refused"),
    [
        pytest.param("A Process runs any command.", _fn("Process", **{"render.crossfn.io/runtime-process-command": "touch x"}),
                     "runtime Process (touch x)", id="Process"),
        pytest.param("Docker runs any image.", _fn(""), "runtime Docker (xpkg.crossplane.io/someone/function-anything:v1)",
                     id="Docker"),
        pytest.param("An InProcess object outside crossfn is any Python code.",
                     _fn("InProcess", **{"render.crossfn.io/runtime-inprocess-object": "os:system"}),
                     "runtime InProcess (os:system)", id="UserInProcess"),
        pytest.param("The built-ins are crossfn's own code.", _BUILTIN, None, id="BuiltIn"),
        pytest.param("A Development target is a server someone already runs.", _fn("Development"), None,
                     id="Development"),
    ],
)  # fmt: skip
def test_refuse_exec(reason: str, fn: dict[str, object], refused: str | None) -> None:
    runtimes = _runtimes.plan([fn])
    if refused is None:
        _runtimes.refuse_exec(runtimes)
        return
    with pytest.raises(errors.InputError) as info:
        _runtimes.refuse_exec(runtimes)
    assert str(info.value).endswith(f"which --no-exec refuses: {refused}"), reason


def _process_functions(tmp_path: Path) -> Path:
    marker = tmp_path / "ran"
    command = f"sh -c 'touch {marker}'"
    path = tmp_path / "functions.yaml"
    path.write_text(yaml.safe_dump(_fn("Process", **{"render.crossfn.io/runtime-process-command": command})))
    return path


def test_render_no_exec_runs_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fns = _process_functions(tmp_path)
    status = cli.main(["render", str(_X / "xr.yaml"), str(_X / "composition.yaml"), str(fns), "--no-exec"])
    out, err = capsys.readouterr()
    assert (status, out, err.count("\n")) == (1, "", 1), err
    assert "which --no-exec refuses: runtime Process" in err
    assert not (tmp_path / "ran").exists(), "the command never ran"


def test_test_no_exec_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fns = _process_functions(tmp_path)
    test = yaml.safe_load((_X / "test.yaml").read_text())
    case = test["spec"]["tests"][0]
    case["inputs"] = {"xr": {"path": str(_X / "xr.yaml")}, "composition": {"path": str(_X / "composition.yaml")},
                      "functions": {"path": str(fns)}}  # fmt: skip
    test["spec"]["tests"] = [case]
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(test))
    status = cli.main(["test", str(tmp_path / "t.yaml"), "--no-exec"])
    out, err = capsys.readouterr()
    assert (status, out, err.count("\n")) == (2, "", 1), err
    assert "which --no-exec refuses: runtime Process" in err
    assert not (tmp_path / "ran").exists(), "the command never ran"


def test_builtins_render_under_no_exec(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(_X / "xr.yaml"), str(_X / "composition.yaml"), str(_X / "functions.yaml"), "--no-exec"]
    assert cli.main(["render", *argv]) == 0, capsys.readouterr().err
    assert cli.main(["test", str(_X / "test.yaml"), "--no-exec"]) == 0, capsys.readouterr().err
