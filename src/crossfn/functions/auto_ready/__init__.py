"""auto-ready: mark desired composed resources ready, compatible with function-auto-ready.

A desired composed resource is marked ``READY_TRUE`` when it exists in the
observed state, no earlier step gave it a readiness, and one of three passes
proves it healthy. The passes run in upstream's order, each over every
resource, and each skips resources an earlier pass already decided:

1. CEL customisations (``celHealthCheckCustomizationFrom`` in the context,
   overridden per key by the inline ``celHealthCheckCustomization``). ``true``
   marks ready, ``false`` marks *not* ready (so later passes skip it), an error
   is a Warning result and leaves the resource to the later passes.
2. Kind-specific Kubernetes health checks (``_checks``): success marks ready,
   failure leaves the resource undecided.
3. The ``Ready`` condition fallback: ``status.conditions[type=Ready].status == "True"``.

Upstream keeps pass 1 behind the ``CELHealthcheckCustomizations`` feature gate;
here it is on by default (``AutoReady(cel=False)`` turns it off). The response
TTL is the input's ``ttl``, else the constructor's, else 60 seconds.

This is function-auto-ready v0.7.0. :data:`compose_health_checks` is v0.6.x:
the per-kind checks and the ``Ready`` condition, no input, no CEL rules.
:data:`compose_ready_condition_only` is v0.5.2 and earlier: only the ``Ready``
condition (``crossfn.functions.resolve`` picks one by the pinned version).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.functions.auto_ready import _cel, _checks, _input
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

__all__ = ["AutoReady", "compose", "compose_health_checks", "compose_ready_condition_only"]


def _gvk(obj: Mapping[str, Any]) -> tuple[str, str, str]:
    api_version = obj.get("apiVersion")
    kind = obj.get("kind")
    api_version = api_version if isinstance(api_version, str) else ""
    group, _, version = api_version.rpartition("/")
    return group, version, kind if isinstance(kind, str) else ""


def _ready_condition(obj: Mapping[str, Any]) -> bool:
    status = obj.get("status")
    conds = status.get("conditions") if isinstance(status, Mapping) else None
    if not isinstance(conds, list):
        return False
    for cond in conds:
        if isinstance(cond, Mapping) and cond.get("type") == "Ready":
            return cond.get("status") == "True"
    return False


class AutoReady:
    """The auto-ready function; ``compose`` is an instance with the defaults.

    ``ttl`` plays upstream's ``--ttl`` flag (the input's ``ttl`` wins);
    ``cel`` plays the ``CELHealthcheckCustomizations`` feature gate.
    ``read_input=False`` ignores the step input, as function-auto-ready before
    v0.7.0 did, and ``health_checks=False`` drops the per-kind checks, as it did
    before v0.6.0.
    """

    def __init__(
        self,
        *,
        ttl: datetime.timedelta = response.DEFAULT_TTL,
        cel: bool = True,
        health_checks: bool = True,
        read_input: bool = True,
    ) -> None:
        self._ttl = ttl
        self._cel = cel
        self._health_checks = health_checks
        self._read_input = read_input

    def __call__(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        """Decide readiness for every undecided desired resource that exists."""
        try:
            has_input = self._read_input and req.HasField("input")
            inp = _input.parse(resource.struct_to_dict(req.input) if has_input else None)
        except errors.FunctionInputError as exc:
            response.fatal(rsp, str(exc))
            return
        rsp.meta.ttl.FromTimedelta(inp.ttl if inp.ttl is not None else self._ttl)
        # Only desired resources that exist and that no earlier step decided.
        pending = {
            name: resource.struct_to_dict(req.observed.resources[name].resource)
            for name, dr in rsp.desired.resources.items()
            if name in req.observed.resources and dr.ready == fnv1.READY_UNSPECIFIED
        }
        if self._cel:
            self._cel_pass(req, rsp, inp, pending)
        for name, obj in pending.items():
            if rsp.desired.resources[name].ready != fnv1.READY_UNSPECIFIED:
                continue
            check = _checks.check_for(*_gvk(obj)) if self._health_checks else None
            if (check is not None and check(obj)) or _ready_condition(obj):
                rsp.desired.resources[name].ready = fnv1.READY_TRUE

    @staticmethod
    def _cel_pass(
        req: fnv1.RunFunctionRequest,
        rsp: fnv1.RunFunctionResponse,
        inp: _input.Input,
        pending: Mapping[str, Mapping[str, Any]],
    ) -> None:
        rules: dict[str, str] = {}
        if inp.cel_from is not None and req.HasField("context"):
            rules.update(_cel.lookup(resource.struct_to_dict(req.context), inp.cel_from) or {})
        rules.update(inp.cel_inline or {})
        if not rules:
            return
        for name, obj in sorted(pending.items()):
            key = _cel.gvk_key(*_gvk(obj))
            expr = rules.get(key)
            if expr is None:
                continue
            try:
                ready = _cel.evaluate(expr, obj)
            except _cel.CelError as exc:
                response.warning(
                    rsp,
                    f"cannot evaluate CEL health check {key} for composed resource {errors.quote(name)}: {exc}",
                )
                continue
            rsp.desired.resources[name].ready = fnv1.READY_TRUE if ready else fnv1.READY_FALSE


compose = AutoReady()
"""The auto-ready function with upstream's defaults (60 s TTL, CEL rules on)."""

compose_health_checks = AutoReady(cel=False, read_input=False)
"""function-auto-ready v0.6.x: the per-kind health checks, then the ``Ready`` condition; the input is ignored."""

compose_ready_condition_only = AutoReady(cel=False, health_checks=False, read_input=False)
"""function-auto-ready up to v0.5.2: ready when the observed resource has ``Ready=True``."""
