"""The kinds of ``apiextensions.crossplane.io``: XRDs, Compositions and their revisions,
EnvironmentConfigs, managed resource definitions and activation policies, and the legacy Usage.

Each class is an API type (``_types``); :data:`KINDS` says how each kind is
served (names, versions, printer columns), read by ``_kinds``. Names follow
Crossplane's Go types (``apis/apiextensions/...``) so the two can be read side
by side.
"""

from __future__ import annotations

from crossfn.controller.crds import _core
from crossfn.controller.crds._kind import Column, Kind, Version
from crossfn.controller.crds._types import (
    IMMUTABLE,
    Array,
    Boolean,
    Embedded,
    Integer,
    K8s,
    Map,
    Obj,
    Rule,
    String,
    Struct,
    Unstructured,
)

__all__ = ["KINDS"]

_K8S_APIEXT = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1"
_LABEL_SELECTOR = "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"

# Pipelines (composition_common.go), shared by Compositions and their revisions.


class FunctionReference(Struct):
    name = String(required=True)


class SecretReference(Struct):
    name = String(required=True)
    namespace = String(required=True)


class FunctionCredentials(
    Struct,
    validations=[
        Rule("self.source == 'Secret' && has(self.secretRef)", "the Secret source requires a secretRef")
    ],
):
    name = String(required=True)
    source = String(required=True, enum=["None", "Secret"])
    secretRef = Obj(SecretReference)


class RequiredResourceSelector(
    Struct,
    validations=[
        Rule("!(has(self.name) && has(self.matchLabels))", "name and matchLabels are mutually exclusive")
    ],
):
    requirementName = String(required=True)
    apiVersion = String(required=True)
    kind = String(required=True)
    name = String()
    matchLabels = Map(String())
    namespace = String()


class RequiredSchemaSelector(Struct):
    requirementName = String(required=True)
    apiVersion = String(required=True)
    kind = String(required=True)


class FunctionRequirements(Struct):
    requiredResources = Array(RequiredResourceSelector, list_type="map", map_keys=["requirementName"])
    requiredSchemas = Array(RequiredSchemaSelector, list_type="map", map_keys=["requirementName"])


class PipelineStep(Struct):
    step = String(required=True)
    functionRef = Obj(FunctionReference, required=True)
    input = Embedded()
    credentials = Array(FunctionCredentials, list_type="map", map_keys=["name"])
    requirements = Obj(FunctionRequirements)


class CompositionSpec(
    Struct,
    validations=[
        Rule(
            "self.mode == 'Pipeline' && has(self.pipeline)",
            "an array of pipeline steps is required in Pipeline mode",
        )
    ],
):
    compositeTypeRef = Obj(_core.TypeReference, required=True, validations=[IMMUTABLE])
    mode = String(default="Pipeline", enum=["Pipeline"])
    pipeline = Array(PipelineStep, list_type="map", map_keys=["step"], min_items=1, max_items=99)
    writeConnectionSecretsToNamespace = String()


class Composition(_core.Root):
    spec = Obj(CompositionSpec)


class CompositionRevisionSpec(Struct):
    compositeTypeRef = Obj(_core.TypeReference, required=True, validations=[IMMUTABLE])
    mode = String(default="Pipeline", enum=["Pipeline"])
    pipeline = Array(PipelineStep, list_type="map", map_keys=["step"])
    writeConnectionSecretsToNamespace = String()
    revision = Integer(format="int64", required=True)


class CompositionRevision(_core.Root):
    spec = Obj(CompositionRevisionSpec)
    status = Obj(_core.ConditionedStatus)


# CompositeResourceDefinitions (v1 and v2 xrd_types.go).

_NAMES_RULES = [
    IMMUTABLE,
    Rule("self.plural == self.plural.lowerAscii()", "Plural name must be lowercase"),
    Rule(
        "!has(self.singular) || self.singular == self.singular.lowerAscii()",
        "Singular name must be lowercase",
    ),
]


class CompositionReference(Struct):
    name = String(required=True)


class CompositeResourceValidation(Struct):
    openAPIV3Schema = Unstructured()


class CompositeResourceDefinitionVersionSubresources(Struct):
    scale = K8s(f"{_K8S_APIEXT}.CustomResourceSubresourceScale")


class CompositeResourceDefinitionVersion(Struct):
    name = String(required=True)
    referenceable = Boolean(required=True)
    served = Boolean(required=True)
    deprecated = Boolean()
    deprecationWarning = String(max_length=256)
    schema = Obj(CompositeResourceValidation)
    additionalPrinterColumns = Array(K8s(f"{_K8S_APIEXT}.CustomResourceColumnDefinition"))
    subresources = Obj(CompositeResourceDefinitionVersionSubresources)


class CompositeResourceDefinitionSpecV1(
    Struct,
    validations=[
        Rule(
            "self.scope == 'LegacyCluster' || !has(self.claimNames)",
            "Only LegacyCluster composite resources can offer claims",
        ),
        Rule(
            "self.scope == 'LegacyCluster' || !has(self.connectionSecretKeys)",
            "Only LegacyCluster composite resources support connection secrets",
        ),
    ],
):
    group = String(required=True, validations=[IMMUTABLE])
    names = K8s(f"{_K8S_APIEXT}.CustomResourceDefinitionNames", required=True, validations=_NAMES_RULES)
    scope = String(
        default="LegacyCluster", enum=["LegacyCluster", "Namespaced", "Cluster"], validations=[IMMUTABLE]
    )
    claimNames = K8s(f"{_K8S_APIEXT}.CustomResourceDefinitionNames", validations=_NAMES_RULES)
    connectionSecretKeys = Array(String())
    defaultCompositeDeletePolicy = String(default="Background", enum=["Background", "Foreground"])
    defaultCompositionRef = Obj(CompositionReference)
    enforcedCompositionRef = Obj(CompositionReference, validations=[IMMUTABLE])
    defaultCompositionUpdatePolicy = String(default="Automatic", enum=["Automatic", "Manual"])
    defaultCompositionRevisionSelector = K8s(_LABEL_SELECTOR)
    versions = Array(CompositeResourceDefinitionVersion, required=True)
    conversion = K8s(
        f"{_K8S_APIEXT}.CustomResourceConversion",
        validations=[
            Rule(
                "self.strategy == 'Webhook' && has(self.webhook)",
                "Webhook configuration is required when conversion strategy is Webhook",
            )
        ],
    )
    metadata = Obj(_core.Metadata)


class CompositeResourceDefinitionSpecV2(
    CompositeResourceDefinitionSpecV1,
    validations=[
        Rule("!has(self.claimNames)", "Claims aren't supported in apiextensions.crossplane.io/v2"),
        Rule(
            "!has(self.connectionSecretKeys)",
            "XR connection secrets aren't supported in apiextensions.crossplane.io/v2",
        ),
    ],
):
    """v2: modern XRs only, ``Namespaced`` by default; v1's fields stay so a v1 XRD reads as v2."""

    scope = String(default="Namespaced", enum=["Namespaced", "Cluster"], validations=[IMMUTABLE])
    claimNames = K8s(f"{_K8S_APIEXT}.CustomResourceDefinitionNames")
    defaultCompositeDeletePolicy = String(enum=["Background", "Foreground"])
    conversion = K8s(f"{_K8S_APIEXT}.CustomResourceConversion")


class CompositeResourceDefinitionControllerStatus(Struct):
    compositeResourceType = Obj(_core.TypeReference)
    compositeResourceClaimType = Obj(_core.TypeReference)


class CompositeResourceDefinitionStatus(Struct):
    conditions = _core.conditions()
    controllers = Obj(CompositeResourceDefinitionControllerStatus)


class CompositeResourceDefinitionV1(_core.Root):
    spec = Obj(CompositeResourceDefinitionSpecV1)
    status = Obj(CompositeResourceDefinitionStatus)


class CompositeResourceDefinitionV2(_core.Root):
    spec = Obj(CompositeResourceDefinitionSpecV2)
    status = Obj(CompositeResourceDefinitionStatus)


# EnvironmentConfigs (v1beta1 environment_config_types.go): data only, no spec.


class EnvironmentConfig(_core.Root):
    data = Map(Unstructured(type=""))


# Managed resource definitions and activation policies (v1alpha1).


class CustomResourceValidation(Struct):
    openAPIV3Schema = Unstructured()


class CustomResourceSubresources(Struct):
    scale = K8s(f"{_K8S_APIEXT}.CustomResourceSubresourceScale")
    status = Obj(_core.ObjectMeta)


class CustomResourceDefinitionVersion(Struct):
    name = String(required=True)
    served = Boolean(required=True)
    storage = Boolean(required=True)
    deprecated = Boolean()
    deprecationWarning = String()
    schema = Obj(CustomResourceValidation)
    subresources = Obj(CustomResourceSubresources)
    additionalPrinterColumns = Array(K8s(f"{_K8S_APIEXT}.CustomResourceColumnDefinition"), list_type="atomic")
    selectableFields = Array(K8s(f"{_K8S_APIEXT}.SelectableField"), list_type="atomic")


class ConnectionDetail(Struct):
    name = String(required=True)
    description = String(required=True)


class ManagedResourceDefinitionSpec(Struct):
    group = String(required=True, validations=[IMMUTABLE])
    names = K8s(f"{_K8S_APIEXT}.CustomResourceDefinitionNames", required=True, validations=_NAMES_RULES)
    scope = String(
        required=True, default="Namespaced", enum=["Namespaced", "Cluster"], validations=[IMMUTABLE]
    )
    versions = Array(CustomResourceDefinitionVersion, required=True, list_type="atomic")
    conversion = K8s(f"{_K8S_APIEXT}.CustomResourceConversion")
    preserveUnknownFields = Boolean()
    connectionDetails = Array(ConnectionDetail)
    state = String(
        default="Inactive",
        enum=["Active", "Inactive"],
        validations=[
            Rule("self == oldSelf || oldSelf != 'Active'", "state cannot be changed once it becomes Active")
        ],
    )


class ManagedResourceDefinition(_core.Root):
    spec = Obj(ManagedResourceDefinitionSpec)
    status = Obj(_core.ConditionedStatus)


class ManagedResourceActivationPolicySpec(Struct):
    activate = Array(String(), required=True, min_items=1)


class ManagedResourceActivationPolicyStatus(Struct):
    conditions = _core.conditions()
    activated = Array(String())


class ManagedResourceActivationPolicy(_core.Root):
    spec = Obj(ManagedResourceActivationPolicySpec)
    status = Obj(ManagedResourceActivationPolicyStatus)


# The legacy Usage (v1alpha1 and v1beta1, deprecated for protection.crossplane.io's).


class ResourceRef(Struct):
    name = String(required=True)


class ResourceSelector(Struct):
    matchLabels = Map(String())
    matchControllerRef = Boolean()


class Resource(
    Struct,
    validations=[
        Rule(
            "has(self.resourceRef) || has(self.resourceSelector)",
            "either a resource reference or a resource selector should be set.",
        )
    ],
):
    apiVersion = String()
    kind = String()
    resourceRef = Obj(ResourceRef)
    resourceSelector = Obj(ResourceSelector)


BY_OR_REASON = Rule(
    "has(self.by) || has(self.reason)", 'either "spec.by" or "spec.reason" must be specified.'
)


class UsageSpec(Struct, validations=[BY_OR_REASON]):
    of = Obj(Resource, required=True)
    by = Obj(Resource)
    reason = String()
    replayDeletion = Boolean()


class Usage(_core.Root):
    spec = Obj(UsageSpec, required=True)
    status = Obj(_core.ConditionedStatus)


# How each kind is served.

_ESTABLISHED = Column("ESTABLISHED", ".status.conditions[?(@.type=='Established')].status")
_USAGE_COLUMNS = (
    Column("DETAILS", ".metadata.annotations.crossplane\\.io/usage-details"),
    Column("READY", ".status.conditions[?(@.type=='Ready')].status"),
)
_USAGE_DEPRECATED = "apiextensions.crossplane.io Usage is deprecated; migrate to protection.crossplane.io Usage or ClusterUsage"
_XRD_COLUMNS = (_ESTABLISHED, Column("OFFERED", ".status.conditions[?(@.type=='Offered')].status"))
_XR_TYPE = (
    Column("XR-KIND", ".spec.compositeTypeRef.kind"),
    Column("XR-APIVERSION", ".spec.compositeTypeRef.apiVersion"),
)

KINDS = (
    Kind(
        "apiextensions.crossplane.io",
        "CompositeResourceDefinition",
        short_names=("xrd", "xrds"),
        versions=(
            Version(
                "v1",
                CompositeResourceDefinitionV1,
                storage=True,
                columns=_XRD_COLUMNS,
                deprecation_warning="CompositeResourceDefinition v1 is deprecated and will be removed in a "
                "future release; consider migrating to v2",
            ),
            Version("v2", CompositeResourceDefinitionV2, columns=_XRD_COLUMNS),
        ),
    ),
    Kind(
        "apiextensions.crossplane.io",
        "CompositionRevision",
        short_names=("comprev",),
        versions=(
            Version(
                "v1",
                CompositionRevision,
                storage=True,
                columns=(Column("REVISION", ".spec.revision"), *_XR_TYPE),
            ),
        ),
    ),
    Kind(
        "apiextensions.crossplane.io",
        "Composition",
        short_names=("comp",),
        versions=(Version("v1", Composition, storage=True, status=False, columns=_XR_TYPE),),
    ),
    Kind(
        "apiextensions.crossplane.io",
        "EnvironmentConfig",
        short_names=("envcfg",),
        versions=(Version("v1beta1", EnvironmentConfig, storage=True, status=False),),
    ),
    Kind(
        "apiextensions.crossplane.io",
        "ManagedResourceActivationPolicy",
        plural="managedresourceactivationpolicies",
        short_names=("mrap",),
        versions=(Version("v1alpha1", ManagedResourceActivationPolicy, storage=True),),
    ),
    Kind(
        "apiextensions.crossplane.io",
        "ManagedResourceDefinition",
        short_names=("mrd", "mrds"),
        versions=(
            Version(
                "v1alpha1",
                ManagedResourceDefinition,
                storage=True,
                columns=(Column("STATE", ".spec.state"), _ESTABLISHED),
            ),
        ),
    ),
    Kind(
        "apiextensions.crossplane.io",
        "Usage",
        categories=("crossplane",),
        versions=(
            Version(
                "v1alpha1", Usage, storage=True, columns=_USAGE_COLUMNS, deprecation_warning=_USAGE_DEPRECATED
            ),
            Version("v1beta1", Usage, columns=_USAGE_COLUMNS, deprecation_warning=_USAGE_DEPRECATED),
        ),
    ),
)
