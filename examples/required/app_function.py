"""A crossfn SDK function run in-process by render's InProcess runtime (``app_function:compose``).

It needs two things from outside the XR, declared as bootstrap requirements
on its pipeline step: the team's ``ConfigMap`` (by name) and the cluster's
``Network`` objects (by label). It also asks, at run time, for the OpenAPI
schema of ``apps/v1`` ``Deployment`` and writes the fields that schema allows
into the XR status. Render answers from ``-e`` files and the ``-s`` schema
directory.
"""

from __future__ import annotations

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import request, response


def compose(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    xr = request.get_observed_composite_resource(req)
    team = request.get_required_resource(req, "team-config")
    networks = request.get_required_resources(req, "networks")
    response.require_schema(rsp, "deployment", "apps/v1", "Deployment")
    if team is None:
        response.warning(rsp, "team ConfigMap not found; using 1 replica")
    replicas = int((team or {}).get("data", {}).get("replicas", "1"))
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": xr["metadata"]["name"]}},
            "template": {
                "metadata": {
                    "labels": {"app": xr["metadata"]["name"]},
                    "annotations": {
                        "example.org/networks": ", ".join(n["metadata"]["name"] for n in networks)
                    },
                },
                "spec": {"containers": [{"name": "app", "image": xr["spec"]["image"]}]},
            },
        },
    }
    response.set_desired_composed_resource(rsp, "deployment", deployment)
    schema = request.get_required_schema(req, "deployment")
    spec_fields = sorted((schema or {}).get("properties", {}).get("spec", {}).get("properties", {}))
    response.set_desired_composite_status(
        rsp, {"networks": len(networks), "deploymentSpecFields": spec_fields}
    )
