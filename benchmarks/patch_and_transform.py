"""Benchmark: patch-and-transform compose time for 10, 100 and 1,000 composed resources.

Each composed resource has a base and five patches (a plain copy, a map
transform, a convert+math chain, a string format and a combine), the mix a
typical P&T Composition uses. The request carries an observed XR and, for half
the resources, observed composed resources, so ToComposite patches and
readiness checks run too. Target (issue 5): 1,000 resources in at most 1 s on
one core, and linear growth.

Run:  python benchmarks/patch_and_transform.py [--repeat N] [--write]
It prints a table; with --write it also rewrites the "patch-and-transform"
section of docs/performance.md.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path
from typing import Any

import _provenance

from crossfn.functions import patch_and_transform
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

SIZES = (10, 100, 1000)
DOC = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
SECTION = "## patch-and-transform"


def _template(i: int) -> dict[str, Any]:
    return {
        "name": f"bucket-{i}",
        "base": {
            "apiVersion": "s3.aws.upbound.io/v1beta1",
            "kind": "Bucket",
            "spec": {"forProvider": {"region": "us-east-2", "tags": {"index": str(i)}}},
        },
        "patches": [
            {
                "fromFieldPath": "metadata.labels",
                "toFieldPath": "metadata.labels",
                "policy": {"toFieldPath": "MergeObjects"},
            },
            {
                "fromFieldPath": "spec.location",
                "toFieldPath": "spec.forProvider.region",
                "transforms": [{"type": "map", "map": {"EU": "eu-north-1", "US": "us-east-2"}}],
            },
            {
                "fromFieldPath": "spec.sizeGiB",
                "toFieldPath": "spec.forProvider.sizeMiB",
                "transforms": [
                    {"type": "convert", "convert": {"toType": "int64"}},
                    {"type": "math", "math": {"type": "Multiply", "multiply": 1024}},
                ],
            },
            {
                "fromFieldPath": "metadata.name",
                "toFieldPath": "metadata.annotations[crossplane.io/external-name]",
                "transforms": [{"type": "string", "string": {"type": "Format", "fmt": f"%s-{i}"}}],
            },
            {
                "type": "CombineFromComposite",
                "toFieldPath": "spec.forProvider.tags.owner",
                "combine": {
                    "strategy": "string",
                    "variables": [{"fromFieldPath": "spec.team"}, {"fromFieldPath": "spec.location"}],
                    "string": {"fmt": "%s-%s"},
                },
            },
        ],
        "readinessChecks": [
            {"type": "MatchString", "fieldPath": "status.atProvider.state", "matchString": "ready"}
        ],
    }


def build_request(n: int) -> fnv1.RunFunctionRequest:
    """A request with ``n`` templates of five patches each; every other resource is already observed."""
    xr = {
        "apiVersion": "example.org/v1",
        "kind": "XBuckets",
        "metadata": {"name": "bench", "labels": {"team": "data"}},
        "spec": {"location": "EU", "sizeGiB": "10", "team": "data"},
    }
    req = fnv1.RunFunctionRequest(
        input=resource.dict_to_struct(
            {
                "apiVersion": "pt.fn.crossplane.io/v1beta1",
                "kind": "Resources",
                "resources": [_template(i) for i in range(n)],
            }
        )
    )
    req.observed.composite.resource.CopyFrom(resource.dict_to_struct(xr))
    req.desired.composite.resource.CopyFrom(resource.dict_to_struct(xr))
    for i in range(0, n, 2):
        obs = {
            "apiVersion": "s3.aws.upbound.io/v1beta1",
            "kind": "Bucket",
            "metadata": {"name": f"bench-{i}"},
            "status": {"atProvider": {"state": "ready"}},
        }
        req.observed.resources[f"bucket-{i}"].resource.CopyFrom(resource.dict_to_struct(obs))
    return req


def measure(n: int, repeat: int) -> float:
    """Median CPU time of one compose call over ``repeat`` runs (request building excluded).

    CPU time of this process, not wall time: the target is "on one core", and a
    busy machine would otherwise inflate the figures.
    """
    req = build_request(n)
    times = []
    for _ in range(repeat):
        rsp = response.to(req)
        start = time.process_time()
        patch_and_transform.compose(req, rsp)
        times.append(time.process_time() - start)
        if any(r.severity == fnv1.SEVERITY_FATAL for r in rsp.results):
            raise SystemExit(f"benchmark request failed: {rsp.results[0].message}")
    return statistics.median(times)


def _table(rows: list[tuple[int, float]]) -> str:
    lines = [
        "| composed resources | patches | median compose CPU time | per resource |",
        "|---:|---:|---:|---:|",
    ]
    for n, t in rows:
        lines.append(f"| {n:,} | {5 * n:,} | {t * 1000:.1f} ms | {t / n * 1e6:.0f} µs |")
    return "\n".join(lines)


def _write(table: str, repeat: int) -> None:
    body = (
        f"{SECTION}\n\n"
        "Compose time of the built-in function-patch-and-transform (`crossfn.functions.patch_and_transform.compose`),\n"
        "five patches per composed resource (copy, map, convert+math, format, combine), half the resources observed\n"
        "with a readiness check. Target: 1,000 resources in at most 1 s on one core, linear growth.\n"
        f"Measured at commit `{_provenance.commit()}` with `python benchmarks/patch_and_transform.py` (median CPU time of {repeat} runs) on\n"
        f"Python {platform.python_version()}, {platform.machine()}.\n\n{table}\n"
    )
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Performance\n"
    if SECTION in text:
        start = text.index(SECTION)
        nxt = text.find("\n## ", start + len(SECTION))
        text = text[:start] + body + ("\n" + text[nxt + 1 :] if nxt >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + body
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--write", action="store_true", help="also rewrite this section of docs/performance.md"
    )
    args = parser.parse_args()
    print(_provenance.line(), flush=True)
    rows = [(n, measure(n, args.repeat)) for n in SIZES]
    table = _table(rows)
    print(table)
    if args.write:
        _write(table, args.repeat)


if __name__ == "__main__":
    main()
