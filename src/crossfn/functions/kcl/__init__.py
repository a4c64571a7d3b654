"""kcl: composition logic in KCL, compatible with crossplane-contrib/function-kcl (v0.9.0 to v0.12.2).

Input: ``apiVersion: krm.kcl.dev/v1alpha1``, ``kind: KCLInput`` with
``spec.source`` (inline KCL, a local file or module directory, or an OCI or
git module, run from the copy KCL's tooling left in the package cache:
``_cache``; http sources fail with one line), ``spec.target``, ``spec.params``, ``spec.resources``,
``spec.dependencies`` and ``spec.config``. ``_input`` decodes it,
``_params`` builds ``option("params")``, the program runs in a worker process
(``crossfn.functions._sandbox`` with ``_worker``), and ``_output`` places its
items into the desired state.

Programs run on kcl-lib (KCL 0.13) in a pool of worker processes, because a
KCL program cannot be interrupted: the worker is killed at the time limit (or
when the caller is cancelled, e.g. by ``crossfn render --timeout``), its
address space is limited, and a crash (unbounded recursion overflows the
stack) costs that worker only. Every failure is a Fatal result, as upstream
gives it: ``failed to run kcl function pipelines: <KCL's message>``.

Each release span of ``crossfn.functions._releases.kcl`` has an object here
(``compose`` is v0.12.2; ``compose_0_11_2`` behaves as v0.11.1 to v0.11.2, ...),
all sharing one worker pool.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from crossfn import errors
from crossfn import extras as _extras
from crossfn.functions import _files, _sandbox
from crossfn.functions._releases import kcl as _releases
from crossfn.functions.kcl import _cache, _input, _models, _output, _packages, _params
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

_extras.require("kcl", "crossfn.functions.kcl")  # without the extra: one line naming it

__all__ = ["API_VERSION", "KIND", "Kcl", "Limits", "compose", "generate_models"]

generate_models = _models.generate
"""Write KCL models of XRDs and CRDs in the layout project functions import (``crossfn.functions.kcl._models``)."""

API_VERSION = "krm.kcl.dev/v1alpha1"
"""The input's apiVersion."""
KIND = "KCLInput"
"""The input's kind."""

DEFAULT_SOURCE_ENV = "FUNCTION_KCL_DEFAULT_SOURCE"
"""Upstream's environment variable for the source of an input without one (v0.10.10 and later)."""

_WORKER = Path(__file__).with_name("_worker.py")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_RUN_FAILED = "failed to run kcl function pipelines: "
_PROCESS_FAILED = "cannot process xr and state with the pipeline output in *v1.RunFunctionResponse: "
_SYSTEM_CONDITIONS = ("Ready", "Synced", "Healthy")


class Limits:
    """The worker pool and the limits every KCL program runs under; shared by the function's objects.

    ``timeout`` bounds one program's run: the KCL runtime cannot stop, so its
    worker is killed then. ``memory_limit`` is a worker's address space (the
    runtime needs about 100 MiB of it). ``max_output`` bounds the program's
    JSON output. ``workers`` is how many programs may run at once.
    ``readable``, when given, confines the workers to reading those
    directories (and the interpreter's files): the controller's pool.
    """

    def __init__(
        self,
        *,
        timeout: datetime.timedelta = datetime.timedelta(seconds=20),
        memory_limit: int = 1 << 30,
        max_output: int = 16 << 20,
        workers: int = min(4, os.cpu_count() or 1),
        readable: Sequence[str] | None = None,
    ) -> None:
        self.timeout = timeout.total_seconds()
        self.memory_limit = memory_limit
        self.max_output = max_output
        self._workers = workers
        self.pool = _sandbox.Pool(_WORKER, size=workers, memory_limit=memory_limit, readable=readable)

    def confined(self, files: _files.FileAccess) -> Limits:
        """These limits with workers confined to what ``files`` allows; one pool per ``files``, shared."""
        with _CONFINED_LOCK:
            found = _CONFINED.get(files)
            if found is None:
                found = _CONFINED[files] = Limits(
                    timeout=datetime.timedelta(seconds=self.timeout), memory_limit=self.memory_limit,
                    max_output=self.max_output, workers=self._workers, readable=files.readable,
                )  # fmt: skip
            return found

    def close(self) -> None:
        """Stop the worker processes; a later run starts new ones."""
        self.pool.close()


_CONFINED: dict[_files.FileAccess, Limits] = {}
_CONFINED_LOCK = threading.Lock()


class _Failed(errors.CrossfnError):
    """The step fails with this Fatal result text (upstream's, prefix included)."""


class Kcl:
    """function-kcl as one release span behaves (``behaviour``), running programs under ``limits``.

    ``default_source`` is the source of an input without one (upstream's
    ``FUNCTION_KCL_DEFAULT_SOURCE``, read from the environment when not given,
    for the releases that have it); a project's embedded KCL function is a
    :class:`Kcl` whose default source is its directory. ``packages`` supplies
    KCL packages by name where a ``kcl.mod`` path dependency is missing (the
    models of a project). Relative local sources are found from ``base_dir``
    (default: the working directory, as upstream's process). ``files`` (the
    controller's) bounds every file the function and its programs read:
    sources, settings, dependencies and ``file.read`` must lie beneath its root,
    relative paths are taken from there, and programs run in confined workers.
    """

    def __init__(
        self,
        behaviour: _releases.Behaviour = _releases.BEHAVIOURS["kcl"],
        *,
        limits: Limits | None = None,
        default_source: str | None = None,
        packages: Mapping[str, Path] | None = None,
        base_dir: Path | None = None,
        files: _files.FileAccess | None = None,
    ) -> None:
        self.behaviour = behaviour
        self.limits = limits if limits is not None else Limits()
        self._default_source = default_source
        self._packages = dict(packages or {})
        self._base_dir = base_dir
        self._files = files
        if files is not None:
            self.limits = self.limits.confined(files)
            self._base_dir = files.root

    def with_file_access(self, files: _files.FileAccess) -> Kcl:
        """The same function reading only what ``files`` allows, its programs in confined workers (the controller's)."""
        return Kcl(
            self.behaviour, limits=self.limits, default_source=self._default_source, packages=self._packages,
            files=files,
        )  # fmt: skip

    def embedded(self, directory: Path, *, packages: Mapping[str, Path] | None = None) -> Kcl:
        """The same function with ``directory`` (a KCL module) as the default source: an embedded project function."""
        return Kcl(
            self.behaviour, limits=self.limits, default_source=str(directory), packages=packages,
            base_dir=self._base_dir,
        )  # fmt: skip

    def close(self) -> None:
        """Stop the worker processes (shared with every object of the same :class:`Limits`)."""
        self.limits.close()

    async def __call__(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        """Run the step's KCL program and place its output, as function-kcl does."""
        try:
            await self._run(req, rsp)
        except (_Failed, errors.FunctionInputError) as exc:
            response.fatal(rsp, str(exc), target=fnv1.TARGET_COMPOSITE)

    def _default(self) -> str:
        if self._default_source is not None:
            return self._default_source
        return os.environ.get(DEFAULT_SOURCE_ENV, "") if self.behaviour.default_source else ""

    async def _run(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        raw = resource.struct_to_dict(req.input) if req.HasField("input") else None
        inp = _input.decode(raw, default_source=self._default())
        all_params = _params.params(inp, _params.request_params(req, self.behaviour))
        doc = await self._program(inp, all_params, rsp)
        items = _items(doc)
        state = _state(req, all_params)
        try:
            _output.process(state, items, inp, self.behaviour)
        except _output.ProcessError as exc:
            raise _Failed(f"{_PROCESS_FAILED}{exc}") from exc
        _respond(req, rsp, state)

    def _source(self, source: str, notes: list[str]) -> Path | None:
        """The file or module directory a source names (None for inline code); a cached copy for OCI and git."""
        kind = _input.source_kind(source)
        if kind == "inline":
            return None
        if kind == "url":
            raise errors.FunctionInputError(
                f"cannot fetch KCL source {errors.quote(source)}: built-in functions do not reach the network; "
                "download it and set spec.source to the path of the file"
            )
        if kind == "local":
            return (self._base_dir or Path.cwd()) / source
        module = _cache.find_oci(source) if kind == "oci" else _cache.find_git(source)
        if module.note:
            notes.append(module.note)
        return module.path

    def _job(self, inp: _input.Input, all_params: Mapping[str, Any], notes: list[str]) -> dict[str, Any]:
        """The worker's job for the input; what the user should know about the packages taken goes in ``notes``."""
        base = self._base_dir or Path.cwd()
        allowed = self._allowed
        path = self._source(inp.source, notes)
        if path is not None:
            path = allowed(path, "source")
        inline = path is None
        user_arguments = self.behaviour.inline_arguments or not inline or inp.config.vendor
        job: dict[str, Any] = {
            "args": _params.arguments(inp, all_params, user_arguments=user_arguments),
            "options": {
                "overrides": list(inp.config.overrides), "path_selector": list(inp.config.path_selectors),
                "disable_none": inp.config.disable_none, "sort_keys": inp.config.sort_keys,
                "show_hidden": inp.config.show_hidden, "strict_range_check": inp.config.strict_range_check,
                "debug": inp.config.debug,
            },
            "settings": [str(allowed(base / s, "settings file")) for s in inp.config.settings],
            "max_output": self.limits.max_output,
        }  # fmt: skip
        packages: dict[str, str] = {}
        if path is None:
            job.update(code=inp.source, files=[], work_dir="")
        elif path.is_dir():
            packages = _packages.from_kcl_mod(path, notes=notes, supplied=self._packages, allowed=allowed)
            job.update(code=None, files=_packages.entries(path), work_dir=str(path))
        else:
            packages = _packages.from_kcl_mod(
                path.parent, notes=notes, supplied=self._packages, allowed=allowed
            )
            job.update(code=None, files=[str(path)], work_dir=str(path.parent))
        packages.update(
            _packages.from_text(
                inp.dependencies, base=base, notes=notes, supplied=self._packages, allowed=allowed
            )
        )
        job["pkgs"] = sorted(packages.items())
        return job

    def _allowed(self, path: Path, what: str) -> Path:
        """``path`` when this function may read it (always, without :class:`~crossfn.functions._files.FileAccess`)."""
        if self._files is None:
            return path
        try:
            return Path(self._files.within(path))
        except _files.FileAccessError as exc:
            raise errors.FunctionInputError(
                f"cannot read KCL {what} {errors.quote(str(path))}: {exc}"
            ) from exc

    async def _program(
        self, inp: _input.Input, all_params: Mapping[str, Any], rsp: fnv1.RunFunctionResponse
    ) -> list[Any]:
        """Run the program; its output documents (one, unless the program's value is a list).

        A package taken offline at a version the input did not name (the newest cached) is a Normal
        result, before anything the program adds.
        """
        notes: list[str] = []
        try:
            job = self._job(inp, all_params, notes)
        except errors.FunctionInputError as exc:
            raise _Failed(f"{_RUN_FAILED}{exc}") from exc
        for note in notes:
            response.normal(rsp, note, target=fnv1.TARGET_COMPOSITE)
        limits = self.limits
        try:
            reply = await limits.pool.run_async(job, hard_timeout=limits.timeout)
        except _sandbox.SandboxTimeoutError as exc:
            raise _Failed(
                f"{_RUN_FAILED}the KCL program exceeded its time limit of {limits.timeout:g}s and was stopped"
            ) from exc
        except _sandbox.SandboxDiedError as exc:
            raise _Failed(f"{_RUN_FAILED}{_death(exc, limits)}") from exc
        except _sandbox.SandboxError as exc:
            raise _Failed(f"{_RUN_FAILED}{exc}") from exc
        if "error" in reply:
            message = one_line(str(reply["error"]))
            if self._files is not None and "Permission denied (os error 13)" in message:
                message += f" ({self._files.sandbox_note()})"
            raise _Failed(f"{_RUN_FAILED}{message}")
        if "too_large" in reply:
            raise _Failed(
                f"{_RUN_FAILED}the KCL program's output is {reply['too_large']} bytes, more than the limit of "
                f"{limits.max_output} bytes"
            )
        if "memory" in reply:
            raise _Failed(
                f"{_RUN_FAILED}the KCL program exceeded its memory limit of {limits.memory_limit >> 20} MiB"
            )
        return _documents(reply["ok"])


_GUTTER_CODE = re.compile(r"^\d+\s*\|")


def one_line(diagnostic: str) -> str:
    """KCL's diagnostic (kind, ``--> file:line:col``, source excerpt, message) as one line of its parts.

    The excerpt and its gutter go; the kind, the place and the messages stay, joined by ``: ``, each once.
    """
    parts: list[str] = []
    for raw in _ANSI.sub("", diagnostic).splitlines():
        line = raw.strip()
        if not line or _GUTTER_CODE.match(line):
            continue
        if line.startswith(("-->", "--->")):
            line = line.lstrip("->").strip().removeprefix("File ")
        elif line.startswith("|"):
            line = line.lstrip("|").strip().lstrip("^~-").strip()
        if line and line not in parts:
            parts.append(line)
    return ": ".join(parts)


def _death(exc: _sandbox.SandboxDiedError, limits: Limits) -> str:
    if exc.signal == 11:  # SIGSEGV: the KCL runtime overflowed its stack
        return "the KCL program crashed the KCL runtime with a stack overflow (unbounded recursion?)"
    if exc.signal in (6, 9):  # SIGABRT on a failed allocation; SIGKILL from the kernel
        return f"the KCL program exceeded its memory limit of {limits.memory_limit >> 20} MiB"
    return f"the KCL program stopped its worker process ({exc})"


def _documents(text: str) -> list[Any]:
    """The JSON documents of KCL's output: one per line (a list at the top level is a stream of its elements)."""
    decoder = json.JSONDecoder()
    docs: list[Any] = []
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return docs
        doc, i = decoder.raw_decode(text, i)
        docs.append(doc)


def _items(docs: list[Any]) -> list[dict[str, Any]]:
    """krm-kcl's unwrapping: one document's ``items``, or the document itself, or every document of a stream.

    Null items are skipped (function-kcl v0.12.1; earlier releases crashed on them).
    """
    if len(docs) != 1:
        return _objects(docs)
    doc = docs[0]
    items: Any = doc
    if isinstance(doc, dict) and "items" in doc:
        items = doc["items"] if doc["items"] is not None else []
        if not isinstance(items, list):
            kind = "MappingNode" if isinstance(items, dict) else "ScalarNode"
            raise _Failed(f"{_RUN_FAILED}wrong node kind: expected SequenceNode but got {kind}")
    else:
        items = [doc]
    return _objects(items)


def _objects(items: list[Any]) -> list[dict[str, Any]]:
    out = []
    for i, item in enumerate(items):
        if item is None:
            continue
        if not isinstance(item, dict):
            raise _Failed(
                "cannot parse data resources from the pipeline output in *v1.RunFunctionResponse: "
                f"item {i} is not an object"
            )
        out.append(item)
    return out


def _state(req: fnv1.RunFunctionRequest, all_params: Mapping[str, Any]) -> _output.State:
    oxr = dict(all_params["oxr"])
    return _output.State(
        oxr=oxr,
        dxr=json.loads(json.dumps(all_params["dxr"])),
        connection_details=dict(req.desired.composite.connection_details),
        desired={
            name: _output.Desired(
                resource.struct_to_dict(r.resource), _params._READY.get(r.ready, "Unspecified")
            )
            for name, r in req.desired.resources.items()
        },
    )


def _respond(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse, state: _output.State) -> None:
    """Write ``state`` into the response in upstream's order; a bad condition or event stops there, Fatal."""
    if state.extra_resources or state.required_resources:
        rsp.ClearField("requirements")
        for name, sel in state.extra_resources.items():
            _selector(rsp.requirements.extra_resources[name], sel)
        for name, sel in state.required_resources.items():
            _selector(rsp.requirements.resources[name], sel)
    if not _conditions(rsp, state.conditions) or not _events(rsp, state.events):
        return
    if state.context:
        merged = resource.struct_to_dict(req.context)
        _merge(merged, state.context)
        for key, value in merged.items():
            response.set_context_key(rsp, key, value)
    composite = rsp.desired.composite
    composite.Clear()
    resource.fill_struct(composite.resource, state.dxr)
    for key, value in state.connection_details.items():
        composite.connection_details[key] = value
    ready = {"True": fnv1.READY_TRUE, "False": fnv1.READY_FALSE}
    for name, d in state.desired.items():
        r = rsp.desired.resources[name]
        r.Clear()
        resource.fill_struct(r.resource, d.resource)
        r.ready = ready.get(d.ready, fnv1.READY_UNSPECIFIED)


def _merge(dst: dict[str, Any], src: Mapping[str, Any]) -> None:
    """``mergo.Merge(&dst, src, WithOverride)`` on JSON maps: maps merge key by key, anything else replaces."""
    for key, value in src.items():
        have = dst.get(key)
        if isinstance(value, dict) and isinstance(have, dict):
            _merge(have, value)
        elif value is not None:
            dst[key] = value


def _selector(out: fnv1.ResourceSelector, sel: Mapping[str, Any]) -> None:
    out.api_version = sel["api_version"]
    out.kind = sel["kind"]
    if "namespace" in sel:
        out.namespace = sel["namespace"]
    if "match_name" in sel:
        out.match_name = sel["match_name"]
    else:
        out.match_labels.SetInParent()
        out.match_labels.labels.update(sel["match_labels"])


def _target(value: object) -> fnv1.Target.ValueType:
    return fnv1.TARGET_COMPOSITE_AND_CLAIM if value == "CompositeAndClaim" else fnv1.TARGET_COMPOSITE


def _conditions(rsp: fnv1.RunFunctionResponse, conditions: list[dict[str, Any]]) -> bool:
    seen: set[str] = set()
    status = {"True": fnv1.STATUS_CONDITION_TRUE, "False": fnv1.STATUS_CONDITION_FALSE}
    for cs in conditions:
        found = cs.get("condition")
        cond: dict[str, Any] = found if isinstance(found, dict) else {}
        typ = str(cond.get("type") or "")
        if typ in _SYSTEM_CONDITIONS:
            response.fatal(rsp, f"cannot set ClaimCondition type: {typ} is a reserved Crossplane Condition",
                           target=fnv1.TARGET_COMPOSITE)  # fmt: skip
            return False
        if typ in seen and cs.get("force") is not True:
            continue
        c = rsp.conditions.add(
            type=typ, reason=str(cond.get("reason") or ""), target=_target(cs.get("target"))
        )
        c.status = status.get(str(cond.get("status")), fnv1.STATUS_CONDITION_UNKNOWN)
        if isinstance(cond.get("message"), str):
            c.message = cond["message"]
        seen.add(typ)
    return True


def _events(rsp: fnv1.RunFunctionResponse, events: list[dict[str, Any]]) -> bool:
    severity = {"Normal": fnv1.SEVERITY_NORMAL, "Warning": fnv1.SEVERITY_WARNING}
    for ev in events:
        found = ev.get("event")
        event: dict[str, Any] = found if isinstance(found, dict) else {}
        typ = event.get("type")
        typ = "Normal" if typ is None else str(typ)
        if typ not in severity:
            response.fatal(
                rsp, f"invalid type {typ}, must be one of [Normal, Warning]", target=fnv1.TARGET_COMPOSITE
            )
            return False
        r = rsp.results.add(
            severity=severity[typ], message=str(event.get("message") or ""), target=_target(ev.get("target"))
        )
        if isinstance(event.get("reason"), str):
            r.reason = event["reason"]
    return True


_LIMITS = Limits()

# One object per span of crossfn.functions._releases.kcl (a test checks they match its objects).
compose = Kcl(_releases.BEHAVIOURS["kcl"], limits=_LIMITS)
"""function-kcl v0.12.2, with the default limits (20 s, 1 GiB, 16 MiB of output)."""
compose_0_12_1 = Kcl(_releases.BEHAVIOURS["kcl@v0.12.1"], limits=_LIMITS)
compose_0_11_5 = Kcl(_releases.BEHAVIOURS["kcl@v0.11.5"], limits=_LIMITS)
compose_0_11_2 = Kcl(_releases.BEHAVIOURS["kcl@v0.11.2"], limits=_LIMITS)
compose_0_11_0 = Kcl(_releases.BEHAVIOURS["kcl@v0.11.0"], limits=_LIMITS)
compose_0_10_9 = Kcl(_releases.BEHAVIOURS["kcl@v0.10.9"], limits=_LIMITS)
compose_0_10_8 = Kcl(_releases.BEHAVIOURS["kcl@v0.10.8"], limits=_LIMITS)
compose_0_10_0 = Kcl(_releases.BEHAVIOURS["kcl@v0.10.0"], limits=_LIMITS)
compose_0_9_3 = Kcl(_releases.BEHAVIOURS["kcl@v0.9.3"], limits=_LIMITS)
compose_0_9_2 = Kcl(_releases.BEHAVIOURS["kcl@v0.9.2"], limits=_LIMITS)
