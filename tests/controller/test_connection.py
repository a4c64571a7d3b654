"""Connection details end to end on a real kube-apiserver (envtest): composed Secret → XR Secret → claim Secret.

A patch-and-transform resource declares ``connectionDetails`` (a key of its
own connection Secret, a field of its status, a constant) and patches its
status back to the XR (``ToCompositeFieldPath``). The test plays the provider:
it writes the composed resource's Secret and status. The XR reconciler then
publishes the XR's Secret (only the XRD's ``connectionSecretKeys``) and the
claim reconciler copies it to the claim's namespace.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from crossfn import errors

from . import claim_fixtures as cf
from .test_composite import FIELD_MANAGER, condition

pytestmark = pytest.mark.cluster


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.fixture
async def namespace() -> AsyncIterator[str]:
    yield f"h3s-{uuid.uuid4().hex[:8]}"


def resource(world: cf.ClaimWorld) -> dict[str, Any]:
    instance = world.instance(
        connectionDetails=[
            {"name": "password", "type": "FromConnectionSecretKey", "fromConnectionSecretKey": "password"},
            {"name": "endpoint", "type": "FromFieldPath", "fromFieldPath": "status.endpoint"},
            {"name": "internal", "type": "FromValue", "value": "not-for-claims"},
        ]
    )
    instance["base"]["spec"]["writeConnectionSecretToRef"] = {
        "name": "instance-conn",
        "namespace": world.secrets_namespace,
    }
    instance["patches"].append(
        {"type": "ToCompositeFieldPath", "fromFieldPath": "status.endpoint", "toFieldPath": "status.address"}
    )
    return instance


async def provide(kube: Any, world: cf.ClaimWorld, instance: dict[str, Any], password: str) -> None:
    """What a provider does: write the composed resource's connection Secret and mark it Ready with an endpoint."""
    body = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "instance-conn", "namespace": world.secrets_namespace},
            "type": "connection.crossplane.io/v1alpha1", "data": {"password": b64(password)}}  # fmt: skip
    await kube.apply(body, field_manager="provider", force=True)
    status = {"endpoint": "db.example:5432", "conditions": [
        {"type": "Ready", "status": "True", "reason": "Available", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}  # fmt: skip
    await kube.apply({"apiVersion": cf.COMPOSED_API, "kind": cf.COMPOSED_KIND, "metadata": {"name": instance["metadata"]["name"]},
                      "status": status}, field_manager="provider", force=True, status=True)  # fmt: skip


async def secret(kube: Any, name: str, namespace: str) -> dict[str, Any]:
    found: dict[str, Any] | None = await kube.get("v1", "Secret", name, namespace)
    assert found is not None, f"Secret {namespace}/{name}"
    return found


async def provisioned(kube: Any, world: cf.ClaimWorld, password: str = "hunter2") -> dict[str, Any]:
    """A claim whose XR composed an instance the provider made ready; the XR reconciled once more."""
    await world.start([resource(world)])
    await world.create_claim("db", writeConnectionSecretToRef={"name": "db-conn"})
    xr = await world.settle("db")
    [instance] = await world.composed(xr["metadata"]["name"])
    await provide(kube, world, instance, password)
    await world.reconcile_xr(xr["metadata"]["name"])
    found = await world.xr(xr["metadata"]["name"])
    assert found is not None
    return found


async def test_details_flow_from_the_composed_secret_to_the_claims(
    kube: Any, crossplane_crds: list[str], namespace: str
) -> None:
    world = cf.ClaimWorld(kube, namespace, connection_keys=["password", "endpoint"])
    xr = await provisioned(kube, world)
    name, uid = xr["metadata"]["name"], xr["metadata"]["uid"]
    assert xr["spec"]["writeConnectionSecretToRef"] == {"name": uid, "namespace": world.secrets_namespace}, (
        "defaulted to the XR's UID in the Composition's writeConnectionSecretsToNamespace"
    )
    xr_secret = await secret(kube, uid, world.secrets_namespace)
    assert xr_secret["type"] == "connection.crossplane.io/v1alpha1"
    assert xr_secret["data"] == {"password": b64("hunter2"), "endpoint": b64("db.example:5432")}, (
        "the pipeline's details, only the XRD's connectionSecretKeys"
    )
    [owner] = xr_secret["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == (cf.XR_KIND, name, uid, True)
    assert xr["status"]["connectionDetails"]["lastPublishedTime"]
    assert xr["status"]["address"] == "db.example:5432", "ToCompositeFieldPath reached the XR's status"
    assert (
        "Normal",
        "PublishConnectionSecret",
        "Successfully published connection details",
    ) in await world.events(name, "default")

    await world.reconcile_claim("db")
    claim = await world.claim("db")
    assert claim is not None
    assert condition(claim, "Ready")[:2] == ("True", "Available")
    assert claim["status"]["address"] == "db.example:5432", "the XR's status is the claim's"
    assert claim["status"]["connectionDetails"]["lastPublishedTime"]
    claim_secret = await secret(kube, "db-conn", namespace)
    assert claim_secret["type"] == "connection.crossplane.io/v1alpha1"
    assert claim_secret["data"] == xr_secret["data"], "the claim's Secret is a copy of the XR's"
    [owner] = claim_secret["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == (
        cf.CLAIM_KIND,
        "db",
        claim["metadata"]["uid"],
        True,
    )
    assert (
        "Normal",
        "PropagateConnectionSecret",
        "Successfully propagated connection details from composite resource",
    ) in (await world.events("db", namespace))

    [instance] = await world.composed(name)
    await provide(kube, world, instance, "rotated")
    await world.reconcile_xr(name)
    await world.reconcile_claim("db")
    assert (await secret(kube, "db-conn", namespace))["data"]["password"] == b64("rotated"), (
        "a rotated key reaches the claim"
    )


async def test_a_claim_secret_owned_by_someone_else(
    kube: Any, crossplane_crds: list[str], namespace: str
) -> None:
    world = cf.ClaimWorld(kube, namespace)
    await kube.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        field_manager=FIELD_MANAGER,
    )
    theirs = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db-conn", "namespace": namespace},
              "type": "Opaque", "data": {"theirs": b64("keep")}}  # fmt: skip
    await kube.create(theirs)
    await provisioned(kube, world)
    with pytest.raises(errors.CrossfnError):
        await world.reconcile_claim("db")
    want = ("cannot propagate connection details from composite resource: cannot create or update connection secret: "
            'refusing to modify uncontrolled secret of type "Opaque"')  # fmt: skip
    assert condition(await world.claim("db"), "Synced") == ("False", "ReconcileError", want)
    assert ("Warning", "PropagateConnectionSecret", want) in await world.events("db", namespace)
    assert (await secret(kube, "db-conn", namespace))["data"] == {"theirs": b64("keep")}, (
        "their Secret is untouched"
    )
