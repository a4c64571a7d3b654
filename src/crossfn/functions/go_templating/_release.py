"""Which function-go-templating release the built-in behaves as, and what that release did.

A :class:`Release` is the version plus one property per behaviour that changed
between releases, each named for what it decides and documented with the
release that changed it; the modules ask the property, never the version.
``docs/functions.md`` tabulates the differences, and
:data:`GROUPS` lists the releases that behave alike (identical Go code, built
with the same Go release), one built-in object each.

What a release was built with matters as much as its own code: the Go release
(``text/template`` changed in Go 1.23, 1.24 and 1.25, :class:`GoRelease`), the
Sprig and Masterminds/semver releases (``go.mod``), and function-sdk-go, whose
generations decide the protocol version, how the input is decoded and whether
results name a target. The Go release is the CI's ``GO_VERSION``, which builds
the image (``golang:<GO_VERSION>``, which runs the local toolchain).
"""

from __future__ import annotations

from crossfn.functions import _registry
from crossfn.gocompat.template import GoRelease

__all__ = ["CURRENT", "GROUPS", "Release"]


class Release(_registry.Behaviour):
    """One upstream release's behaviour (``version`` is the release it behaves as)."""

    # --- what it was built with -------------------------------------------------------------

    @property
    def go(self) -> GoRelease:
        """Go 1.21 to v0.8.0, 1.23 from v0.9.0, 1.24 from v0.11.1, 1.25 from v0.11.5 (and v0.12.0)."""
        if not self._since(0, 9, 0):
            return GoRelease("1.21")
        if not self._since(0, 11, 1):
            return GoRelease("1.23")
        if not self._since(0, 11, 5):
            return GoRelease("1.24")
        return GoRelease("1.25")

    @property
    def sprig(self) -> str:
        """Sprig v3.2.3 to v0.5.0, v3.3.0 from v0.6.0."""
        return "v3.3.0" if self._since(0, 6, 0) else "v3.2.3"

    @property
    def semver(self) -> str:
        """Masterminds/semver: v3.2.0, v3.3.0 from v0.6.0, v3.3.1 from v0.9.0, v3.4.0 from v0.12.0."""
        if self._since(0, 12, 0):
            return "v3.4.0"
        if self._since(0, 9, 0):
            return "v3.3.1"
        if self._since(0, 6, 0):
            return "v3.3.0"
        return "v3.2.0"

    # --- function-sdk-go: the protocol, the input decoder, results ----------------------------

    @property
    def protocol_v1(self) -> bool:
        """v0.9.0 (function-sdk-go v0.4.0): serves ``v1``; before, ``v1beta1`` (the request type errors name)."""
        return self._since(0, 9, 0)

    @property
    def rejects_unknown_fields(self) -> bool:
        """v0.5.0 (function-sdk-go v0.2.0): an unknown input field fails the input; before, it was ignored."""
        return self._since(0, 5, 0)

    @property
    def wraps_input_error_with_types(self) -> bool:
        """v0.9.0 (function-sdk-go v0.4.0): ``cannot get function input *v1beta1.GoTemplate from *v1...``;
        before, the SDK's message held its format verbs unexpanded (``%T from %T, into, req``)."""
        return self._since(0, 9, 0)

    @property
    def results_target_composite(self) -> bool:
        """v0.9.0 (function-sdk-go v0.4.0): results name the composite as their target."""
        return self._since(0, 9, 0)

    @property
    def has_extra_resources(self) -> bool:
        """v0.5.0 (function-sdk-go v0.2.0): the request's ``extraResources`` reach templates."""
        return self._since(0, 5, 0)

    @property
    def has_credentials(self) -> bool:
        """v0.9.0 (function-sdk-go v0.4.0): the request's ``credentials`` reach templates."""
        return self._since(0, 9, 0)

    @property
    def has_required_resources(self) -> bool:
        """v0.12.0 (function-sdk-go v0.6.2): ``requiredResources``, ``requiredSchemas``, ``meta.capabilities``;
        the desired composite's ready state can be set."""
        return self._since(0, 12, 0)

    # --- the input -----------------------------------------------------------------------------

    @property
    def input_type(self) -> str:
        """``v1beta1.GoTemplate`` from v0.2.2; v0.2.0 and v0.2.1 called it ``v1beta1.Input``."""
        return "v1beta1.GoTemplate" if self._since(0, 2, 2) else "v1beta1.Input"

    @property
    def source_type_prefix(self) -> str:
        """``TemplateSource...`` from v0.2.2; ``InputSource...`` before."""
        return "TemplateSource" if self._since(0, 2, 2) else "InputSource"

    @property
    def checks_source_fields(self) -> bool:
        """v0.3.0: ``inline.template should be provided`` and ``fileSystem.dirPath should be provided``;
        before, a missing ``inline`` or ``fileSystem`` crashed the function (a nil pointer)."""
        return self._since(0, 3, 0)

    @property
    def has_delims(self) -> bool:
        """v0.4.0: ``delims.left`` and ``delims.right`` (used when both are set)."""
        return self._since(0, 4, 0)

    @property
    def walk(self) -> str:
        """How ``fileSystem.dirPath`` is read: ``walk`` (``filepath.Walk``, hidden directories still
        entered), ``walkdir`` (v0.4.1: ``filepath.WalkDir``, hidden directories skipped) or ``fs``
        (v0.5.0: ``fs.WalkDir`` over an ``os.Open`` file system: the root is opened, not lstat'ed)."""
        if self._since(0, 5, 0):
            return "fs"
        return "walkdir" if self._since(0, 4, 1) else "walk"

    @property
    def has_environment_source(self) -> bool:
        """v0.11.0: ``source: Environment`` reads the template from the pipeline's environment."""
        return self._since(0, 11, 0)

    @property
    def has_v0_12_input(self) -> bool:
        """v0.12.0: ``options`` (template options), ``inline.templates`` (joined by ``---``), and the
        ``FUNCTION_GO_TEMPLATING_DEFAULT_SOURCE`` directory when ``source`` is empty."""
        return self._since(0, 12, 0)

    # --- template functions -----------------------------------------------------------------

    @property
    def functions(self) -> tuple[str, ...]:
        """The function's own template functions (Sprig's come with every release)."""
        names = ["randomChoice"]
        if self._since(0, 3, 0):
            names += ["toYaml", "fromYaml", "getResourceCondition", "setResourceNameAnnotation"]
        if self._since(0, 4, 0):
            names.append("include")
        if self._since(0, 5, 0):
            names += ["getComposedResource", "getCompositeResource"]
        if self._since(0, 11, 0):
            names += ["getExtraResources", "getCredentialData"]
        if self._since(0, 12, 0):
            names.append("getExtraResourcesFromContext")
        return tuple(names)

    @property
    def removes_sprig_env(self) -> bool:
        """v0.5.0: Sprig's ``env`` and ``expandenv`` are removed."""
        return self._since(0, 5, 0)

    @property
    def composed_path_brackets(self) -> bool:
        """v0.9.0: ``getComposedResource`` reads ``observed.resources[NAME]resource`` (a name may hold dots);
        before, ``observed.resources.NAME.resource``."""
        return self._since(0, 9, 0)

    @property
    def condition_reads_status(self) -> bool:
        """v0.11.0: ``getResourceCondition`` also reads a resource given as itself (``status``), not only an
        observed entry (``resource.status``)."""
        return self._since(0, 11, 0)

    @property
    def condition_has_observed_generation(self) -> bool:
        """v0.9.0 (crossplane-runtime v1.16+): a Condition has ``ObservedGeneration``."""
        return self._since(0, 9, 0)

    @property
    def extra_resources_prefer_required(self) -> bool:
        """v0.12.0: ``getExtraResources`` reads ``requiredResources`` first, and the template data has
        ``extraResources`` as an alias of ``requiredResources`` when the request has only the latter."""
        return self._since(0, 12, 0)

    # --- reading the rendered manifests ----------------------------------------------------

    @property
    def checks_annotations(self) -> bool:
        """v0.5.0: a non-string annotation value fails (``invalid annotations in resource ...``)."""
        return self._since(0, 5, 0)

    @property
    def json_falls_back_to_yaml(self) -> bool:
        """v0.12.0 (apimachinery 0.35): output that starts like JSON but does not parse as a JSON stream
        (after at most one value) is read as YAML; before, it was a JSON syntax error."""
        return self._since(0, 12, 0)

    @property
    def yaml_error_context(self) -> bool:
        """v0.12.0: a YAML error names the line in the whole output, the document and the text near it."""
        return self._since(0, 12, 0)

    # --- what the manifests do ---------------------------------------------------------------

    @property
    def meta_kinds(self) -> tuple[str, ...]:
        """The ``meta.gotemplating.fn.crossplane.io`` kinds: CompositeConnectionDetails; ExtraResources from
        v0.6.0; Context from v0.7.0; ClaimConditions from v0.9.0."""
        kinds = ["CompositeConnectionDetails"]
        if self._since(0, 6, 0):
            kinds.append("ExtraResources")
        if self._since(0, 7, 0):
            kinds.append("Context")
        if self._since(0, 9, 0):
            kinds.append("ClaimConditions")
        return tuple(kinds)

    @property
    def invalid_kind_hint(self) -> str:
        """What the error for another kind says it must be."""
        if self._since(0, 7, 0):
            return "must be one of CompositeConnectionDetails, Context or ExtraResources"
        if self._since(0, 6, 0):
            return "must be CompositeConnectionDetails or ExtraResources"
        return "must be CompositeConnectionDetails"

    @property
    def named_xr_is_composed(self) -> bool:
        """v0.8.0: a document of the XR's kind *with* a composition-resource-name annotation is a composed
        resource; before, every document of the XR's kind updated the XR's status."""
        return self._since(0, 8, 0)

    @property
    def namespaced_requirements(self) -> bool:
        """v0.12.0: ExtraResources requirements go to ``requirements.resources`` too, and may name a
        ``namespace`` (those only there); before, ``requirements.extraResources`` only."""
        return self._since(0, 12, 0)

    @property
    def status_only_when_present(self) -> bool:
        """v0.12.0: the XR's status is written only if the desired XR or the template has one; before, a
        document of the XR's kind always set ``status`` (``{}`` when neither had one)."""
        return self._since(0, 12, 0)

    @property
    def ready_for_xr(self) -> bool:
        """v0.12.0: the ready annotation is read on the XR's document too and sets the desired XR's ready
        state; before, only composed resources' annotations were read (the XR's stayed in the template)."""
        return self._since(0, 12, 0)

    @property
    def resources_to_context(self) -> bool:
        """v0.12.0: the request's extra and required resources are merged into the context key
        ``apiextensions.crossplane.io/extra-resources``."""
        return self._since(0, 12, 0)


GROUPS: tuple[tuple[str, str, str], ...] = (
    ("v0.2.0", "v0.2.2", "v0.2.0 to v0.2.1"),
    ("v0.2.2", "v0.3.0", "v0.2.2"),
    ("v0.3.0", "v0.4.0", "v0.3.0"),
    ("v0.4.0", "v0.4.1", "v0.4.0"),
    ("v0.4.1", "v0.5.0", "v0.4.1"),
    ("v0.5.0", "v0.6.0", "v0.5.0"),
    ("v0.6.0", "v0.7.0", "v0.6.0"),
    ("v0.7.0", "v0.8.0", "v0.7.0"),
    ("v0.8.0", "v0.9.0", "v0.8.0"),
    ("v0.9.0", "v0.11.0", "v0.9.0 to v0.10.1 (Go 1.23)"),
    ("v0.11.0", "v0.11.1", "v0.11.0 (Go 1.23)"),
    ("v0.11.1", "v0.11.5", "v0.11.1 to v0.11.4 (Go 1.24)"),
    ("v0.11.5", "v0.12.0", "v0.11.5 to v0.11.9 (Go 1.25)"),
    ("v0.12.0", "v0.13.0", "v0.12.0 to v0.12.2"),
)
"""``(since, until, behaves)``: releases from ``since`` up to ``until`` (exclusive) behave alike, as ``since``."""

CURRENT = Release((0, 12, 2))
