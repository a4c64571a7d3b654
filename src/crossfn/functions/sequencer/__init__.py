"""sequencer: hold back desired composed resources until the ones before them are ready, as function-sequencer.

Input: ``sequencer.fn.crossplane.io/v1beta1`` ``Input`` with ``rules``, each a
``sequence`` of composition resource names (regular expressions from v0.2.0).
For each later name in a sequence that does not exist yet (no observed
resource of exactly that name), every earlier name must match at least one
desired resource and all of them must be ``READY_TRUE``; otherwise the
resources matching the later name are removed from the desired state, with a
Normal result saying why. Later releases add Usages for deletion order, a CEL
``condition`` per rule and more (``_releases``: one table, one
:class:`~._releases.Behaviour` per release, which :class:`Sequencer` follows).

Like every function-sdk-go function that rewrites the desired resources, the
response keeps each desired resource and its readiness but not its
connection details. Upstream crashes in three corner cases (an invalid
pattern in v0.2.0, a waiting pattern that does not compile in v0.2.2 to
v0.3.0, a Usage for an unobserved resource in v0.4.0 and v0.5.0); crossfn
answers a Fatal result that starts ``panic:`` instead (docs/compatibility.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from crossfn import errors
from crossfn.functions import _gosdk
from crossfn.functions.sequencer import _condition, _input, _usage
from crossfn.functions.sequencer._releases import BEHAVIOURS, Behaviour
from crossfn.gocompat import fmt, regexp, time
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = ["Sequencer", "compose"]


_NIL = "runtime error: invalid memory address or nil pointer dereference"


def _strict(pattern: str) -> regexp.Regexp:
    """Upstream's getStrictRegex: ``^...$`` unless the pattern already starts with ``^`` or ends with ``$``."""
    if not pattern.startswith("^") and not pattern.endswith("$"):
        pattern = f"^{pattern}$"
    return regexp.compile(pattern)


class _Run:
    """One call: the desired and observed resources, and the response being written."""

    def __init__(
        self, b: Behaviour, inp: _input.Input, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse
    ):
        self.b = b
        self.inp = inp
        self.req = req
        self.rsp = rsp
        self.desired: dict[str, fnv1.Resource] = {k: _copy(v) for k, v in req.desired.resources.items()}
        self.observed: Mapping[str, fnv1.Resource] = req.observed.resources
        self.usages: dict[str, dict[str, Any]] = {}

    def normal(self, message: str) -> None:
        r = self.rsp.results.add(severity=fnv1.SEVERITY_NORMAL, message=message)
        if self.b.strict_sdk:
            r.target = fnv1.TARGET_COMPOSITE

    def matcher(self, pattern: str, *, fatal: bool = True) -> Callable[[str], bool]:
        """A name test for ``pattern`` as this release reads it; an invalid pattern stops the run."""
        if self.b.names == "exact":
            return lambda name: name == pattern
        try:
            rx = _strict(pattern) if self.b.names == "anchored" else regexp.compile(pattern)
        except errors.GoError as exc:
            if self.b.names == "regexp":
                raise _gosdk.Fatal(f"panic: regexp: Compile({errors.quote(pattern)}): {exc}") from exc
            if not fatal:
                raise _gosdk.Fatal(f"panic: {_NIL}") from exc
            shown = f"^{pattern}$" if self.b.fatal_names_anchored and rx_unanchored(pattern) else pattern
            raise _gosdk.Fatal(f"cannot compile regex {shown}: {exc}") from exc
        return rx.match_string

    def run(self) -> None:
        for rule in self.inp.rules:
            self.rule(rule)
        out = self.rsp.desired.resources
        out.clear()
        for name, r in self.desired.items():
            out[name].CopyFrom(r)
        for name, u in self.usages.items():
            out[name].resource.CopyFrom(resource.dict_to_struct(u))
            out[name].ready = fnv1.READY_TRUE

    def rule(self, rule: _input.Rule) -> None:
        seq = rule.sequence
        if self.b.rule_options and rule.condition:
            try:
                met = _condition.evaluate(rule.condition, self.req)
            except _condition.ConditionError as exc:
                raise _gosdk.Fatal(
                    f"cannot evaluate condition {errors.quote(rule.condition)} for sequence {_names(seq)}: {exc}"
                ) from exc
            if not met:
                self.normal(
                    f"Skipping sequence {_names(seq)}: condition {errors.quote(rule.condition)} evaluated to false"
                )
                if self.inp.deletion_sequencing:
                    self.observed_usages(seq)
                return
        if self.b.usages == "v0.6.0" and self.inp.deletion_sequencing:
            self.observed_usages(seq)
        for i, name in enumerate(seq):
            if i == 0:
                continue
            if name in self.observed:
                if self.b.usages in ("v0.4.0", "v0.5.0") and self.inp.deletion_sequencing:
                    self.existing_usages(name, seq[i - 1])
                continue
            if self.b.rule_options and rule.delete_only:
                continue
            for before in seq[:i]:
                if not self.wait(name, before):
                    break

    def wait(self, name: str, before: str) -> bool:
        """Check one earlier name for ``name``; False when ``name`` must wait (it is then removed)."""
        if self.b.names == "exact":
            ready = before in self.desired and self.desired[before].ready == fnv1.READY_TRUE
            if ready:
                return True
            self.normal(
                f"Delaying creation of resource {_q(name)} because {_q(before)} is not ready or does not exist yet"
            )
            self.desired.pop(name, None)
            return False
        match_before = self.matcher(before)
        keys = [k for k in self.desired if match_before(k)]
        ready_count = sum(1 for k in keys if self.desired[k].ready == fnv1.READY_TRUE)
        match_name = self.matcher(name) if self.b.usages else None
        if keys and ready_count == len(keys):
            if self.b.usages in ("v0.4.0", "v0.5.0") and self.inp.deletion_sequencing and match_name:
                self.waiting_usages(match_name, keys)
            return True
        what = "resource(s) matching" if self.b.wording == 3 else "resource"
        message = f"Delaying creation of {what} {_q(name)} because {_q(before)} does not exist yet"
        if keys:
            message = (
                f"Delaying creation of {what} {_q(name)} because {_q(before)} is not fully ready "
                f"({ready_count} of {len(keys)})"
            )
        self.normal(message)
        if not self.b.removes_matches:
            self.desired.pop(name, None)
            return False
        if match_name is None:
            match_name = self.matcher(name, fatal=False)
        for k in [k for k in self.desired if match_name(k)]:
            if self.b.keeps_observed and k in self.observed:
                continue
            del self.desired[k]
            if self.inp.reset_readiness:
                self.rsp.desired.composite.ready = fnv1.READY_FALSE
        return False

    def add_usage(self, of: str, by: str, by_obj: Mapping[str, Any]) -> None:
        of_obj = resource.struct_to_dict(self.observed[of].resource)
        self.usages[f"{by}-{of}-usage"] = _usage.usage(
            of_obj, by_obj, replay_deletion=self.inp.replay_deletion, version=self.inp.usage_version
        )

    def existing_usages(self, name: str, previous: str) -> None:
        """v0.4.0 and v0.5.0: ``name`` exists; each existing desired resource matching ``previous`` gets a Usage."""
        match_previous = self.matcher(previous)
        by = resource.struct_to_dict(self.observed[name].resource)
        for k in list(self.desired):
            if match_previous(k) and k in self.observed:
                self.add_usage(k, name, by)

    def waiting_usages(self, match_name: Callable[[str], bool], keys: Sequence[str]) -> None:
        """v0.4.0 and v0.5.0: every observed resource matching the waiting name uses every ready earlier one."""
        for c, o in self.observed.items():
            obj = resource.struct_to_dict(o.resource)
            if not match_name(c) or (
                self.b.usages == "v0.5.0" and _usage.is_usage(obj, self.inp.usage_version)
            ):
                continue
            for k in keys:
                if k not in self.observed:
                    raise _gosdk.Fatal(f"panic: {_NIL}")
                self.add_usage(k, c, obj)

    def observed_usages(self, seq: Sequence[str]) -> None:
        """v0.6.0: each observed resource uses each observed desired resource its predecessor name matches."""
        for i in range(1, len(seq)):
            try:
                match_name, match_previous = self.matcher(seq[i]), self.matcher(seq[i - 1])
            except _gosdk.Fatal as exc:
                raise _gosdk.Fatal(f"cannot generate usages for sequence: {exc}") from exc
            for c, o in self.observed.items():
                obj = resource.struct_to_dict(o.resource)
                if not match_name(c) or _usage.is_usage(obj, self.inp.usage_version):
                    continue
                for k in list(self.desired):
                    if match_previous(k) and k in self.observed:
                        self.add_usage(k, c, obj)


def rx_unanchored(pattern: str) -> bool:
    """Whether upstream anchored ``pattern`` before compiling it."""
    return not pattern.startswith("^") and not pattern.endswith("$")


def _copy(r: fnv1.Resource) -> fnv1.Resource:
    """What function-sdk-go keeps of a desired resource: the object and its readiness."""
    out = fnv1.Resource(ready=r.ready)
    out.resource.CopyFrom(r.resource)
    return out


def _q(s: str) -> str:
    return fmt.sprintf("%q", s)


def _names(seq: Sequence[str]) -> str:
    """``%v`` of a ``[]resource.Name``."""
    return "[" + " ".join(seq) + "]"


class Sequencer:
    """function-sequencer as one release behaved (``_releases.BEHAVIOURS``); ``compose`` is v0.6.0."""

    def __init__(self, release: str = "v0.6.0") -> None:
        self._b = BEHAVIOURS[release]

    def __call__(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        try:
            try:
                inp = _input.decode(req, self._b)
            except errors.FunctionInputError as exc:
                raise _gosdk.Fatal(str(exc)) from exc
            if inp.cache_ttl and self._b.rule_options:
                try:
                    rsp.meta.ttl.FromNanoseconds(round(time.parse_duration(inp.cache_ttl) * 1e9))
                except errors.GoError as exc:
                    raise _gosdk.Fatal(f"cannot set cacheTTL: {exc}") from exc
            _Run(self._b, inp, req, rsp).run()
        except _gosdk.Fatal as exc:
            r = rsp.results.add(severity=fnv1.SEVERITY_FATAL, message=str(exc))
            if self._b.strict_sdk:
                r.target = fnv1.TARGET_COMPOSITE


compose = Sequencer()
"""function-sequencer v0.6.0."""

# The older releases, by the newest release that behaves as each (``_releases.BEHAVIOURS``).
v0_1_2 = Sequencer("v0.1.2")
v0_2_0 = Sequencer("v0.2.0")
v0_2_1 = Sequencer("v0.2.1")
v0_2_2 = Sequencer("v0.2.2")
v0_3_0 = Sequencer("v0.3.0")
v0_4_0 = Sequencer("v0.4.0")
v0_5_0 = Sequencer("v0.5.0")
