"""An operation function: stamp each ConfigMap it is given with when it was checked, and report what it saw.

Run by an Operation, it requires the ConfigMaps labelled ``example.org/check: "true"`` in
``default``; run by a WatchOperation, it checks the ConfigMap that changed (the watched resource),
unless that one already carries the stamp. What it returns is server-side applied, so it returns
only the fields it owns: the annotation. Each Operation applies as a field owner of its own, so
every apply changes the ConfigMap (its managed fields) even when the value is the same: stamping
a watched ConfigMap again would start the WatchOperation again, for ever.
"""

from __future__ import annotations

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import request, resource, response


def check(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    stamp = resource.struct_to_dict(req.input).get("stamp", "checked") if req.HasField("input") else "checked"
    watched = request.get_watched_resource(req)
    if watched is None:
        response.require_resources(
            rsp,
            "configmaps",
            "v1",
            "ConfigMap",
            match_labels={"example.org/check": "true"},
            namespace="default",
        )
        targets = request.get_required_resources(req, "configmaps")
    elif watched.get("metadata", {}).get("annotations", {}).get("example.org/last-checked") == stamp:
        targets = []
    else:
        targets = [watched]
    for cm in targets:
        meta = cm["metadata"]
        response.set_desired_composed_resource(
            rsp,
            f"{meta.get('namespace', '')}-{meta['name']}",
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": meta["name"],
                    "namespace": meta.get("namespace", "default"),
                    "annotations": {"example.org/last-checked": stamp},
                },
            },
        )
    response.set_output(rsp, {"checked": sorted(cm["metadata"]["name"] for cm in targets)})
    response.normal(rsp, f"checked {len(targets)} ConfigMaps")
