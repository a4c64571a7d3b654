"""Benchmark: the controller against a local API server, next to a bare server-side-apply loop.

The bare loop is the yardstick: the same objects the controller would compose
(N XRs x 10 composed resources), server-side-applied once each through the same
client (``KubeApi``: same connection pool, same JSON encoding, same field
manager) with the same concurrency as the controller's workers. Its applies per
second are what the API server and etcd on this machine can take; the controller's
composed applies per second are compared with it (target: at least 70% at N = 500).

This file holds the bare half. ``bare_loop`` is importable; run alone, the file
measures it on ConfigMaps against a fresh envtest control plane (or ``--kubeconfig``):

    KUBEBUILDER_ASSETS=... python benchmarks/controller.py [--xrs 100 500] [--concurrency 10]
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from crossfn.controller import _kube
from crossfn.controller import envtest as envtest_module

COMPOSED_PER_XR = 10
FIELD_MANAGER = "crossfn-benchmark"


async def bare_loop(
    api: _kube.KubeApi,
    objects: Sequence[Mapping[str, Any]],
    *,
    concurrency: int = 10,
    field_manager: str = FIELD_MANAGER,
) -> float:
    """Server-side-apply every object once with ``concurrency`` workers; return applies per second.

    ``objects`` are applied exactly as given (the caller builds the N x 10 composed
    resources, in a namespace it owns); the kinds must already be served. The
    workers pull from one shared iterator, as the controller's workers pull keys
    from its queue, so at most ``concurrency`` requests are in flight. Any API
    error fails the benchmark: a rejected object would make the figure meaningless.
    """
    pending: Iterator[Mapping[str, Any]] = iter(objects)

    async def worker() -> None:
        for obj in pending:
            await api.apply(obj, field_manager=field_manager, force=True)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return len(objects) / (time.perf_counter() - started)


def configmaps(xrs: int, namespace: str) -> list[dict[str, Any]]:
    """``xrs`` x 10 small ConfigMaps, shaped like composed resources (labels, an annotation, data)."""
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": f"xr-{x}-{c}",
                "namespace": namespace,
                "labels": {"crossplane.io/composite": f"xr-{x}"},
                "annotations": {"crossplane.io/composition-resource-name": f"resource-{c}"},
            },
            "data": {"index": str(c), "region": "eu-north-1"},
        }
        for x in range(xrs)
        for c in range(COMPOSED_PER_XR)
    ]


async def _measure(kubeconfig: str, sizes: Sequence[int], concurrency: int) -> None:
    api = _kube.KubeApi.from_kubeconfig(kubeconfig)
    try:
        for xrs in sizes:
            namespace = f"bench-{uuid.uuid4().hex[:8]}"
            await api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
            rate = await bare_loop(api, configmaps(xrs, namespace), concurrency=concurrency)
            print(f"bare loop  N={xrs:<4} objects={xrs * COMPOSED_PER_XR:<5} applies/s={rate:8.1f}")
    finally:
        await api.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xrs", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--kubeconfig", help="an existing API server (default: start envtest)")
    args = parser.parse_args()
    if args.kubeconfig:
        asyncio.run(_measure(args.kubeconfig, args.xrs, args.concurrency))
        return
    env = envtest_module.Environment()
    env.start()
    try:
        asyncio.run(_measure(env.kubeconfig, args.xrs, args.concurrency))
    finally:
        env.stop()


if __name__ == "__main__":
    main()
