"""Function runtimes: how render reaches each Function, chosen by its annotations (upstream core-3.4).

``render.crossplane.io/runtime`` picks one per Function:

==============  ===========================================================
``InProcess``   a Python object (``module:object``, annotation
                ``render.crossfn.io/runtime-inprocess-object``) called in
                this process; a crossfn built-in needs no annotation.
``Process``     a local command (annotation
                ``render.crossfn.io/runtime-process-command``) started with
                ``--insecure --address=127.0.0.1:<free port>``, waited for,
                called over gRPC and stopped afterwards. Any SDK works.
``Development`` an already running function at
                ``render.crossplane.io/runtime-development-target``
                (default ``localhost:9443``), insecure.
``Docker``      the package image in a container, through the ``docker``
                CLI, where a Docker engine is reachable.
(none)          an upstream package a crossfn built-in stands in for
                (:func:`crossfn.functions.resolve`: the package and its
                version) runs ``InProcess``; a release whose PyPI package
                ``crossfn function install`` installed
                (:mod:`crossfn.functions.installs`) runs as a ``Process``
                of that install; anything else is ``Docker``, as in
                Crossplane. :func:`notes` says which ran.
==============  ===========================================================

:func:`plan` decides (pure, so every annotation error is found before anything
starts); :class:`Started` starts every Function before the first step, as
Crossplane does, and stops them all afterwards, even after a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import shlex
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from crossfn import errors, functions
from crossfn.functions import installs, process
from crossfn.render import _load, _project
from crossfn.sdk import _loader, function

__all__ = [
    "DEVELOPMENT_TARGET",
    "INPROCESS_OBJECT",
    "PROCESS_COMMAND",
    "RUNTIME",
    "Runtime",
    "Started",
    "notes",
    "plan",
]

RUNTIME = "render.crossplane.io/runtime"
DEVELOPMENT_TARGET = "render.crossplane.io/runtime-development-target"
INPROCESS_OBJECT = "render.crossfn.io/runtime-inprocess-object"
PROCESS_COMMAND = "render.crossfn.io/runtime-process-command"
_DOCKER_CLEANUP = "render.crossplane.io/runtime-docker-cleanup"
_DOCKER_PULL = "render.crossplane.io/runtime-docker-pull-policy"
_DOCKER_IMAGE = "render.crossplane.io/runtime-docker-image"
_DOCKER_NAME = "render.crossplane.io/runtime-docker-name"
_DOCKER_ENV = "render.crossplane.io/runtime-docker-env"
_DOCKER_PUBLISH = "render.crossplane.io/runtime-docker-publish-address"
_DOCKER_TARGET = "render.crossplane.io/runtime-docker-target"

_DEFAULT_DEV_TARGET = "localhost:9443"
_BUILTIN_BY_REF = {functions.ref(name): name for name in [*functions.BUILTINS, *functions.EMULATIONS]}


@dataclasses.dataclass(frozen=True)
class Docker:
    """The Docker runtime's settings, from its annotations (upstream core-3.4)."""

    image: str
    cleanup: str = "Remove"
    pull_policy: str = "IfNotPresent"
    name: str = ""
    env: tuple[str, ...] = ()
    publish_address: str = "127.0.0.1"
    target_host: str = ""
    builtin_versions: str = ""
    """When a built-in stands in for this package at other versions: which (``crossfn.functions.resolve``)."""
    installable: str = ""
    """When the package is a release on PyPI too: the package, for ``crossfn function install`` (``crossfn.functions.installs``)."""


@dataclasses.dataclass(frozen=True)
class Runtime:
    """How one Function runs: ``kind`` is the runtime name, the other fields its settings."""

    function: str
    kind: str
    object_ref: str = ""
    """``module:object`` for InProcess."""
    target: str = ""
    """gRPC target for Development."""
    command: tuple[str, ...] = ()
    """argv for Process."""
    docker: Docker | None = None
    installed: str = ""
    """For a Process that runs an install of ``crossfn function install``: the PyPI package and where."""
    embedded: str = ""
    """The source directory of an embedded project function, run in-process (``_project``)."""

    @property
    def builtin(self) -> str | None:
        """The built-in's short name when this runs one of crossfn's own functions in-process, else None."""
        return _BUILTIN_BY_REF.get(self.object_ref) if self.kind == "InProcess" else None

    def detail(self) -> str:
        """What the runtime runs: the object, target, command or image."""
        return {
            "InProcess": self.object_ref or f"embedded function {self.embedded}",
            "Development": self.target,
            "Process": shlex.join(self.command),
            "Docker": self.docker.image if self.docker else "",
        }[self.kind]

    def describe(self) -> str:
        """One line for ``--verbose``: which runtime, and what it runs."""
        return f"Function {errors.quote(self.function)}: runtime {self.kind} ({self.detail()})"


def _annotations(fn: Mapping[str, Any]) -> Mapping[str, str]:
    return {str(k): str(v) for k, v in _load.object_at(fn, "metadata", "annotations").items()}


def _docker(fn: Mapping[str, Any], package: str) -> Docker:
    a = _annotations(fn)
    cleanup = a.get(_DOCKER_CLEANUP, "Remove")
    if cleanup not in ("Stop", "Remove", "Orphan"):
        raise errors.InputError(
            f"unsupported {errors.quote(_DOCKER_CLEANUP)} annotation value {errors.quote(cleanup)} (unknown cleanup policy)"
        )
    pull = a.get(_DOCKER_PULL, "IfNotPresent")
    if pull not in ("Always", "Never", "IfNotPresent"):
        raise errors.InputError(
            f"unsupported {errors.quote(_DOCKER_PULL)} annotation value {errors.quote(pull)} (unknown pull policy)"
        )
    env = tuple(e for e in a.get(_DOCKER_ENV, "").split(",") if "=" in e)
    return Docker(
        image=a.get(_DOCKER_IMAGE) or package,
        cleanup=cleanup,
        pull_policy=pull,
        name=a.get(_DOCKER_NAME, ""),
        env=env,
        publish_address=a.get(_DOCKER_PUBLISH) or "127.0.0.1",
        target_host=a.get(_DOCKER_TARGET, ""),
    )


def _runtime(fn: Mapping[str, Any]) -> Runtime:
    name = str(_load.object_at(fn, "metadata").get("name") or "")
    package = str(_load.object_at(fn, "spec").get("package") or "")
    a = _annotations(fn)
    kind = a.get(RUNTIME, "")
    decision = functions.resolve(package)
    builtin = decision.builtin if decision is not None else None
    if a.get(_project.EMBEDDED) and kind in ("", "InProcess"):
        return Runtime(name, "InProcess", embedded=a[_project.EMBEDDED])
    if kind == "" and builtin is not None:
        kind = "InProcess"
    if kind == "" and decision is None:
        found = installs.find(package)
        if found is not None:
            what = f"{found.wanted.source.distribution} {found.wanted.version} installed in {found.path}"
            return Runtime(name, "Process", command=found.argv, installed=what)
    if kind in ("", "Docker"):
        docker = _docker(fn, package)
        if decision is not None and builtin is None:
            docker = dataclasses.replace(docker, builtin_versions=decision.covered)
        want = installs.wanted(package)
        if want is not None and not want.problem:
            docker = dataclasses.replace(docker, installable=package)
        return Runtime(name, "Docker", docker=docker)
    if kind == "Development":
        return Runtime(name, kind, target=a.get(DEVELOPMENT_TARGET) or _DEFAULT_DEV_TARGET)
    if kind == "InProcess":
        ref = a.get(INPROCESS_OBJECT) or (functions.ref(builtin) if builtin else "")
        if not ref:
            raise errors.InputError(
                f"Function {errors.quote(name)} uses runtime InProcess but is not a crossfn built-in and has no "
                f"{errors.quote(INPROCESS_OBJECT)} annotation naming a module:object"
            )
        return Runtime(name, kind, object_ref=ref)
    if kind == "Process":
        command = a.get(PROCESS_COMMAND, "")
        try:
            argv = tuple(shlex.split(command))
        except ValueError as exc:
            raise errors.InputError(
                f"Function {errors.quote(name)}: cannot parse {PROCESS_COMMAND}: {exc}"
            ) from exc
        if not argv:
            raise errors.InputError(
                f"Function {errors.quote(name)} uses runtime Process but has no {errors.quote(PROCESS_COMMAND)} annotation"
            )
        return Runtime(name, kind, command=argv)
    raise errors.InputError(
        f"unsupported {errors.quote(RUNTIME)} annotation value {errors.quote(kind)} (unknown runtime)"
    )


def notes(fns: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per Function left to its default runtime whose package a built-in or an install could stand in for.

    Each says what runs: the built-in, and which upstream version it behaves
    as, or the package itself and why the built-in does not stand in, or the
    PyPI package ``crossfn function install`` installed. Never a silent
    substitution.
    """
    out = []
    for fn in fns:
        if _annotations(fn).get(RUNTIME, ""):
            continue
        package = str(_load.object_at(fn, "spec").get("package") or "")
        decision = functions.resolve(package)
        if decision is not None and decision.line:
            out.append(decision.line)
        found = installs.find(package) if decision is None else None
        if found is not None:
            out.append(found.line())
    return out


def plan(fns: Sequence[Mapping[str, Any]]) -> dict[str, Runtime]:
    """Each Function's runtime by Function name; a later duplicate name wins, as in Crossplane."""
    out: dict[str, Runtime] = {}
    for fn in fns:
        rt = _runtime(fn)
        out[rt.function] = rt
    return out


def refuse_exec(runtimes: Mapping[str, Runtime]) -> None:
    """Raise for the first runtime that would run code crossfn does not ship (``--no-exec``).

    Allowed: the built-in functions in-process (patch-and-transform, auto-ready,
    the sandboxed Starlark...), and Development targets, servers someone
    already runs. Refused: a Process (any command), Docker (any image), an
    InProcess object outside crossfn (any Python code, an embedded project
    function), and a built-in that runs the code its input gives in a language
    crossfn cannot confine (function-python's Python; function-kcl's KCL,
    which reads files).
    """
    for rt in runtimes.values():
        if rt.kind == "Development" or (rt.builtin is not None and not functions.runs_code(rt.builtin)):
            continue
        what = f"runtime {rt.kind} ({rt.detail()})"
        if rt.installed:
            what = f"runtime {rt.kind} of the PyPI package {rt.installed}"
        if rt.builtin is not None:
            short = rt.builtin.partition("@")[0]
            code = "KCL program" if short == "kcl" else "Python script"
            what = f"the built-in {short} runs the {code} its input gives"
        raise errors.InputError(
            f"Function {errors.quote(rt.function)} would run code crossfn does not ship, which --no-exec refuses: "
            f"{what}"
        )


def load_object(ref: str, function: str, search: Path) -> object:
    """Import ``module:object`` for InProcess Function ``function``: from ``search`` (the Functions
    file's directory) first, then the working directory, then the installed packages."""
    what = f"cannot load in-process Function {errors.quote(function)} from {errors.quote(ref)}"
    return _loader.load(ref, search=search, what=what)


def servable(obj: object, rt: Runtime) -> object:
    """The object to run for an InProcess Function (a servicer class instantiated), or one line on why it cannot run."""
    try:
        return function.servable(obj)
    except function.NotServableError as exc:
        raise errors.InputError(
            f"cannot load in-process Function {errors.quote(rt.function)} from {errors.quote(rt.object_ref)}: {exc}"
        ) from exc


class Started:
    """The running Functions of one render: in-process objects and gRPC targets, and how to stop them."""

    def __init__(
        self,
        runtimes: Mapping[str, Runtime],
        *,
        cwd: Path,
        docker: str = "docker",
        docker_reachable: Callable[[], bool] | None = None,
        crds: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        """``docker`` is the Docker CLI to run; ``docker_reachable`` says whether an engine answers
        (default: ``DOCKER_HOST`` is set or ``/var/run/docker.sock`` exists)."""
        self._runtimes = runtimes
        self._cwd = cwd
        self._docker = docker
        self._docker_reachable = docker_reachable or _docker_engine_reachable
        self._crds = crds
        self.objects: dict[str, object] = {}
        self.targets: dict[str, str] = {}
        self._processes: list[process.ServerProcess] = []
        self._containers: list[tuple[str, Docker]] = []
        self._logs: list[IO[bytes]] = []

    async def start(self, deadline: float) -> None:
        """Start every Function; raise on the first that cannot start (the rest are stopped by :meth:`stop`)."""
        for rt in self._runtimes.values():
            if rt.builtin is not None:
                self.objects[rt.function] = functions.load(rt.builtin)
            elif rt.embedded:
                self.objects[rt.function] = _project.embedded_object(
                    rt.function, Path(rt.embedded), crds=self._crds
                )
            elif rt.kind == "InProcess":
                self.objects[rt.function] = servable(load_object(rt.object_ref, rt.function, self._cwd), rt)
            elif rt.kind == "Development":
                self.targets[rt.function] = rt.target
            elif rt.kind == "Process":
                self.targets[rt.function] = await self._start_process(rt, deadline)
            else:
                self.targets[rt.function] = await self._start_container(rt, deadline)

    async def _start_process(self, rt: Runtime, deadline: float) -> str:
        program = process.argv_for(rt.command, 0)[0]  # as it will run: ``{python}`` filled in
        who = f"Function {errors.quote(rt.function)} (Process {errors.quote(program)})"
        # The function's log goes to a file; its last line explains a function that fails to start.
        log = tempfile.TemporaryFile()  # noqa: SIM115 -- lives until stop(), which closes it
        self._logs.append(log)
        try:
            server = await process.ServerProcess.start(rt.command, output=log, cwd=self._cwd)
        except OSError as exc:
            raise errors.InputError(f"cannot start {who}: {exc.strerror or exc}") from exc
        self._processes.append(server)
        try:
            await server.wait_serving(deadline, who)
        except errors.FunctionRunError as exc:
            raise errors.FunctionRunError(f"cannot start {who}: {exc}{_last_line(log)}") from exc
        return server.target

    async def _start_container(self, rt: Runtime, deadline: float) -> str:
        d = rt.docker
        assert d is not None  # plan() sets it for every Docker runtime
        who = f"Function {errors.quote(rt.function)} (Docker image {errors.quote(d.image)})"
        if shutil.which(self._docker) is None or not self._docker_reachable():
            raise errors.InputError(f"cannot start {who}: no Docker engine is reachable; {without_docker(d)}")
        container = await self._existing_container(d.name) if d.name else None
        if container is None:
            container = await self._run_container(d)
        self._containers.append((container, d))
        published = (await self._docker_cli("port", container, "9443/tcp")).splitlines()[0].strip()
        host, _, port = published.rpartition(":")
        target = f"{d.target_host or host}:{port}"
        await process.wait_serving(target, deadline, who)
        return target

    async def _existing_container(self, name: str) -> str | None:
        """A container of that name, started if it was stopped, or ``None``: Crossplane reuses named containers."""
        try:
            running = (await self._docker_cli("inspect", "--format", "{{.State.Running}}", name)).strip()
        except errors.FunctionRunError:
            return None
        if running != "true":
            await self._docker_cli("start", name)
        return name

    async def _run_container(self, d: Docker) -> str:
        if d.pull_policy == "Always":
            await self._docker_cli("pull", d.image)
        args = ["run", "-d", "-p", f"{d.publish_address}::9443/tcp", f"--pull={_PULL[d.pull_policy]}"]
        if d.name:
            args += ["--name", d.name]
        for e in d.env:
            args += ["-e", e]
        return (await self._docker_cli(*args, d.image, "--insecure")).strip()

    async def _docker_cli(self, *args: str) -> str:
        proc = await asyncio.create_subprocess_exec(
            self._docker, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        out, err = await proc.communicate()
        if proc.returncode != 0:
            raise errors.FunctionRunError(f"docker {args[0]}: {err.decode(errors='replace').strip()}")
        return out.decode()

    async def stop(self) -> None:
        """Stop what :meth:`start` started: each process's whole group gets SIGTERM, then SIGKILL after
        :data:`process.STOP_GRACE` seconds (one grace period for all of them), and each container."""
        for server in self._processes:
            server.terminate()
        deadline = asyncio.get_running_loop().time() + process.STOP_GRACE
        for server in self._processes:
            await server.wait_stopped(deadline)
        for container, d in self._containers:
            with contextlib.suppress(errors.FunctionRunError):
                if d.cleanup == "Remove":
                    await self._docker_cli("rm", "-f", container)
                elif d.cleanup == "Stop":
                    await self._docker_cli("stop", "-t", str(int(process.STOP_GRACE)), container)
        for log in self._logs:
            log.close()


def without_docker(d: Docker) -> str:
    """What would run a Docker Function without Docker, in order: a version a built-in behaves as (when
    a built-in stands in for the package at other versions), installing its PyPI package (when it is
    one), then the InProcess, Process and Development runtimes with the annotations each needs."""
    pin = (
        f"pin a version a crossfn built-in behaves as ({d.builtin_versions}), or "
        if d.builtin_versions
        else ""
    )
    want = installs.wanted(d.installable) if d.installable else None
    if want is not None:
        pin += f"install its PyPI package {want.requirement} with `crossfn function install {d.installable}`, or "
    return (
        f"to run it without Docker, {pin}set the {RUNTIME} annotation (or -a {RUNTIME}=...) to "
        f"InProcess with {INPROCESS_OBJECT}: <module:object> (a Python function), "
        f"Process with {PROCESS_COMMAND}: <command> (a local command), "
        f"or Development with {DEVELOPMENT_TARGET}: <host:port> (an already running function, "
        f"default {_DEFAULT_DEV_TARGET}); see docs/render.md"
    )


def _last_line(log: IO[bytes]) -> str:
    """``: <the last non-empty line>`` of a process log, or nothing."""
    log.seek(0)
    lines = [
        line.strip() for line in log.read()[-4096:].decode(errors="replace").splitlines() if line.strip()
    ]
    return f": {lines[-1]}" if lines else ""


_PULL = {"Always": "never", "Never": "never", "IfNotPresent": "missing"}


def _docker_engine_reachable() -> bool:
    host = os.environ.get("DOCKER_HOST", "")
    if host:
        return True
    return Path("/var/run/docker.sock").exists()
