"""Operation functions for ``crossfn render op``'s tests, run in-process."""

from __future__ import annotations

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import request, response


def applies(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Upstream's fixture: apply one resource."""
    response.set_desired_composed_resource(
        rsp,
        "applied-foo",
        {
            "apiVersion": "example.org/v1alpha1",
            "kind": "AppliedResource",
            "metadata": {"name": "applied-foo"},
            "spec": {"coolField": "applied!"},
        },
    )


def reports(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Read what the Operation was given, write it to the output, apply a ConfigMap per required resource."""
    watched = request.get_watched_resource(req)
    nodes = request.get_required_resources(req, "nodes")
    secret = request.get_credentials(req, "token")
    context, _ = request.get_context_key(req, "example.org/team")
    response.require_resources(rsp, "nodes", "v1", "Node", match_labels={"pool": "blue"})
    response.set_output(
        rsp,
        {
            "watched": (watched or {}).get("metadata", {}).get("name"),
            "nodes": [n["metadata"]["name"] for n in nodes],
            "token": secret.data.get("token", b"").decode(),
            "team": context,
            "ratio": 0.25,
        },
    )
    for n in nodes:
        name = n["metadata"]["name"]
        response.set_desired_composed_resource(
            rsp,
            name,
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": f"checked-{name}", "namespace": "ops"},
                "data": {"node": name},
                "status": {
                    "conditions": [
                        {
                            "type": "Ready",
                            "status": "True",
                            "reason": "Checked",
                            "lastTransitionTime": "2026-05-05T05:05:05Z",
                        }
                    ]
                },
            },
        )
    response.normal(rsp, f"checked {len(nodes)} nodes")
    response.warning(rsp, "token is old")
    response.set_context_key(rsp, "example.org/checked", len(nodes))


def applies_infinity(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Apply a resource holding a number Go's JSON (and so its YAML) cannot write."""
    response.set_desired_composed_resource(
        rsp,
        "huge",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "huge"}, "x": float("inf")},
    )


def fails(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    response.fatal(rsp, "cannot reach the cluster")
