"""Composition and revision selection (upstream core-2.1 steps 7–8,
upstream controllers-3.6): tables of cases."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from crossfn import engine, errors
from crossfn.controller.composite import _selection
from crossfn.controller.runtime import _xr

from . import composite_fixtures as fx
from .fake_api import FakeApi

MODERN = engine.CompositeSchema.MODERN
LEGACY = engine.CompositeSchema.LEGACY


def with_machinery(**machinery: Any) -> dict[str, Any]:
    xr = fx.xr()
    xr["spec"]["crossplane"] = machinery
    return xr


@dataclasses.dataclass(frozen=True)
class CompositionCase:
    id: str
    reason: str
    xr: dict[str, Any]
    xrd_spec: dict[str, Any]
    compositions: list[dict[str, Any]]
    want: str | None
    want_events: list[str]
    want_error: str = ""


COMP_CASES = [
    CompositionCase("Enforced", "the XRD's enforced Composition always wins",
                    with_machinery(compositionRef={"name": "mine"}), {"enforcedCompositionRef": {"name": "forced"}},
                    [], "forced", ["Enforced composition has been selected"]),
    CompositionCase("EnforcedAlreadySet", "an XR already on the enforced Composition is left alone",
                    with_machinery(compositionRef={"name": "forced"}), {"enforcedCompositionRef": {"name": "forced"}},
                    [], "forced", []),
    CompositionCase("Default", "with neither ref nor selector the XRD's default is used",
                    fx.xr(), {"defaultCompositionRef": {"name": "dflt"}}, [fx.composition("other")],
                    "dflt", ["Default composition has been selected"]),
    CompositionCase("DefaultNotWithSelector", "a selector takes precedence over the default",
                    with_machinery(compositionSelector={"matchLabels": {"tier": "gold"}}),
                    {"defaultCompositionRef": {"name": "dflt"}},
                    [fx.composition("gold", labels={"tier": "gold"}), fx.composition("silver", labels={"tier": "silver"})],
                    "gold", []),
    CompositionCase("ExistingRef", "an XR with a ref keeps it", with_machinery(compositionRef={"name": "kept"}), {},
                    [fx.composition("other")], "kept", []),
    CompositionCase("LabelSelectorTypeMatch", "only Compositions of the XR's type are candidates", fx.xr(), {},
                    [fx.composition("wrong-kind", kind="XOther"), fx.composition("right")], "right", []),
    CompositionCase("NoneCompatible", "no Composition of the XR's type is an error", fx.xr(), {},
                    [fx.composition("wrong-kind", kind="XOther")], None, [], "no compatible Compositions found"),
]  # fmt: skip


@pytest.mark.parametrize("case", COMP_CASES, ids=lambda c: c.id)
async def test_select_composition(case: CompositionCase) -> None:
    api = FakeApi()
    for c in case.compositions:
        api.put(c)
    reader = _selection.Reader(api, None)
    xrd = fx.xrd(**case.xrd_spec)
    xr = _xr.XR(case.xr, MODERN)
    if case.want_error:
        with pytest.raises(errors.CrossfnError, match=case.want_error):
            await _selection.select_composition(xr, xrd, reader, random.Random(0))
        return
    events = await _selection.select_composition(xr, xrd, reader, random.Random(0))
    assert xr.composition_ref == case.want, case.reason
    assert [e.message for e in events] == case.want_events, case.reason
    assert all(e.reason == "CompositionSelection" for e in events), (
        "the selectors' events use CompositionSelection"
    )


@dataclasses.dataclass(frozen=True)
class RevisionCase:
    id: str
    reason: str
    machinery: dict[str, Any]
    revisions: list[tuple[int, dict[str, str], bool]]
    """(number, extra labels, controlled by the Composition)"""
    want: str | None
    want_event: bool = False
    want_error: str = ""


REV_CASES = [
    RevisionCase("AutomaticLatest", "the highest revision number wins", {},
                 [(1, {}, True), (3, {}, True), (2, {}, True)], "c-3", True),
    RevisionCase("AutomaticMovesOn", "an Automatic XR on an old revision moves to the latest",
                 {"compositionRevisionRef": {"name": "c-1"}}, [(1, {}, True), (2, {}, True)], "c-2", True),
    RevisionCase("AlreadyLatest", "no event when the XR is already on the latest",
                 {"compositionRevisionRef": {"name": "c-2"}}, [(1, {}, True), (2, {}, True)], "c-2"),
    RevisionCase("ManualKeeps", "Manual with a ref keeps exactly that revision",
                 {"compositionUpdatePolicy": "Manual", "compositionRevisionRef": {"name": "c-1"}},
                 [(1, {}, True), (2, {}, True)], "c-1"),
    RevisionCase("ManualWithoutRef", "Manual without a ref still picks the latest once",
                 {"compositionUpdatePolicy": "Manual"}, [(1, {}, True), (2, {}, True)], "c-2", True),
    RevisionCase("Selector", "under Automatic the revision selector filters",
                 {"compositionRevisionSelector": {"matchLabels": {"channel": "stable"}}},
                 [(1, {"channel": "stable"}, True), (2, {"channel": "dev"}, True)], "c-1", True),
    RevisionCase("NotControlled", "revisions the Composition does not control are ignored", {},
                 [(1, {}, True), (5, {}, False)], "c-1", True),
    RevisionCase("None", "no revision is an error", {}, [], None, False, "no compatible CompositionRevisions found"),
    RevisionCase("ManualGone", "a Manual ref to a missing revision is an error",
                 {"compositionUpdatePolicy": "Manual", "compositionRevisionRef": {"name": "c-9"}}, [(1, {}, True)], None,
                 False, 'cannot get CompositionRevision: compositionrevisions.apiextensions.crossplane.io "c-9" not found'),
]  # fmt: skip


@pytest.mark.parametrize("case", REV_CASES, ids=lambda c: c.id)
async def test_select_revision(case: RevisionCase) -> None:
    api = FakeApi()
    comp = api.put(fx.composition())
    for number, labels, controlled in case.revisions:
        rev = fx.revision(comp, number, labels=labels)
        if not controlled:
            rev["metadata"]["ownerReferences"][0]["uid"] = "someone-else"
        api.put(rev)
    xr = _xr.XR(with_machinery(compositionRef={"name": "c"}, **case.machinery), MODERN)
    reader = _selection.Reader(api, None)
    if case.want_error:
        with pytest.raises(errors.CrossfnError) as raised:
            await _selection.select_revision(xr, reader)
        assert str(raised.value) == case.want_error, case.reason
        return
    rev, events = await _selection.select_revision(xr, reader)
    assert rev["metadata"]["name"] == case.want, case.reason
    assert xr.composition_revision_ref == case.want, case.reason
    want_events = [f"Selected composition revision: {case.want}"] if case.want_event else []
    assert [e.message for e in events] == want_events, case.reason
