"""Render on the crossfn engine, in whichever of ``crossplane render``'s contracts the caller picks.

Render does not run a pipeline of its own: it feeds the engine from files
or objects. Here the loaded :class:`~crossfn.render._inputs.Inputs` get their
Functions started and routed; then the caller's output contract
(:class:`~crossfn.render._contract.Output`) runs the engine:

* :data:`~crossfn.render._engine_mode.CURRENT` (the default) runs one
  reconcile of the XR controller, as today's ``crossplane render xr`` does
  (upstream core-3.8, core-3.9);
* :data:`CLASSIC` (``--classic``) runs the pipeline under
  :meth:`ComposeOptions.classic_render` and turns the result into the
  documents v2.2's ``crossplane render`` prints (upstream core-3.5, core-3.6): the XR, the
  composed resources (sorted by composition resource name), the ``Result``
  documents with ``-r``, the ``Context`` document with ``-c``.

The runner stack, innermost first: each Function's transport (in-process
object, or gRPC to a Process, Development or Docker target), an
:class:`engine.RoutingRunner` that knows which is which and answers the
contract's "unknown Function" text, then the engine's requirements loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from crossfn import engine, errors
from crossfn.render import _contract, _engine_mode, _inputs, _runtimes, _sources, _validate

__all__ = ["CLASSIC", "RESULT_API_VERSION", "ClassicOutput", "functions_transport", "render_documents"]

RESULT_API_VERSION = "render.crossplane.io/v1beta1"
_FIXED_TIME = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
"""Classic render stamps every condition with this time, so output is reproducible."""


def _schema_source(inputs: _inputs.Inputs) -> engine.SchemaSource:
    if not inputs.schema_documents and not inputs.crd_documents:
        return engine.NoSchemas()
    from crossfn.schemas import store  # noqa: PLC0415 -- only -s and --crds need it; keep startup fast

    # Render's FilteringSchemaFetcher searches only the documents given, and
    # compares group and version case-insensitively (upstream core-3.5); --crds adds CRDs and XRDs.
    schemas = store.SchemaStore(builtins=False, case_insensitive_group_version=True)
    for doc in [*inputs.schema_documents, *inputs.crd_documents]:
        schemas.add(doc)
    return schemas


def _documents(
    inputs: _inputs.Inputs, include: _contract.Include, result: engine.CompositionResult
) -> list[Any]:
    """The documents classic render prints, in order (upstream core-3.6)."""
    xr = dict(result.composite)
    if include.full_xr:
        # Classic -x: the input XR's spec and metadata replace the output's.
        for key in ("spec", "metadata"):
            if key in inputs.xr:
                xr[key] = inputs.xr[key]
            else:
                xr.pop(key, None)
    docs: list[Any] = [xr, *(c.resource for c in result.composed)]
    if include.function_results:
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
    if include.context:
        # Crossplane encodes its nil Context object when the last step returned no context: a `null` document.
        context = result.pipeline.context
        docs.append(
            None
            if context is None
            else {"apiVersion": RESULT_API_VERSION, "kind": "Context", "fields": context}
        )
    return docs


def _transport(
    started: _runtimes.Started, grpc: engine.FunctionRunner | None, *, unknown: Callable[[str], Exception]
) -> engine.RoutingRunner:
    """Every started Function's runner: in-process objects, or gRPC to their targets."""
    routes: dict[str, engine.FunctionRunner] = {}
    if started.objects:
        inproc = engine.InProcessRunner(started.objects)
        routes.update(dict.fromkeys(started.objects, inproc))
    if grpc is not None:
        routes.update(dict.fromkeys(started.targets, grpc))
    return engine.RoutingRunner(routes, unknown=unknown)


class ClassicOutput:
    """Crossplane v2.2.4's classic ``crossplane render``
    (upstream core-3.5, core-3.6): what ``--classic`` picks."""

    def unknown_function(self, name: str) -> Exception:
        return errors.FunctionRunError(
            f"unknown Function {errors.quote(name)} - does it exist in your Functions file?"
        )

    async def render(
        self, inputs: _inputs.Inputs, transport: engine.FunctionRunner, include: _contract.Include
    ) -> _contract.Rendered:
        result = await _compose(inputs, transport)
        result.raise_for_fatal()
        return _contract.Rendered(
            documents=_documents(inputs, include, result),
            composed=[dict(c.resource) for c in result.composed],
        )


CLASSIC = ClassicOutput()


async def _compose(inputs: _inputs.Inputs, transport: engine.FunctionRunner) -> engine.CompositionResult:
    """Classic render: the pipeline under ``ComposeOptions.classic_render`` (upstream core-3.5)."""
    options = engine.ComposeOptions.classic_render()
    sources = engine.Sources(
        resources=engine.InMemoryResources([*inputs.extra, *inputs.required]),
        # Bootstrap requirements see only --required-resources (upstream core-3.5 step 4).
        bootstrap_resources=engine.InMemoryResources(inputs.required),
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


@contextlib.asynccontextmanager
async def functions_transport(
    functions: Sequence[Mapping[str, Any]],
    functions_dir: Path,
    *,
    timeout: float,
    report: Callable[[str], None],
    unknown: Callable[[str], Exception],
    crds: Sequence[Mapping[str, Any]] = (),
) -> AsyncIterator[engine.RoutingRunner]:
    """Every Function started in its runtime, as one transport that routes by name; all stopped on exit.

    The one place render starts Functions: ``crossfn render`` and ``crossfn render op`` both run their
    pipelines through it. ``unknown`` is the output contract's error for a name no Function has;
    ``crds`` are the CRDs the runtimes may need (``--crds``).
    """
    runtimes = {}
    for fn in functions:
        name = str((fn.get("metadata") or {}).get("name") or "")
        try:
            runtimes.update(_runtimes.plan([fn]))
        except errors.InputError as exc:
            raise errors.InputError(f"cannot get runtime for Function {errors.quote(name)}: {exc}") from exc
    for rt in runtimes.values():
        report(rt.describe())
    started = _runtimes.Started(runtimes, cwd=functions_dir, crds=crds)
    grpc: engine.GrpcRunner | None = None
    loop = asyncio.get_running_loop()
    try:
        await started.start(loop.time() + timeout)
        if started.targets:
            grpc = engine.GrpcRunner(started.targets, timeout=timeout)
        yield _transport(started, grpc, unknown=unknown)
    finally:
        if grpc is not None:
            await grpc.aclose()
        await started.stop()


async def _run(
    inputs: _inputs.Inputs,
    timeout: float,
    output: _contract.Output,
    include: _contract.Include,
    report: Callable[[str], None],
) -> _contract.Rendered:
    """Start every Function's runtime, render through their transport under ``output``, stop them again."""
    async with functions_transport(
        inputs.functions,
        inputs.functions_dir,
        timeout=timeout,
        report=report,
        unknown=output.unknown_function,
        crds=inputs.crd_documents,
    ) as transport:
        return await output.render(inputs, transport, include)


async def render_documents(
    inputs: _inputs.Inputs,
    *,
    output: _contract.Output | None = None,
    include: _contract.Include = _contract.NOTHING_MORE,
    timeout: float = 60.0,
    report: Callable[[str], None] = lambda _: None,
    validator: _validate.Validator | None = None,
) -> list[Any]:
    """Render ``inputs`` under ``output`` (default: today's ``crossplane render xr``) within ``timeout``
    seconds; any failure is ``cannot render composite resource: ...``.

    ``report`` receives one line per Function saying which runtime it uses
    (the CLI's ``--verbose``). With a ``validator`` a render whose XR, step
    inputs or composed resources break their schemas fails with
    ``cannot validate render: ...`` and one line per problem.
    """
    try:
        async with asyncio.timeout(timeout):
            rendered = await _run(inputs, timeout, output or _engine_mode.CURRENT, include, report)
    except TimeoutError as exc:
        raise errors.CrossfnError("cannot render composite resource: context deadline exceeded") from exc
    except errors.PipelineFatalError as exc:
        raise errors.CrossfnError(f"cannot render composite resource: {exc}") from exc
    except errors.CrossfnError as exc:
        raise errors.wrap(exc, "cannot render composite resource") from exc
    if validator is not None:
        _validate.check(inputs, rendered.composed, validator)
    return rendered.documents
