"""The flags that make one engine behave as Crossplane's controller or as classic render.

Crossplane has two contracts for the same pipeline: the XR controller
(upstream core-2.2–core-2.17) and the classic ``crossplane render`` of v2.2.4 (upstream core-3.5). They run
the same steps and differ in a handful of decisions. Each decision is one
field here, so the pipeline and composition code read ``if options.x`` at the
exact point where the contracts part, and nothing else forks. A decision that
is a strategy rather than a yes/no (how required resources are fetched, and
with it the requirements loop's first-call shortcut) is an object the caller
picks (``fetcher``), as Crossplane injects its fetcher; nothing is derived
from another field.

Use :meth:`ComposeOptions.controller` or :meth:`ComposeOptions.classic_render`;
the fields exist so a test can flip one decision at a time.
"""

from __future__ import annotations

import dataclasses

from crossfn.engine import _model, _required, _steps

__all__ = ["ComposeOptions"]


@dataclasses.dataclass(frozen=True)
class ComposeOptions:
    """How to run the pipeline and compose; the defaults are the controller's (upstream core-2)."""

    composite_schema: _model.CompositeSchema = _model.CompositeSchema.MODERN
    """Legacy (v1: ``spec.resourceRefs``, claims, XR connection details) or modern (v2) XR."""

    tag_requests: bool = True
    """Set ``meta.tag`` (upstream core-2.4). Classic render
    sends capabilities only, so caching sees no tag."""

    classic_texts: bool = False
    """Use classic render's error texts for composed resources: ``cannot unmarshal desired composed
    resource %q`` and ``cannot render composed resource %q metadata: cannot set
    composite resource %q as controller ref of composed resource``, instead of the controller's."""

    step_texts: _steps.StepTexts = _steps.COMPOSITION
    """How a failed pipeline step reads, and what it raises (``engine._steps``): the controller's
    ``cannot run Composition pipeline step %q``, classic render's ``cannot run pipeline step %q``
    (:data:`~crossfn.engine._steps.CLASSIC`), or the Operation reconciler's."""

    generate_names: bool = True
    """Give unnamed composed resources a deterministic name (upstream core-2.10 step 6).
    Classic render keeps ``generateName`` in its output instead."""

    validate_names: bool = True
    """Reject composed names that are not RFC 1123 subdomains (upstream core-2.10 step 7)."""

    check_namespace_scope: bool = True
    """Refuse cluster-scoped kinds under a namespaced XR (upstream core-2.10 step 3)."""

    require_composite_label: bool = True
    """Demand the XR label ``crossplane.io/composite`` (controller). Classic render
    falls back to the XR name as the prefix instead."""

    strict_observed: bool = True
    """Skip observed resources controlled by another owner and refuse ones without the
    ``crossplane.io/composition-resource-name`` annotation (upstream core-2.2 step 1). Classic render takes
    the observed file as given."""

    garbage_collect: bool = True
    """Work out which observed resources to delete (upstream core-2.11). Classic render has no GC."""

    delete_orphans: bool = False
    """Delete undesired resources that have no controller reference (≤ v2.3). HEAD
    keeps them (GHSA-77cv-mrm6-fr3c); so do we by default."""

    sort_composed: bool = False
    """Sort composed resources by composition resource name (classic render's output order)."""

    fetcher: _required.RequirementsFetcher = dataclasses.field(default_factory=_required.ControllerFetcher)
    """How required resources are fetched, bootstrap ones and the requirements loop's alike, and
    whether that loop takes HEAD's first-call shortcut: an object, as Crossplane injects its
    fetcher. Classic render passes :class:`~crossfn.engine._required.FilteringFetcher`."""

    claim_labels_from_claim_ref: bool = False
    """Take claim labels from a legacy XR's ``spec.claimRef`` when the XR has none (classic render)."""

    classic_ready: bool = False
    """Compute the XR as classic render prints it: the whole desired composite, its
    identity, the Ready condition and function conditions (upstream core-3.5 step 6)."""

    @classmethod
    def controller(
        cls, composite_schema: _model.CompositeSchema = _model.CompositeSchema.MODERN
    ) -> ComposeOptions:
        """Crossplane's XR controller (HEAD), the default contract."""
        return cls(composite_schema=composite_schema)

    @classmethod
    def operation(cls) -> ComposeOptions:
        """Crossplane's Operation reconciler (upstream ops-1): the controller's contract but for how a
        failed step reads (``failed to invoke pipeline step %q``) and what it raises."""
        return cls(step_texts=_steps.OPERATION)

    @classmethod
    def classic_render(
        cls, composite_schema: _model.CompositeSchema = _model.CompositeSchema.MODERN
    ) -> ComposeOptions:
        """``crossplane render`` as of v2.2.4 (upstream core-3.5): what most users' golden files contain."""
        return cls(
            composite_schema=composite_schema,
            tag_requests=False,
            classic_texts=True,
            step_texts=_steps.CLASSIC,
            generate_names=False,
            validate_names=False,
            check_namespace_scope=False,
            require_composite_label=False,
            strict_observed=False,
            garbage_collect=False,
            sort_composed=True,
            fetcher=_required.FilteringFetcher(),
            claim_labels_from_claim_ref=True,
            classic_ready=True,
        )
