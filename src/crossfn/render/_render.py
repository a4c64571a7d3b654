"""Render on the crossfn engine, in either of ``crossplane render``'s contracts.

Render does not run a pipeline of its own: it feeds the engine from files.
Here the loaded :class:`~crossfn.render._inputs.Inputs` get their Functions
started and routed; then

* by default, :mod:`~crossfn.render._engine_mode` runs one reconcile of the
  XR controller, as today's ``crossplane render xr`` does (§3.8, §3.9);
* with ``Request.classic`` (``--classic``), the engine runs the pipeline
  under :meth:`ComposeOptions.classic_render` and the result becomes the
  documents v2.2's ``crossplane render`` prints (§3.5, §3.6): the XR, the
  composed resources (sorted by composition resource name), the ``Result``
  documents with ``-r``, the ``Context`` document with ``-c``.

The runner stack, innermost first: each Function's transport (in-process
object, or gRPC to a Process, Development or Docker target), a dispatcher
that knows which is which and answers Crossplane's "unknown Function" text,
then the engine's requirements loop.
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from crossfn import engine, errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.render import _engine_mode, _inputs, _runtimes, _sources, _validate

__all__ = ["RESULT_API_VERSION", "render_documents", "render_documents_async"]

_T = TypeVar("_T")

RESULT_API_VERSION = "render.crossplane.io/v1beta1"
_FIXED_TIME = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
"""Classic render stamps every condition with this time, so output is reproducible."""


class _Dispatch:
    """Routes each Function to its transport; an unknown name gets Crossplane's error."""

    def __init__(self, routes: Mapping[str, engine.FunctionRunner], *, classic: bool) -> None:
        self._routes = routes
        self._classic = classic

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        runner = self._routes.get(name)
        if runner is None:
            if self._classic:
                raise errors.FunctionRunError(
                    f"unknown Function {errors.quote(name)} - does it exist in your Functions file?"
                )
            # The render engine's runner (§3.8), which knows the Functions the CLI handed it.
            raise errors.FunctionRunError(f"unknown function {errors.quote(name)} - is it listed in the render input?")
        return await runner.run_function(name, req)


def _schema_source(inputs: _inputs.Inputs) -> engine.SchemaSource:
    if not inputs.schema_documents and not inputs.crd_documents:
        return engine.NoSchemas()
    from crossfn.schemas import store  # noqa: PLC0415 -- only -s and --crds need it; keep startup fast

    # Render's FilteringSchemaFetcher searches only the documents given, and
    # compares group and version case-insensitively (§3.5); --crds adds CRDs and XRDs.
    schemas = store.SchemaStore(builtins=False, case_insensitive_group_version=True)
    for doc in [*inputs.schema_documents, *inputs.crd_documents]:
        schemas.add(doc)
    return schemas


def _documents(
    inputs: _inputs.Inputs, req: _inputs.Request, result: engine.CompositionResult
) -> list[Any]:
    """The documents classic render prints, in order (§3.6)."""
    xr = dict(result.composite)
    if req.include_full_xr:
        # Classic -x: the input XR's spec and metadata replace the output's.
        for key in ("spec", "metadata"):
            if key in inputs.xr:
                xr[key] = inputs.xr[key]
            else:
                xr.pop(key, None)
    docs: list[Any] = [xr, *(c.resource for c in result.composed)]
    if req.include_function_results:
        docs.extend(
            {
                "apiVersion": RESULT_API_VERSION,
                "kind": "Result",
                "message": r.message,
                "severity": r.severity_name,
                "step": r.step,
            }
            for r in result.pipeline.results
        )
    if req.include_context:
        # Crossplane encodes its nil Context object when the last step returned no context: a `null` document.
        context = result.pipeline.context
        docs.append(
            None if context is None else {"apiVersion": RESULT_API_VERSION, "kind": "Context", "fields": context}
        )
    return docs


def _transport(started: _runtimes.Started, grpc: engine.FunctionRunner | None, *, classic: bool) -> _Dispatch:
    """Every started Function's runner: in-process objects, or gRPC to their targets."""
    routes: dict[str, engine.FunctionRunner] = {}
    if started.objects:
        inproc = engine.InProcessRunner(started.objects)
        routes.update(dict.fromkeys(started.objects, inproc))
    if grpc is not None:
        routes.update(dict.fromkeys(started.targets, grpc))
    return _Dispatch(routes, classic=classic)


async def _compose(inputs: _inputs.Inputs, transport: _Dispatch) -> engine.CompositionResult:
    """Classic render: the pipeline under ``ComposeOptions.classic_render`` (§3.5)."""
    options = engine.ComposeOptions.classic_render()
    sources = engine.Sources(
        resources=_sources.DocumentResources([*inputs.extra, *inputs.required]),
        # Bootstrap requirements see only --required-resources (§3.5 step 4).
        bootstrap_resources=_sources.DocumentResources(inputs.required),
        schemas=_schema_source(inputs),
        credentials=_sources.DocumentSecrets(inputs.credentials),
    )
    runner = engine.build_runner(transport, sources=sources, options=options)
    observed = [
        engine.ObservedResource(resource=obj, connection_details=details)
        for obj, details in _sources.observed_with_details(inputs.observed)
    ]
    return await engine.compose(
        inputs.xr, _inputs.pipeline_steps(inputs.composition), runner, observed=observed, context=inputs.context,
        sources=sources, options=options, clock=lambda: _FIXED_TIME,
    )  # fmt: skip


async def _run(
    inputs: _inputs.Inputs,
    req: _inputs.Request,
    report: Callable[[str], None],
    body: Callable[[_Dispatch], Awaitable[_T]],
) -> _T:
    """Start every Function's runtime, run ``body`` on their transport, stop them again."""
    runtimes = {}
    for fn in inputs.functions:
        name = str((fn.get("metadata") or {}).get("name") or "")
        try:
            runtimes.update(_runtimes.plan([fn]))
        except errors.InputError as exc:
            raise errors.InputError(f"cannot get runtime for Function {errors.quote(name)}: {exc}") from exc
    for rt in runtimes.values():
        report(rt.describe())
    started = _runtimes.Started(runtimes, cwd=inputs.functions_dir)
    grpc: engine.GrpcRunner | None = None
    loop = asyncio.get_running_loop()
    try:
        await started.start(loop.time() + req.timeout)
        if started.targets:
            grpc = engine.GrpcRunner(started.targets, timeout=req.timeout)
        return await body(_transport(started, grpc, classic=req.classic))
    finally:
        if grpc is not None:
            await grpc.aclose()
        await started.stop()


async def _classic(inputs: _inputs.Inputs, req: _inputs.Request, report: Callable[[str], None]) -> engine.CompositionResult:
    result = await _run(inputs, req, report, lambda transport: _compose(inputs, transport))
    result.raise_for_fatal()
    return result


async def _reconcile(inputs: _inputs.Inputs, req: _inputs.Request, report: Callable[[str], None]) -> _engine_mode.Recorded:
    recorded = await _run(inputs, req, report, lambda transport: _engine_mode.reconcile(inputs, transport))
    if recorded.error is not None:
        raise recorded.error
    return recorded


async def render_documents_async(
    inputs: _inputs.Inputs,
    req: _inputs.Request,
    *,
    report: Callable[[str], None] = lambda _: None,
    validator: _validate.Validator | None = None,
) -> list[Any]:
    """Render ``inputs`` under ``req.timeout``; any failure is ``cannot render composite resource: ...``.

    ``report`` receives one line per Function saying which runtime it uses
    (the CLI's ``--verbose``). With a ``validator`` a render whose XR, step
    inputs or composed resources break their schemas fails with
    ``cannot validate render: ...`` and one line per problem.
    """
    try:
        async with asyncio.timeout(req.timeout):
            if req.classic:
                result = await _classic(inputs, req, report)
            else:
                recorded = await _reconcile(inputs, req, report)
    except TimeoutError as exc:
        raise errors.CrossfnError("cannot render composite resource: context deadline exceeded") from exc
    except errors.PipelineFatalError as exc:
        raise errors.CrossfnError(f"cannot render composite resource: {exc}") from exc
    except errors.CrossfnError as exc:
        raise errors.wrap(exc, "cannot render composite resource") from exc
    if not req.classic:
        if validator is not None:
            _validate.check(inputs, recorded.composed, validator)
        return _engine_mode.documents(inputs, req, recorded)
    if validator is not None:
        _validate.check(inputs, [c.resource for c in result.composed], validator)
    return _documents(inputs, req, result)


def render_documents(
    inputs: _inputs.Inputs,
    req: _inputs.Request,
    *,
    report: Callable[[str], None] = lambda _: None,
    validator: _validate.Validator | None = None,
) -> list[Any]:
    """:func:`render_documents_async` for synchronous callers (the CLI): runs its own event loop."""
    return asyncio.run(render_documents_async(inputs, req, report=report, validator=validator))
