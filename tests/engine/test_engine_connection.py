"""Legacy connection details (upstream core-2.16; core-4.9 TestSecretConnectionDetailsFetcher)."""

from typing import Any

import pytest

from crossfn import engine
from crossfn.engine import _connection


@pytest.mark.parametrize(
    ("obj", "want", "reason"),
    [
        pytest.param(
            {"spec": {}}, None, "No writeConnectionSecretToRef: nothing to read.", id="DoesNotPublish"
        ),
        pytest.param(
            {"spec": {"writeConnectionSecretToRef": {"name": "s", "namespace": "ref-ns"}}},
            ("ref-ns", "s"),
            "A cluster-scoped owner uses the ref's namespace.",
            id="ClusterScopedOwner",
        ),
        pytest.param(
            {
                "metadata": {"namespace": "own-ns"},
                "spec": {"writeConnectionSecretToRef": {"name": "s", "namespace": "ref-ns"}},
            },
            ("own-ns", "s"),
            "A namespaced owner uses its own namespace.",
            id="NamespacedOwner",
        ),
    ],
)
def test_TestSecretConnectionDetailsFetcher(
    obj: dict[str, Any], want: tuple[str, str] | None, reason: str
) -> None:
    assert _connection.secret_ref(obj) == want, reason


XR: dict[str, Any] = {
    "apiVersion": "example.org/v1",
    "kind": "XDatabase",
    "metadata": {"name": "db", "uid": "uid-1"},
    "spec": {"writeConnectionSecretToRef": {"name": "db-conn", "namespace": "crossplane-system"}},
}


@pytest.mark.parametrize(
    ("keys", "want", "reason"),
    [
        pytest.param(
            [],
            {"password": "aHVudGVyMg==", "user": "YWRtaW4="},
            "No connectionSecretKeys: every key is published.",
            id="AllKeys",
        ),
        pytest.param(
            ["user"],
            {"user": "YWRtaW4="},
            "Only the XRD's connectionSecretKeys are published.",
            id="FilteredKeys",
        ),
    ],
)
def test_connection_secret(keys: list[str], want: dict[str, str], reason: str) -> None:
    secret = _connection.connection_secret(XR, {"user": b"admin", "password": b"hunter2"}, keys)
    assert secret is not None
    assert secret["data"] == want, reason
    assert secret["type"] == "connection.crossplane.io/v1alpha1", "Crossplane's connection secret type"
    assert secret["metadata"]["namespace"] == "crossplane-system" and secret["metadata"]["name"] == "db-conn"
    assert secret["metadata"]["ownerReferences"][0]["controller"] is True, "the XR controls its secret"


def test_modern_xr_publishes_nothing() -> None:
    assert _connection.connection_secret({"spec": {}}, {"a": b"b"}) is None, "no ref, no secret"


async def test_legacy_compose_reports_the_secret_to_publish() -> None:
    def fn(req: Any, rsp: Any) -> None:
        assert dict(req.observed.composite.connection_details) == {"old": b"x"}, (
            "a legacy XR's observed details are sent"
        )
        rsp.desired.composite.connection_details["user"] = b"admin"

    options = engine.ComposeOptions.controller(engine.CompositeSchema.LEGACY)
    runner = engine.build_runner(engine.InProcessRunner({"fn": fn}))
    result = await engine.compose(
        {**XR, "metadata": {**XR["metadata"], "labels": {"crossplane.io/composite": "db"}}},
        [engine.PipelineStep("s", "fn")], runner, options=options, xr_connection_details={"old": b"x"},
        tracer=engine.NoTracer(),
    )  # fmt: skip
    assert result.connection_details == {"user": b"admin"}, "the XR's details are exactly the pipeline's"
    assert result.connection_secret is not None and result.connection_secret["data"] == {"user": "YWRtaW4="}
