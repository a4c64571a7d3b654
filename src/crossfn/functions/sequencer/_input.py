"""The input, ``sequencer.fn.crossplane.io/v1beta1`` ``Input``, decoded as each release's function-sdk-go did.

Releases up to v0.3.0 vendor function-sdk-go v0.1.0, which decodes with
go-json-experiment and no options (:data:`crossfn.gocompat.jsonstruct.V2`):
names match exactly, unknown fields are skipped (v0.1.0's input group was
still ``template.fn.crossplane.io``; the group is never checked). From v0.4.0
the SDK rejects unknown fields (:mod:`crossfn.gocompat.jsonstruct`). No CRD defaults
apply: ``replayDeletion`` is false unless given, ``usageVersion`` empty (v2).
The error is upstream's, wrapper by wrapper.
"""

from __future__ import annotations

import dataclasses

from crossfn import errors
from crossfn.functions.sequencer._releases import Behaviour
from crossfn.gocompat import jsonstruct as js
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = ["Input", "Rule", "decode"]

_NAME = js.Scalar("string", "resource.Name")
_RULE_V1 = js.Struct("v1beta1.SequencingRule", {"sequence": js.Slice(_NAME)})
_RULE_V6 = js.Struct(
    "v1beta1.SequencingRule",
    {"condition": js.STRING, "deleteOnly": js.BOOL, "sequence": js.Slice(_NAME)},
)
_META = {"apiVersion": js.STRING, "kind": js.STRING, "metadata": js.ANY}
_INPUT_V1 = js.Struct("v1beta1.Input", {**_META, "rules": js.Slice(_RULE_V1)})
_USAGE = {
    "enableDeletionSequencing": js.BOOL,
    "replayDeletion": js.BOOL,
    "usageVersion": js.Scalar("string", "v1beta1.UsageVersion"),
    "resetCompositeReadiness": js.BOOL,
}
_INPUT_V4 = js.Struct("v1beta1.Input", {**_META, **_USAGE, "rules": js.Slice(_RULE_V1)})
_INPUT_V6 = js.Struct(
    "v1beta1.Input", {**_META, "cacheTTL": js.STRING, **_USAGE, "rules": js.Slice(_RULE_V6)}
)


@dataclasses.dataclass(frozen=True)
class Rule:
    sequence: tuple[str, ...]
    condition: str = ""
    delete_only: bool = False


@dataclasses.dataclass(frozen=True)
class Input:
    rules: tuple[Rule, ...]
    cache_ttl: str = ""
    deletion_sequencing: bool = False
    replay_deletion: bool = False
    usage_version: str = ""
    reset_readiness: bool = False


def _schema(b: Behaviour) -> js.Struct:
    if b.rule_options:
        return _INPUT_V6
    return _INPUT_V4 if b.resets_readiness else _INPUT_V1


def decode(req: fnv1.RunFunctionRequest, b: Behaviour) -> Input:
    """The step's input; FunctionInputError with upstream's full message when it does not decode."""
    raw = resource.struct_to_dict(req.input, integers=False) if req.HasField("input") else {}
    decoder = js.STRICT if b.strict_sdk else js.V2
    try:
        v = js.decode(raw, _schema(b), decoder=decoder)
    except errors.GoError as exc:
        if b.strict_sdk:
            sdk = "cannot get function input *v1beta1.Input from *v1.RunFunctionRequest"
            req_type = "*v1.RunFunctionRequest"
        else:
            sdk = "cannot get Function input %T from %T, into, req"  # sic: function-sdk-go v0.1.0's Wrap
            req_type = "*v1beta1.RunFunctionRequest"
        raise errors.FunctionInputError(
            f"cannot get Function input from {req_type}: {sdk}: "
            f"cannot unmarshal JSON from *structpb.Struct into *v1beta1.Input: {exc}"
        ) from exc
    # A null list element is the element type's zero value, as in Go.
    rules = tuple(
        Rule(
            sequence=tuple(n or "" for n in (r or {}).get("sequence", [])),
            condition=(r or {}).get("condition", ""),
            delete_only=(r or {}).get("deleteOnly", False),
        )
        for r in v.get("rules", [])
    )
    return Input(
        rules=rules,
        cache_ttl=v.get("cacheTTL", ""),
        deletion_sequencing=v.get("enableDeletionSequencing", False),
        replay_deletion=v.get("replayDeletion", False),
        usage_version=v.get("usageVersion", ""),
        reset_readiness=v.get("resetCompositeReadiness", False),
    )
