"""Which function-patch-and-transform release the built-in behaves as, and what that release did.

The built-in reproduces every release from the upstream tags' sources (and
v0.1.4, the development build upstream's README pinned, from its commit
``659dad3``). A :class:`Release` is the version plus one property per
behaviour that changed between releases, each named for what it decides and
documented with the release that changed it; the modules ask the property,
never the version. ``docs/functions.md`` tabulates the differences.

Releases whose Go code is identical behave identically: v0.2.0 = v0.2.1,
v0.8.0 = v0.9.3 (dependency bumps only), v0.10.0 = v0.10.8.
"""

from __future__ import annotations

import functools

from crossfn.functions import _registry

__all__ = ["CURRENT", "Release"]


class Release(_registry.Behaviour):
    """One upstream release's behaviour (``version`` is the release it behaves as).

    Each answer is computed once per release object: a run asks them some hundred times.
    """

    # --- the input ---------------------------------------------------------------------------

    @functools.cached_property
    def rejects_unknown_fields(self) -> bool:
        """v0.4.0 (function-sdk-go v0.2.0): an unknown input field fails the input; before, it was ignored."""
        return self._since(0, 4, 0)

    @functools.cached_property
    def has_environment(self) -> bool:
        """v0.2.0: the Composition environment (``environment.patches``, the *Environment patch types, the
        context key); v0.1.4 knows none of it."""
        return self._since(0, 2, 0)

    @functools.cached_property
    def passes_context_on(self) -> bool:
        """v0.2.0 (function-sdk-go v0.1.0): the response carries the request's context; v0.1.4's SDK
        started the response without it, so the pipeline's context ended there."""
        return self._since(0, 2, 0)

    @functools.cached_property
    def has_to_field_path_policy(self) -> bool:
        """v0.4.0: ``policy.toFieldPath`` (Replace, MergeObject, AppendArray); before, every write replaced."""
        return self._since(0, 4, 0)

    @functools.cached_property
    def has_merge_policies(self) -> bool:
        """v0.5.0: the MergeObjects, MergeObjectsAppendArrays, ForceMergeObjects and
        ForceMergeObjectsAppendArrays policies."""
        return self._since(0, 5, 0)

    @functools.cached_property
    def has_join_and_replace(self) -> bool:
        """v0.7.0: the ``Join`` and ``Replace`` string transforms."""
        return self._since(0, 7, 0)

    @functools.cached_property
    def has_connection_secret(self) -> bool:
        """v0.10.0: ``writeConnectionSecretToRef`` and the Secret composed for a v2 XR's connection details."""
        return self._since(0, 10, 0)

    # --- validation --------------------------------------------------------------------------

    @functools.cached_property
    def patches_in_order(self) -> bool:
        """v0.3.0: patches run in the order written, a failing one is Fatal, and validation reads the
        defaulted type, an empty path as missing, PatchSet patches in PatchSets and combines up front.

        Up to v0.2.x a template's patches ran grouped by direction (to the XR, to the environment, from
        the XR, from the environment), each group's failure was a Warning, a failing group from the XR
        or environment left the resource out, and validation read the type as written.
        """
        return self._since(0, 3, 0)

    @functools.cached_property
    def validates_policies(self) -> bool:
        """v0.4.0: an unknown ``policy.fromFieldPath`` or ``policy.toFieldPath`` is invalid."""
        return self._since(0, 4, 0)

    @functools.cached_property
    def environment_patch_types(self) -> frozenset[str]:
        """The types an ``environment.patches`` entry may have: the *Environment types up to v0.2.x,
        the Composite ones from v0.3.0, and From/ToEnvironmentFieldPath too from v0.6.0."""
        if not self.patches_in_order:
            return frozenset(
                {
                    "FromEnvironmentFieldPath",
                    "ToEnvironmentFieldPath",
                    "CombineFromEnvironment",
                    "CombineToEnvironment",
                }
            )
        composite = {
            "FromCompositeFieldPath",
            "ToCompositeFieldPath",
            "CombineFromComposite",
            "CombineToComposite",
        }
        if self._since(0, 6, 0):
            composite |= {"FromEnvironmentFieldPath", "ToEnvironmentFieldPath"}
        return frozenset(composite)

    @functools.cached_property
    def environment_patches_suffice(self) -> bool:
        """v0.6.0: an input with environment patches and no resources is valid."""
        return self._since(0, 6, 0)

    @functools.cached_property
    def defaults_transform_types(self) -> bool:
        """v0.1.4 only: a math transform without ``type`` multiplies, a string one validates as Format."""
        return not self._since(0, 2, 0)

    @functools.cached_property
    def connection_detail_type_required(self) -> str:
        """The text for a connection detail without ``type`` (v0.2.0 named it)."""
        return "connection detail type is required" if self._since(0, 2, 0) else "type is required"

    # --- running -----------------------------------------------------------------------------

    @functools.cached_property
    def base_keeps_identity(self) -> bool:
        """v0.4.0: a base's ``metadata.name`` and ``namespace`` are kept; before, rendering the base reset
        them (to nothing) and a base that did not parse read ``cannot unmarshal JSON data: ...``."""
        return self._since(0, 4, 0)

    @functools.cached_property
    def optional_environment_patches(self) -> bool:
        """v0.4.0: an environment patch whose source is missing is skipped unless Required; in v0.3.0
        it was Fatal."""
        return self._since(0, 4, 0)

    @functools.cached_property
    def nil_is_missing(self) -> bool:
        """v0.4.0 (crossplane-runtime v1.15.1): a path through a null reads as missing; before, it failed
        (``not an object``, ``unexpected wildcard usage``)."""
        return self._since(0, 4, 0)

    @functools.cached_property
    def defaults_environment_kind(self) -> bool:
        """v0.6.0: an environment without apiVersion and kind gets ``internal.crossplane.io/v1alpha1``
        ``Environment``; before, writing to one failed (``Object 'Kind' is missing``)."""
        return self._since(0, 6, 0)

    @functools.cached_property
    def combine_honours_policy(self) -> bool:
        """v0.8.0: Combine* patches write with their ``policy.toFieldPath``; before, they replaced."""
        return self._since(0, 8, 0)

    @functools.cached_property
    def unready_when_skipped(self) -> bool:
        """v0.8.0: a template left out by a Required patch makes the desired XR not ready."""
        return self._since(0, 8, 0)

    @functools.cached_property
    def results_target_composite(self) -> bool:
        """v0.8.0 (function-sdk-go v0.4.0): results say ``target: TARGET_COMPOSITE``; before, no target."""
        return self._since(0, 8, 0)


CURRENT = Release((0, 10, 8))
"""The newest release: what ``crossfn function serve patch-and-transform`` serves."""
