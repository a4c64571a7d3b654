"""Operation functions the ops cluster tests serve with ``crossfn function serve``.

``report`` writes a ConfigMap ``report-<step input's name>`` in namespace ``ops-e2e`` holding what it
saw (the watched resource's name, the ConfigMaps labelled ``ops-e2e/input``), and sets the same as
its output. ``fails`` always returns a fatal result.
"""

from __future__ import annotations

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import request, resource, response

NAMESPACE = "ops-e2e"


def report(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    name = resource.struct_to_dict(req.input).get("name", "unnamed") if req.HasField("input") else "unnamed"
    response.require_resources(
        rsp, "inputs", "v1", "ConfigMap", match_labels={"ops-e2e/input": "yes"}, namespace=NAMESPACE
    )
    watched = request.get_watched_resource(req) or {}
    inputs = sorted(cm["metadata"]["name"] for cm in request.get_required_resources(req, "inputs"))
    seen = {"watched": watched.get("metadata", {}).get("name", ""), "inputs": ",".join(inputs)}
    response.set_output(rsp, {**seen, "observed": req.HasField("observed")})
    response.set_desired_composed_resource(
        rsp,
        "report",
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"report-{name}", "namespace": NAMESPACE},
            "data": seen,
        },
    )
    response.normal(rsp, f"reported {name}")


def fails(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    response.fatal(rsp, "cannot reach the fleet")
