"""Classic render on the crossfn engine (crossplane-core §3.5, §3.6).

Render does not run a pipeline of its own: it feeds the engine from files.
Here the loaded :class:`~crossfn.render._inputs.Inputs` become the engine's
sources, observed resources and runner stack; the engine runs the pipeline
under :meth:`ComposeOptions.classic_render`; the result becomes the documents
``crossplane render`` prints, in its order: the XR, the composed resources
(sorted by composition resource name), the ``Result`` documents with ``-r``,
the ``Context`` document with ``-c``.

The runner stack, innermost first: each Function's transport (in-process
object, or gRPC to a Process, Development or Docker target), a dispatcher
that knows which is which and answers Crossplane's "unknown Function" text,
then the engine's requirements loop over the ``--extra-resources`` and
``--required-resources`` documents.
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Callable, Mapping
from typing import Any

from crossfn import engine, errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.render import _inputs, _runtimes, _sources, _validate

__all__ = ["RESULT_API_VERSION", "render_documents", "render_documents_async"]

RESULT_API_VERSION = "render.crossplane.io/v1beta1"
_FIXED_TIME = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
"""Classic render stamps every condition with this time, so output is reproducible."""


class _Dispatch:
    """Routes each Function to its transport; an unknown name gets Crossplane's error."""

    def __init__(self, routes: Mapping[str, engine.FunctionRunner]) -> None:
        self._routes = routes

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        runner = self._routes.get(name)
        if runner is None:
            raise errors.FunctionRunError(
                f"unknown Function {errors.quote(name)} - does it exist in your Functions file?"
            )
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
) -> list[dict[str, Any]]:
    """The documents classic render prints, in order (§3.6)."""
    xr = dict(result.composite)
    if req.include_full_xr:
        # Classic -x: the input XR's spec and metadata replace the output's.
        for key in ("spec", "metadata"):
            if key in inputs.xr:
                xr[key] = inputs.xr[key]
            else:
                xr.pop(key, None)
    docs = [xr, *(c.resource for c in result.composed)]
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
    if req.include_context and result.pipeline.context is not None:
        docs.append({"apiVersion": RESULT_API_VERSION, "kind": "Context", "fields": result.pipeline.context})
    return docs


async def _compose(
    inputs: _inputs.Inputs, started: _runtimes.Started, grpc: engine.FunctionRunner | None
) -> engine.CompositionResult:
    routes: dict[str, engine.FunctionRunner] = {}
    if started.objects:
        inproc = engine.InProcessRunner(started.objects)
        routes.update(dict.fromkeys(started.objects, inproc))
    if grpc is not None:
        routes.update(dict.fromkeys(started.targets, grpc))
    options = engine.ComposeOptions.classic_render()
    sources = engine.Sources(
        resources=engine.InMemoryResources([*inputs.extra, *inputs.required]),
        # Bootstrap requirements see only --required-resources (§3.5 step 4).
        bootstrap_resources=engine.InMemoryResources(inputs.required),
        schemas=_schema_source(inputs),
        credentials=_sources.DocumentSecrets(inputs.credentials),
    )
    runner = engine.build_runner(_Dispatch(routes), sources=sources, options=options)
    observed = [
        engine.ObservedResource(resource=obj, connection_details=details)
        for obj, details in _sources.observed_with_details(inputs.observed)
    ]
    return await engine.compose(
        inputs.xr, _inputs.pipeline_steps(inputs.composition), runner, observed=observed, context=inputs.context,
        sources=sources, options=options, clock=lambda: _FIXED_TIME,
    )  # fmt: skip


async def _run(
    inputs: _inputs.Inputs, req: _inputs.Request, report: Callable[[str], None]
) -> engine.CompositionResult:
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
        result = await _compose(inputs, started, grpc)
    finally:
        if grpc is not None:
            await grpc.aclose()
        await started.stop()
    result.raise_for_fatal()
    return result


async def render_documents_async(
    inputs: _inputs.Inputs,
    req: _inputs.Request,
    *,
    report: Callable[[str], None] = lambda _: None,
    validator: _validate.Validator | None = None,
) -> list[dict[str, Any]]:
    """Render ``inputs`` under ``req.timeout``; any failure is ``cannot render composite resource: ...``.

    ``report`` receives one line per Function saying which runtime it uses
    (the CLI's ``--verbose``). With a ``validator`` a render whose XR, step
    inputs or composed resources break their schemas fails with
    ``cannot validate render: ...`` and one line per problem.
    """
    try:
        async with asyncio.timeout(req.timeout):
            result = await _run(inputs, req, report)
    except TimeoutError as exc:
        raise errors.CrossfnError("cannot render composite resource: context deadline exceeded") from exc
    except errors.PipelineFatalError as exc:
        raise errors.CrossfnError(f"cannot render composite resource: {exc}") from exc
    except errors.CrossfnError as exc:
        raise type(exc)(f"cannot render composite resource: {exc}") from exc
    if validator is not None:
        _validate.check(inputs, [c.resource for c in result.composed], validator)
    return _documents(inputs, req, result)


def render_documents(
    inputs: _inputs.Inputs,
    req: _inputs.Request,
    *,
    report: Callable[[str], None] = lambda _: None,
    validator: _validate.Validator | None = None,
) -> list[dict[str, Any]]:
    """:func:`render_documents_async` for synchronous callers (the CLI): runs its own event loop."""
    return asyncio.run(render_documents_async(inputs, req, report=report, validator=validator))
