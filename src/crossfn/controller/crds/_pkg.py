"""The kinds of ``pkg.crossplane.io``: packages (Functions, Providers, Configurations), their
revisions, DeploymentRuntimeConfigs, ImageConfigs and the Lock.

Names follow Crossplane's Go types (``apis/pkg/v1``, ``apis/pkg/v1beta1``). A
package's spec is :class:`PackageSpec` plus, for kinds that run a Deployment,
the runtime fields; a revision's likewise.
"""

from __future__ import annotations

from crossfn.controller.crds import _core
from crossfn.controller.crds._kind import Column, Kind, Version
from crossfn.controller.crds._types import Array, Boolean, Integer, K8s, Map, Obj, Rule, String, Struct

__all__ = ["KINDS"]

_LOCAL_OBJECT_REFERENCE = "io.k8s.api.core.v1.LocalObjectReference"

_PACKAGE_NAME = Rule(
    r"self.matches('^[^\\.\\/]+(\\.[^\\.\\/]+)+(\\/[^\\/:@]+)+(:[^:@]+(@sha256.+)?|@sha256.+)$')",
    "must be a fully qualified image name, including the registry, repository, and tag or digest. For example, "
    "'registry.example.com/repo/package:tag' or "
    "'registry.example.com/repo/package[:tag]@sha256:1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef'.",
)


class RuntimeConfigReference(Struct):
    apiVersion = String(default="pkg.crossplane.io/v1beta1")
    kind = String(default="DeploymentRuntimeConfig")
    name = String(required=True)


class _PackageFields(Struct):
    """What every package and revision spec has (``PackageSpec``/``PackageRevisionSpec``)."""

    packagePullSecrets = Array(K8s(_LOCAL_OBJECT_REFERENCE))
    packagePullPolicy = String(default="IfNotPresent")
    ignoreCrossplaneConstraints = Boolean(default=False)
    skipDependencyResolution = Boolean(default=False)
    commonLabels = Map(String())
    commonAnnotations = Map(String())


class PackageSpec(_PackageFields):
    package = String(required=True, validations=[_PACKAGE_NAME])
    revisionActivationPolicy = String(default="Automatic")
    revisionHistoryLimit = Integer(format="int64", default=1)


class PackageRuntimeSpec(PackageSpec):
    """A package that runs (Function, Provider): ``PackageSpec`` with its runtime config."""

    runtimeConfigRef = Obj(RuntimeConfigReference, default={"name": "default"})


class ImageConfigRef(Struct):
    name = String(required=True)
    reason = String(required=True)


class PackageStatus(Struct):
    conditions = _core.conditions()
    currentRevision = String()
    currentIdentifier = String()
    resolvedPackage = String()
    appliedImageConfigRefs = Array(ImageConfigRef)


class PackageRevisionSpec(_PackageFields):
    desiredState = String(required=True)
    image = String(required=True)
    revision = Integer(format="int64", required=True)


class PackageRevisionRuntimeSpec(PackageRevisionSpec):
    runtimeConfigRef = Obj(RuntimeConfigReference, default={"name": "default"})
    tlsServerSecretName = String()
    tlsClientSecretName = String()


class ControllerReference(Struct):
    apiVersion = String(required=True)
    kind = String(required=True)
    name = String(required=True)
    uid = String()


class PackageRevisionStatus(Struct):
    conditions = _core.conditions()
    objectRefs = Array(ControllerReference)
    foundDependencies = Integer(format="int64")
    installedDependencies = Integer(format="int64")
    invalidDependencies = Integer(format="int64")
    capabilities = Array(String())
    resolvedImage = String()
    appliedImageConfigRefs = Array(ImageConfigRef)


class PackageRevisionRuntimeStatus(PackageRevisionStatus):
    tlsServerSecretName = String()
    tlsClientSecretName = String()


class FunctionRevisionStatus(PackageRevisionRuntimeStatus):
    endpoint = String()


class Function(_core.Root):
    spec = Obj(PackageRuntimeSpec)
    status = Obj(PackageStatus)


class FunctionRevision(_core.Root):
    spec = Obj(PackageRevisionRuntimeSpec)
    status = Obj(FunctionRevisionStatus)


class Provider(_core.Root):
    spec = Obj(PackageRuntimeSpec)
    status = Obj(PackageStatus)


class ProviderRevision(_core.Root):
    spec = Obj(PackageRevisionRuntimeSpec)
    status = Obj(PackageRevisionRuntimeStatus)


class Configuration(_core.Root):
    spec = Obj(PackageSpec)
    status = Obj(PackageStatus)


class ConfigurationRevision(_core.Root):
    spec = Obj(PackageRevisionSpec)
    status = Obj(PackageRevisionStatus)


# DeploymentRuntimeConfig (v1beta1): templates of what a package's runtime creates.


class ObjectMeta(Struct):
    """The metadata a template may set (v1beta1 ``ObjectMeta``), not Kubernetes' whole ObjectMeta."""

    name = String()
    annotations = Map(String())
    labels = Map(String())


class DeploymentTemplate(Struct):
    metadata = Obj(ObjectMeta)
    spec = K8s("io.k8s.api.apps.v1.DeploymentSpec")


class ServiceTemplate(Struct):
    metadata = Obj(ObjectMeta)


class DeploymentRuntimeConfigSpec(Struct):
    deploymentTemplate = Obj(DeploymentTemplate)
    serviceTemplate = Obj(ServiceTemplate)
    serviceAccountTemplate = Obj(ServiceTemplate)


class DeploymentRuntimeConfig(_core.Root):
    spec = Obj(DeploymentRuntimeConfigSpec)


# ImageConfig (v1beta1): per image prefix, pull secrets, signature checks, rewrites, runtime config.


class ImageMatch(Struct):
    prefix = String(required=True)
    type = String(default="Prefix", enum=["Prefix"])


class RegistryAuthentication(Struct):
    pullSecretRef = K8s(_LOCAL_OBJECT_REFERENCE, required=True)


class RegistryConfig(Struct):
    authentication = Obj(RegistryAuthentication)


class Attestation(Struct):
    name = String(required=True)
    predicateType = String(required=True)


class LocalSecretKeySelector(Struct):
    name = String(required=True)
    key = String(required=True)


class KeyRef(Struct):
    secretRef = Obj(LocalSecretKeySelector, required=True)
    hashAlgorithm = String(default="sha256", required=True)


class Identity(Struct):
    issuer = String()
    issuerRegExp = String()
    subject = String()
    subjectRegExp = String()


class KeylessRef(Struct):
    identities = Array(Identity, required=True)
    insecureIgnoreSCT = Boolean()


class CosignAuthority(Struct):
    name = String(required=True)
    key = Obj(KeyRef)
    keyless = Obj(KeylessRef)
    attestations = Array(Attestation)


class CosignVerificationConfig(Struct):
    authorities = Array(CosignAuthority, required=True)


class ImageVerification(Struct):
    provider = String(required=True, enum=["Cosign"])
    cosign = Obj(CosignVerificationConfig)


class ImageRewrite(Struct):
    prefix = String(required=True)


class ImageRuntime(Struct):
    configRef = Obj(RuntimeConfigReference)


class ImageConfigSpec(Struct):
    matchImages = Array(
        ImageMatch,
        required=True,
        validations=[Rule("size(self) > 0", "matchImages should have at least one element.")],
    )
    registry = Obj(RegistryConfig)
    verification = Obj(ImageVerification)
    rewriteImage = Obj(ImageRewrite)
    runtime = Obj(ImageRuntime)


class ImageConfig(_core.Root):
    spec = Obj(ImageConfigSpec)


# Lock (v1beta1): the package manager's record of installed packages and their dependencies.

_PACKAGE_TYPES = ["Configuration", "Provider", "Function"]


class Dependency(Struct):
    package = String(required=True)
    apiVersion = String()
    kind = String()
    type = String(enum=_PACKAGE_TYPES)
    constraints = String(required=True)


class LockPackage(Struct):
    name = String(required=True)
    apiVersion = String()
    kind = String()
    type = String(enum=_PACKAGE_TYPES)
    source = String(required=True)
    version = String(required=True)
    dependencies = Array(Dependency, required=True)


class Lock(_core.Root):
    packages = Array(LockPackage)
    status = Obj(_core.ConditionedStatus)


# How each kind is served.

_HEALTHY = Column("HEALTHY", ".status.conditions[?(@.type=='Healthy')].status")
_PACKAGE_COLUMNS = (
    Column("INSTALLED", ".status.conditions[?(@.type=='Installed')].status"),
    _HEALTHY,
    Column("PACKAGE", ".spec.package"),
)
_REVISION_HEALTHY = Column("HEALTHY", ".status.conditions[?(@.type=='RevisionHealthy')].status")
_RUNTIME_COLUMNS = (
    Column("RUNTIME-HEALTHY", ".status.conditions[?(@.type=='RuntimeHealthy')].status"),
    Column("RUNTIME-ACTIVE", ".status.conditions[?(@.type=='RuntimeActive')].status"),
)
_IMAGE_STATE = (Column("IMAGE", ".spec.image"), Column("STATE", ".spec.desiredState"))
_REVISION_WIDE = (
    Column("REVISION", ".spec.revision", priority=1),
    Column("DEP-FOUND", ".status.foundDependencies", priority=1),
    Column("DEP-INSTALLED", ".status.installedDependencies", priority=1),
)
_PKG = ("crossplane", "pkg")
_PKGREV = ("crossplane", "pkgrev")


def _package(kind: str, root: type[Struct], *versions: str) -> Kind:
    return Kind(
        "pkg.crossplane.io",
        kind,
        categories=_PKG,
        versions=tuple(
            Version(v, root, storage=i == 0, columns=_PACKAGE_COLUMNS) for i, v in enumerate(versions)
        ),
    )


def _revision(kind: str, root: type[Struct], *versions: str, runtime: bool) -> Kind:
    columns = (_REVISION_HEALTHY, *(_RUNTIME_COLUMNS if runtime else ()), *_IMAGE_STATE)
    return Kind(
        "pkg.crossplane.io",
        kind,
        categories=_PKGREV,
        versions=tuple(
            Version(v, root, storage=i == 0, columns=columns, wide=_REVISION_WIDE)
            for i, v in enumerate(versions)
        ),
    )


KINDS = (
    _revision("ConfigurationRevision", ConfigurationRevision, "v1", runtime=False),
    _package("Configuration", Configuration, "v1"),
    Kind(
        "pkg.crossplane.io",
        "DeploymentRuntimeConfig",
        versions=(Version("v1beta1", DeploymentRuntimeConfig, storage=True, status=False),),
    ),
    _revision("FunctionRevision", FunctionRevision, "v1", "v1beta1", runtime=True),
    _package("Function", Function, "v1", "v1beta1"),
    Kind(
        "pkg.crossplane.io",
        "ImageConfig",
        versions=(Version("v1beta1", ImageConfig, storage=True, status=False),),
    ),
    Kind("pkg.crossplane.io", "Lock", categories=None, versions=(Version("v1beta1", Lock, storage=True),)),
    _revision("ProviderRevision", ProviderRevision, "v1", runtime=True),
    _package("Provider", Provider, "v1"),
)
