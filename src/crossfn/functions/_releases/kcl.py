"""function-kcl: the built-in behaves as each release from v0.9.0 to v0.12.2, one :class:`Behaviour` per span.

:data:`BEHAVIOURS` is the one table of what changed between releases: the
built-in (``crossfn.functions.kcl``) reads it to make one object per key, and
``docs/functions.md`` tabulates it. Releases before v0.9.0 ran KCL 0.7 and
0.8, whose evaluator (replaced by the "fast evaluator" in KCL 0.9) the
built-in, on kcl-lib's KCL 0.13, cannot reproduce: they run the package.
"""

from __future__ import annotations

import dataclasses

from crossfn.functions._registry import Release, Span, Upstream

__all__ = ["BEHAVIOURS", "UPSTREAM", "Behaviour"]


@dataclasses.dataclass(frozen=True)
class Behaviour:
    """What one span of function-kcl releases does differently; each field names the release that changed it."""

    duplicates: str = "none"
    """Duplicate composition resource names: ``none`` (v0.9.0, and v0.9.4 to v0.11.2, which disabled the
    check), ``desired`` (v0.9.2: a name already desired, or repeated, fails the Default target), ``output``
    (v0.9.3: a name repeated in the output fails the Default target), ``checker`` (v0.11.3: a repeated name
    fails the Default and Resources targets, naming both resources)."""
    extra_resources: bool = False
    """v0.10.1: ``option("params").extraResources`` and the ``ExtraResources`` kind."""
    missing_elements_unset: bool = False
    """v0.10.9: patching a list element past the end appends it (before: "no such element" failed the step)."""
    default_source: bool = False
    """v0.10.10: an empty ``spec.source`` takes ``FUNCTION_KCL_DEFAULT_SOURCE``."""
    conditions_events_context: bool = False
    """v0.11.1: the ``Conditions``, ``Events`` and ``Context`` kinds."""
    ready_all_targets: bool = False
    """v0.11.6: ``krm.kcl.dev/ready`` is read for every target (before: the Default target only)."""
    extra_namespace: bool = False
    """v0.11.6: ``matchNamespace`` in ``ExtraResources`` requirements."""
    required_resources: bool = False
    """v0.12.2: ``option("params").requiredResources`` and the ``RequiredResources`` kind."""
    inline_arguments: bool = True
    """Before v0.12.2, ``spec.config.arguments`` reached an inline program; v0.12.2's inline path drops them
    (they still reach a file or module source, and any source with ``config.vendor``)."""

    def meta_kinds(self) -> tuple[str, ...]:
        """The kinds of ``meta.krm.kcl.dev/v1alpha1`` this span understands."""
        kinds = ["CompositeConnectionDetails"]
        if self.extra_resources:
            kinds.append("ExtraResources")
        if self.required_resources:
            kinds.append("RequiredResources")
        if self.conditions_events_context:
            kinds += ["Conditions", "Events", "Context"]
        return tuple(kinds)


_V0_10_0 = Behaviour()
_V0_9_2 = dataclasses.replace(_V0_10_0, duplicates="desired")
_V0_9_3 = dataclasses.replace(_V0_10_0, duplicates="output")
_V0_10_8 = dataclasses.replace(_V0_10_0, extra_resources=True)
_V0_10_9 = dataclasses.replace(_V0_10_8, missing_elements_unset=True)
_V0_11_0 = dataclasses.replace(_V0_10_9, default_source=True)
_V0_11_2 = dataclasses.replace(_V0_11_0, conditions_events_context=True)
_V0_11_5 = dataclasses.replace(_V0_11_2, duplicates="checker")
_V0_12_1 = dataclasses.replace(_V0_11_5, ready_all_targets=True, extra_namespace=True)
_V0_12_2 = dataclasses.replace(_V0_12_1, required_resources=True, inline_arguments=False)

BEHAVIOURS: dict[str, Behaviour] = {
    "kcl": _V0_12_2,
    "kcl@v0.12.1": _V0_12_1,
    "kcl@v0.11.5": _V0_11_5,
    "kcl@v0.11.2": _V0_11_2,
    "kcl@v0.11.0": _V0_11_0,
    "kcl@v0.10.9": _V0_10_9,
    "kcl@v0.10.8": _V0_10_8,
    "kcl@v0.10.0": _V0_10_0,
    "kcl@v0.9.3": _V0_9_3,
    "kcl@v0.9.2": _V0_9_2,
}
"""Each span's behaviour by the key its :class:`Span` names; ``kcl`` is the newest (``crossfn function serve kcl``)."""


def _object(key: str) -> str:
    suffix = key.partition("@")[2]
    name = "compose" if not suffix else "compose_" + suffix.removeprefix("v").replace(".", "_")
    return f"crossfn.functions.kcl:{name}"


_RELEASES = (
    ("v0.1.0", "2024-01-24"), ("v0.2.0", "2024-02-29"), ("v0.3.0", "2024-03-07"), ("v0.3.1", "2024-03-15"),
    ("v0.3.2", "2024-03-18"), ("v0.3.3", "2024-03-21"), ("v0.3.4", "2024-03-21"), ("v0.4.0", "2024-04-03"),
    ("v0.5.0", "2024-04-15"), ("v0.5.1", "2024-04-16"), ("v0.5.2", "2024-04-16"), ("v0.5.3", "2024-04-17"),
    ("v0.5.4", "2024-04-19"), ("v0.6.0", "2024-04-20"), ("v0.7.0", "2024-05-01"), ("v0.7.1", "2024-05-06"),
    ("v0.7.2", "2024-05-06"), ("v0.7.3", "2024-05-11"), ("v0.8.0", "2024-05-11"), ("v0.9.0", "2024-05-29"),
    ("v0.9.1", "2024-07-09"), ("v0.9.2", "2024-08-07"), ("v0.9.3", "2024-08-08"), ("v0.9.4", "2024-08-12"),
    ("v0.10.0", "2024-09-18"), ("v0.10.1", "2024-10-14"), ("v0.10.2", "2024-10-16"), ("v0.10.3", "2024-10-17"),
    ("v0.10.4", "2024-10-24"), ("v0.10.6", "2024-10-24"), ("v0.10.7", "2024-10-28"), ("v0.10.8", "2024-10-30"),
    ("v0.10.9", "2024-11-18"), ("v0.10.10", "2024-11-21"), ("v0.11.0", "2024-12-25"), ("v0.11.1", "2025-01-24"),
    ("v0.11.2", "2025-02-19"), ("v0.11.3", "2025-03-28"), ("v0.11.4", "2025-04-09"), ("v0.11.5", "2025-08-14"),
    ("v0.11.6", "2025-11-05"), ("v0.12.0", "2025-12-16"), ("v0.12.1", "2026-03-24"), ("v0.12.2", "2026-07-19"),
)  # fmt: skip
"""function-kcl's release tags and the days they were published (the pre-release v0.11.0-alpha.1 left out)."""

UPSTREAM = Upstream(
    org="crossplane-contrib",
    repo="function-kcl",
    objects={key: _object(key) for key in BEHAVIOURS},
    spans=(
        Span(
            "v0.9.0",
            "v0.9.2",
            "kcl@v0.10.0",
            "v0.9.0 to v0.10.0: no duplicate-name check, no extra resources",
        ),
        Span("v0.9.2", "v0.9.3", "kcl@v0.9.2", "v0.9.2: a name already desired fails the Default target"),
        Span(
            "v0.9.3", "v0.9.4", "kcl@v0.9.3", "v0.9.3: a name repeated in the output fails the Default target"
        ),
        Span(
            "v0.9.4",
            "v0.10.1",
            "kcl@v0.10.0",
            "v0.9.0 to v0.10.0: no duplicate-name check, no extra resources",
        ),
        Span("v0.10.1", "v0.10.9", "kcl@v0.10.8", "v0.10.1 to v0.10.8: extra resources"),
        Span("v0.10.9", "v0.10.10", "kcl@v0.10.9", "v0.10.9: list elements past the end are appended"),
        Span("v0.10.10", "v0.11.1", "kcl@v0.11.0", "v0.10.10 to v0.11.0: FUNCTION_KCL_DEFAULT_SOURCE"),
        Span("v0.11.1", "v0.11.3", "kcl@v0.11.2", "v0.11.1 to v0.11.2: conditions, events and context"),
        Span("v0.11.3", "v0.11.6", "kcl@v0.11.5", "v0.11.3 to v0.11.5: duplicate names fail the step"),
        Span("v0.11.6", "v0.12.2", "kcl@v0.12.1", "v0.11.6 to v0.12.1: krm.kcl.dev/ready for every target"),
        Span("v0.12.2", "v0.12.3", "kcl", "v0.12.2"),
    ),
    other=(
        "function-kcl before v0.9.0 ran KCL 0.7 and 0.8, whose evaluator the built-in (KCL 0.13, from kcl-lib) "
        "cannot reproduce, and releases after v0.12.2 are unknown to it"
    ),
    releases=tuple(Release(tag, date) for tag, date in _RELEASES),
    runs_code=True,  # KCL reads files (its file module), so --no-exec refuses it
)
