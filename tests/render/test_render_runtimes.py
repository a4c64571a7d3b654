"""Choosing a runtime per Function from its annotations
(upstream core-3.4; TestGetRuntimeDocker and crossfn's additions)."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import errors, functions, render
from crossfn.render import _runtimes


def _fn(
    annotations: dict[str, str], package: str = "xpkg.crossplane.io/acme/function-x:v1.0.0"
) -> dict[str, Any]:
    return {"metadata": {"name": "fn", "annotations": annotations}, "spec": {"package": package}}


@pytest.mark.parametrize(
    ("fn", "want", "reason"),
    [
        pytest.param(
            _fn({}), _runtimes.Runtime("fn", "Docker", docker=_runtimes.Docker(image="xpkg.crossplane.io/acme/function-x:v1.0.0")),
            "defaults: cleanup Remove, pull IfNotPresent, bind 127.0.0.1, image = spec.package", id="SuccessDefaults",
        ),
        pytest.param(
            _fn({
                "render.crossplane.io/runtime": "Docker",
                "render.crossplane.io/runtime-docker-cleanup": "Orphan",
                "render.crossplane.io/runtime-docker-pull-policy": "Always",
                "render.crossplane.io/runtime-docker-image": "example/img:v2",
                "render.crossplane.io/runtime-docker-name": "fn-container",
                "render.crossplane.io/runtime-docker-env": "A=1,junk,B=2",
                "render.crossplane.io/runtime-docker-publish-address": "0.0.0.0",
                "render.crossplane.io/runtime-docker-target": "docker-host",
            }),
            _runtimes.Runtime("fn", "Docker", docker=_runtimes.Docker(
                image="example/img:v2", cleanup="Orphan", pull_policy="Always", name="fn-container",
                env=("A=1", "B=2"), publish_address="0.0.0.0", target_host="docker-host",
            )),
            "every Docker annotation; env entries without = are ignored", id="SuccessAllSet",
        ),
        pytest.param(
            _fn({"render.crossplane.io/runtime-docker-cleanup": "Stop"}),
            _runtimes.Runtime("fn", "Docker", docker=_runtimes.Docker(
                image="xpkg.crossplane.io/acme/function-x:v1.0.0", cleanup="Stop")),
            "cleanup Stop", id="AnnotationsCleanupSetToStop",
        ),
        pytest.param(
            _fn({"render.crossplane.io/runtime": "Development"}), _runtimes.Runtime("fn", "Development", target="localhost:9443"),
            "Development defaults to localhost:9443", id="DevelopmentDefault",
        ),
        pytest.param(
            _fn({"render.crossplane.io/runtime": "Development",
                 "render.crossplane.io/runtime-development-target": "dns:///example.org:7443"}),
            _runtimes.Runtime("fn", "Development", target="dns:///example.org:7443"),
            "gRPC target syntax", id="DevelopmentTarget",
        ),
        pytest.param(
            _fn({}, package="xpkg.upbound.io/crossplane-contrib/function-patch-and-transform:v0.10.8"),
            _runtimes.Runtime("fn", "InProcess", object_ref="crossfn.functions.patch_and_transform:compose"),
            "the upstream package at a version the built-in reproduces runs in-process, any registry", id="BuiltinDefault",
        ),
        pytest.param(
            _fn({}, package="xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.5.0"),
            _runtimes.Runtime("fn", "InProcess", object_ref="crossfn.functions.auto_ready:compose_ready_condition_only"),
            "an older version the built-in can emulate runs as that version", id="BuiltinEmulated",
        ),
        pytest.param(
            _fn({}, package="xpkg.upbound.io/crossplane-contrib/function-patch-and-transform:v0.1.4"),
            _runtimes.Runtime("fn", "InProcess", object_ref="crossfn.functions.patch_and_transform:compose_v0_1"),
            "every reproduced release runs in-process as itself", id="BuiltinOldRelease",
        ),
        pytest.param(
            _fn({}, package="xpkg.upbound.io/crossplane-contrib/function-patch-and-transform:v0.1.3"),
            _runtimes.Runtime("fn", "Docker", docker=_runtimes.Docker(
                image="xpkg.upbound.io/crossplane-contrib/function-patch-and-transform:v0.1.3",
                builtin_versions="v0.1.4, v0.2.0 to v0.10.8")),
            "a version the built-in does not reproduce runs its package, as Crossplane does", id="BuiltinOtherVersion",
        ),
        pytest.param(
            _fn({"render.crossplane.io/runtime": "InProcess", "render.crossfn.io/runtime-inprocess-object": "m:f"}),
            _runtimes.Runtime("fn", "InProcess", object_ref="m:f"), "InProcess with module:object", id="InProcess",
        ),
        pytest.param(
            _fn({"render.crossplane.io/runtime": "Process", "render.crossfn.io/runtime-process-command": "go run . -v"}),
            _runtimes.Runtime("fn", "Process", command=("go", "run", ".", "-v")), "Process splits like a shell", id="Process",
        ),
    ],
)  # fmt: skip
def test_plan(fn: dict[str, Any], want: _runtimes.Runtime, reason: str) -> None:
    assert _runtimes.plan([fn]) == {"fn": want}, reason


@pytest.mark.parametrize(
    ("annotations", "want", "reason"),
    [
        pytest.param(
            {"render.crossplane.io/runtime-docker-cleanup": "wat"},
            'unsupported "render.crossplane.io/runtime-docker-cleanup" annotation value "wat" (unknown cleanup policy)',
            "Crossplane's text",
            id="ErrorUnknownAnnotationValueCleanup",
        ),
        pytest.param(
            {"render.crossplane.io/runtime-docker-pull-policy": "wat"},
            'unsupported "render.crossplane.io/runtime-docker-pull-policy" annotation value "wat" (unknown pull policy)',
            "Crossplane's text",
            id="ErrorUnknownAnnotationPullPolicy",
        ),
        pytest.param(
            {"render.crossplane.io/runtime": "wat"},
            'unsupported "render.crossplane.io/runtime" annotation value "wat" (unknown runtime)',
            "Crossplane's text",
            id="UnknownRuntime",
        ),
        pytest.param(
            {"render.crossplane.io/runtime": "InProcess"},
            'Function "fn" uses runtime InProcess but is not a crossfn built-in',
            "InProcess needs an object unless the package is built in",
            id="InProcessWithoutObject",
        ),
        pytest.param(
            {"render.crossplane.io/runtime": "Process"},
            'Function "fn" uses runtime Process but has no "render.crossfn.io/runtime-process-command" annotation',
            "Process needs a command",
            id="ProcessWithoutCommand",
        ),
    ],
)
def test_plan_errors(annotations: dict[str, str], want: str, reason: str) -> None:
    with pytest.raises(errors.InputError) as info:
        _runtimes.plan([_fn(annotations)])
    assert str(info.value).startswith(want), reason


def test_duplicate_function_last_wins() -> None:
    fns = [
        _fn({"render.crossplane.io/runtime": "Development"}),
        _fn({"render.crossplane.io/runtime-docker-name": "x"}),
    ]
    assert _runtimes.plan(fns)["fn"].kind == "Docker", "the last Function of a name wins the connection map"


@pytest.mark.parametrize(
    ("runtime", "want", "reason"),
    [
        pytest.param(
            _runtimes.Runtime("fn", "InProcess", object_ref="crossfn.functions.auto_ready:compose"), "auto-ready",
            "a built-in's object names the built-in", id="Builtin",
        ),
        pytest.param(
            _runtimes.Runtime("fn", "InProcess", object_ref="m:f"), None,
            "any other object is the user's code", id="UserObject",
        ),
        pytest.param(
            _runtimes.Runtime("fn", "Development", target="crossfn.functions.auto_ready:compose"), None,
            "only an in-process runtime runs a built-in", id="NotInProcess",
        ),
    ],
)  # fmt: skip
def test_runtime_builtin(runtime: _runtimes.Runtime, want: str | None, reason: str) -> None:
    assert runtime.builtin == want, reason


async def test_started_loads_builtins_with_the_shared_loader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built-ins load through functions.load, the controller's loader, not as an arbitrary module:object."""
    loaded: list[str] = []

    def load(name: str) -> object:
        loaded.append(name)
        return name

    monkeypatch.setattr(functions, "load", load)
    runtimes = _runtimes.plan(
        [_fn({}, package="xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.5.0")]
    )
    started = _runtimes.Started(runtimes, cwd=tmp_path)
    await started.start(deadline=0.0)
    assert (loaded, started.objects) == (["auto-ready@v0.5.2"], {"fn": "auto-ready@v0.5.2"})


def test_public_exports() -> None:
    """``crossfn.render`` exports exactly its documented names, and each exists."""
    from crossfn import render

    typing_names = {
        "annotations",
        "Any",
        "Callable",
        "Coroutine",
        "ParamSpec",
        "TypeVar",
        "asyncio",
        "functools",
    }
    public = {n for n in dir(render) if n.isidentifier() and not n.startswith("_") and n not in typing_names}
    assert set(render.__all__) == public, "no public name outside __all__"
    for name in render.__all__:
        assert getattr(render, name) is not None


def test_process_runtime_stops_its_whole_process_group(tmp_path: Path) -> None:
    """A Function started through ``sh -c`` forks; the forked process must not outlive render (issue 15)."""
    pid_file = tmp_path / "pid"
    child = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(600)"
    command = f'sh -c "{{python}} -c \\"{child}\\"; true"'
    (tmp_path / "fns.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "pkg.crossplane.io/v1",
                "kind": "Function",
                "metadata": {
                    "name": "function-patch-and-transform",
                    "annotations": {
                        "render.crossplane.io/runtime": "Process",
                        "render.crossfn.io/runtime-process-command": command,
                    },
                },
                "spec": {"package": "example/function-forks:v1"},
            }
        )
    )
    example = Path(__file__).parents[2] / "examples" / "xbucket"
    req = render.Request(
        composite_resource=example / "xr.yaml",
        composition=example / "composition.yaml",
        functions=tmp_path / "fns.yaml",
        timeout=1.5,
    )
    with pytest.raises(errors.CrossfnError, match="context deadline exceeded"):
        render.render(req)
    pid = int(pid_file.read_text())
    stat = Path(f"/proc/{pid}/stat")
    running = stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has stopped
    if running:
        os.kill(pid, signal.SIGKILL)
    assert not running, "the process the shell started is still running after render returned"


_WITHOUT_DOCKER = (
    "set the render.crossplane.io/runtime annotation (or -a render.crossplane.io/runtime=...) to "
    "InProcess with render.crossfn.io/runtime-inprocess-object: <module:object> (a Python function), "
    "Process with render.crossfn.io/runtime-process-command: <command> (a local command), "
    "or Development with render.crossplane.io/runtime-development-target: <host:port> "
    "(an already running function, default localhost:9443); see docs/render.md"
)


@pytest.mark.parametrize(
    ("package", "pin"),
    [
        pytest.param(
            "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.11.0",
            "pin a version a crossfn built-in behaves as (v0.1.4, v0.2.0 to v0.10.8), or ",
            id="PinnedOtherVersion",
        ),
        pytest.param(
            "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.8.0",
            "pin a version a crossfn built-in behaves as (v0.1.0 to v0.7.0), or ",
            id="PinnedOtherAutoReady",
        ),
        pytest.param(
            "xpkg.crossplane.io/crossplane-contrib/function-auto-ready@sha256:" + "a" * 64,
            "pin a version a crossfn built-in behaves as (v0.1.0 to v0.7.0), or ",
            id="Digest",
        ),
        pytest.param("xpkg.crossplane.io/acme/function-x:v1.0.0", "", id="OtherPackage"),
    ],
)
async def test_unsubstituted_package_without_docker_is_one_clear_line(
    tmp_path: Path, package: str, pin: str
) -> None:
    """With no Docker engine, one line names what would run the Function without Docker, in order: a version a
    built-in behaves as (only for a package a built-in stands in for at other versions, naming them), then the
    InProcess, Process and Development runtimes with the annotation each needs."""
    started = _runtimes.Started(
        _runtimes.plan([_fn({}, package=package)]), cwd=tmp_path, docker_reachable=lambda: False
    )
    with pytest.raises(errors.InputError) as info:
        await started.start(deadline=0.0)
    await started.stop()
    assert str(info.value) == (
        f'cannot start Function "fn" (Docker image "{package}"): no Docker engine is reachable; '
        f"to run it without Docker, {pin}{_WITHOUT_DOCKER}"
    )


@pytest.mark.parametrize(
    ("where", "found", "reason"),
    [
        pytest.param(
            "functions", True, "the Functions file's directory is searched first", id="FunctionsDir"
        ),
        pytest.param(
            "cwd",
            True,
            "the working directory too, as `crossfn function serve` does: a ported template's "
            "`function.fn:FunctionRunner` rendered from the project's root",
            id="WorkingDir",
        ),
        pytest.param("elsewhere", False, "nowhere else", id="Elsewhere"),
    ],
)
def test_load_object_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, found: bool, reason: str
) -> None:
    module = f"crossfn_load_object_{where}"
    dirs = {name: tmp_path / name for name in ("functions", "cwd", "elsewhere")}
    for d in dirs.values():
        d.mkdir()
    (dirs[where] / f"{module}.py").write_text("def compose(req, rsp):\n    pass\n")
    monkeypatch.chdir(dirs["cwd"])
    before = list(sys.path)
    try:
        if found:
            obj = _runtimes.load_object(f"{module}:compose", "fn", dirs["functions"])
            assert callable(obj), reason
        else:
            with pytest.raises(errors.InputError, match=f"No module named '{module}'"):
                _runtimes.load_object(f"{module}:compose", "fn", dirs["functions"])
    finally:
        sys.modules.pop(module, None)
    assert sys.path == before, "the search path is restored"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        pytest.param(
            "def compose(req, rsp)\n", r"SyntaxError: expected ':' \(at .*\.py:1\)$", id="SyntaxError"
        ),
        pytest.param(
            "raise RuntimeError('no config')\n", r"RuntimeError: no config \(at .*\.py:1\)$", id="Raises"
        ),
    ],
)
def test_load_object_module_errors_are_one_line(tmp_path: Path, source: str, message: str) -> None:
    """A user's module that does not compile or raises on import is one line naming where, not a traceback."""
    module = f"crossfn_load_object_{tmp_path.name}"
    (tmp_path / f"{module}.py").write_text(source)
    with pytest.raises(
        errors.InputError, match=f'cannot load in-process Function "fn" from "{module}:compose": .*{message}'
    ):
        _runtimes.load_object(f"{module}:compose", "fn", tmp_path)
