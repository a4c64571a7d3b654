"""The requirements loop: call a function until what it requires stops changing (upstream core-2.6).

A function asks for resources and schemas in ``rsp.requirements``; this
runner fetches them, calls again with them filled in, and repeats until two
consecutive responses require the same thing (protobuf equality of the whole
``Requirements`` message, where *absent* equals only absent, never ``{}``).
At most six calls: the first plus five iterations. A fatal result returns at
once. Bootstrap entries the pipeline filled before the first call stay in
every iteration; dynamic entries are rebuilt from scratch each time, and a
dynamic key overwrites a bootstrap key of the same name. The function sees
its own returned context on the next iteration; observed, desired, input,
credentials and meta (so the tag) never change.
"""

from __future__ import annotations

from crossfn import errors
from crossfn.engine import _callctx, _required, _runner, _sources
from crossfn.proto.v1 import run_function_pb2 as fnv1

__all__ = ["MAX_REQUIREMENTS_ITERATIONS", "FetchingRunner"]

MAX_REQUIREMENTS_ITERATIONS = 5
"""Crossplane's ``MaxRequirementsIterations``: iterations after the first call."""


class FetchingRunner:
    """Wraps a runner with the requirements loop, resolving through the given sources."""

    def __init__(
        self,
        wrapped: _runner.FunctionRunner,
        *,
        resources: _sources.ResourceSource | None = None,
        schemas: _sources.SchemaSource | None = None,
        fetcher: _required.RequirementsFetcher | None = None,
    ) -> None:
        """``fetcher`` resolves resource selectors and says whether the loop takes HEAD's
        first-call shortcut; the default is the XR controller's (:class:`~crossfn.engine._required.ControllerFetcher`)."""
        self._wrapped = wrapped
        self._resources = resources or _sources.NoResources()
        self._schemas = schemas or _sources.NoSchemas()
        self._fetcher = fetcher or _required.ControllerFetcher()

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        bootstrap_resources = dict(req.required_resources)
        bootstrap_schemas = dict(req.required_schemas)
        current = req
        prev: fnv1.Requirements | None = None
        for i in range(MAX_REQUIREMENTS_ITERATIONS + 1):
            token = _callctx.ITERATION.set(i)
            try:
                rsp = await self._wrapped.run_function(name, current)
            finally:
                _callctx.ITERATION.reset(token)
            if any(r.severity == fnv1.SEVERITY_FATAL for r in rsp.results):
                return rsp
            reqs = rsp.requirements if rsp.HasField("requirements") else None
            if reqs == prev:
                return rsp
            nxt = fnv1.RunFunctionRequest()
            nxt.CopyFrom(current)
            await self._resolve(nxt, reqs, bootstrap_resources, bootstrap_schemas)
            if self._fetcher.first_call_shortcut and i == 0 and _same_inputs(current, nxt):
                return rsp
            if rsp.HasField("context"):
                nxt.context.CopyFrom(rsp.context)
            else:
                nxt.ClearField("context")
            prev = reqs
            current = nxt
        raise errors.RequirementsError(
            f"requirements didn't stabilize after the maximum number of iterations ({MAX_REQUIREMENTS_ITERATIONS})"
        )

    async def _resolve(
        self,
        nxt: fnv1.RunFunctionRequest,
        reqs: fnv1.Requirements | None,
        bootstrap_resources: dict[str, fnv1.Resources],
        bootstrap_schemas: dict[str, fnv1.Schema],
    ) -> None:
        """Rebuild ``nxt``'s required maps: bootstrap entries, then what ``reqs`` asks for."""
        nxt.ClearField("required_resources")
        nxt.ClearField("extra_resources")
        nxt.ClearField("required_schemas")
        for key, value in bootstrap_resources.items():
            nxt.required_resources[key].CopyFrom(value)
        for key, schema in bootstrap_schemas.items():
            nxt.required_schemas[key].CopyFrom(schema)
        if reqs is None:
            return
        for key, sel in reqs.extra_resources.items():
            nxt.extra_resources[key].CopyFrom(await self._fetch(key, sel))
        for key, sel in reqs.resources.items():
            nxt.required_resources[key].CopyFrom(await self._fetch(key, sel))
        for key, ssel in reqs.schemas.items():
            try:
                schema = await _required.fetch_schema(self._schemas, ssel)
            except errors.CrossfnError as exc:
                raise errors.wrap(exc, f"fetching schema for {key}") from exc
            nxt.required_schemas[key].CopyFrom(schema)

    async def _fetch(self, key: str, sel: fnv1.ResourceSelector) -> fnv1.Resources:
        try:
            return await self._fetcher.fetch(self._resources, sel)
        except errors.CrossfnError as exc:
            raise errors.wrap(exc, f"fetching resources for {key}") from exc


def _same_inputs(a: fnv1.RunFunctionRequest, b: fnv1.RunFunctionRequest) -> bool:
    """Whether two requests hold the same required, extra and schema entries (HEAD's shortcut)."""
    return (
        dict(a.required_resources) == dict(b.required_resources)
        and dict(a.extra_resources) == dict(b.extra_resources)
        and dict(a.required_schemas) == dict(b.required_schemas)
    )
