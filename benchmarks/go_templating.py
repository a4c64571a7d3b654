"""Benchmark: function-go-templating's compose time for a template that renders 50 composed resources.

The template is shaped as the corpus's are: a ``range`` over the XR's spec
(50 entries), each rendering a resource with its name annotation, fields
read from the XR and the entry, Sprig's ``quote``, ``default``, ``nindent`` and
``b64enc``, ``printf``, ``toYaml`` and a read of the observed resource of
the same name; then the XR's status and connection details. Half the resources are observed. Target
(issue 19): at most 50 ms in-process.

Run:  python benchmarks/go_templating.py [--repeat N] [--write]
It prints the commit measured and a table; with --write it also rewrites the
"go-templating" section of docs/performance.md.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path
from typing import Any

import _provenance

from crossfn.functions import go_templating
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

RESOURCES = 50
TARGET_MS = 50.0
ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
SECTION = "## go-templating"

TEMPLATE = """\
{{- $xr := .observed.composite.resource }}
{{- range $i, $b := $xr.spec.buckets }}
---
apiVersion: s3.aws.upbound.io/v1beta1
kind: Bucket
metadata:
  name: {{ $xr.metadata.name }}-{{ $b.name }}
  annotations:
    {{ setResourceNameAnnotation (printf "bucket-%s" $b.name) }}
  labels:
    team: {{ $xr.spec.team | quote }}
    index: {{ printf "%03d" $i | quote }}
spec:
  forProvider:
    region: {{ $b.region | default $xr.spec.region }}
    tags:
      {{- toYaml $b.tags | nindent 6 }}
{{- with getComposedResource $ (printf "bucket-%s" $b.name) }}
  providerConfigRef:
    name: {{ .spec.providerConfigRef.name }}
{{- end }}
{{- end }}
---
apiVersion: example.org/v1
kind: XBuckets
status:
  buckets: {{ len $xr.spec.buckets }}
  ready: {{ len .observed.resources }}
---
apiVersion: meta.gotemplating.fn.crossplane.io/v1alpha1
kind: CompositeConnectionDetails
data:
  url: {{ printf "https://%s.example.org" $xr.metadata.name | b64enc | quote }}
"""


def build_request(n: int = RESOURCES) -> fnv1.RunFunctionRequest:
    """The XR has ``n`` buckets; every other one is already observed."""
    buckets = [
        {
            "name": f"b{i}",
            **({"region": "eu-north-1"} if i % 3 == 0 else {}),
            "tags": {"k": f"v{i}"},
        }
        for i in range(n)
    ]
    xr = {
        "apiVersion": "example.org/v1",
        "kind": "XBuckets",
        "metadata": {"name": "bench"},
        "spec": {"team": "data", "region": "us-east-2", "buckets": buckets},
    }
    inp = {"apiVersion": "gotemplating.fn.crossplane.io/v1beta1", "kind": "GoTemplate", "source": "Inline"}
    inp["inline"] = {"template": TEMPLATE}
    req = fnv1.RunFunctionRequest(input=resource.dict_to_struct(inp))
    req.observed.composite.resource.CopyFrom(resource.dict_to_struct(xr))
    req.desired.composite.resource.CopyFrom(resource.dict_to_struct(xr))
    for i in range(0, n, 2):
        obs: dict[str, Any] = {
            "apiVersion": "s3.aws.upbound.io/v1beta1",
            "kind": "Bucket",
            "metadata": {"name": f"bench-b{i}"},
            "spec": {"providerConfigRef": {"name": "default"}},
        }
        req.observed.resources[f"bucket-b{i}"].resource.CopyFrom(resource.dict_to_struct(obs))
    return req


def measure(repeat: int) -> float:
    """Median CPU time of one compose call (request building excluded), after a warm-up call."""
    req = build_request()
    times = []
    for k in range(repeat + 1):
        rsp = response.to(req)
        start = time.process_time()
        go_templating.compose(req, rsp)
        elapsed = time.process_time() - start
        if rsp.results:
            raise SystemExit(f"benchmark request failed: {rsp.results[0].message}")
        if len(rsp.desired.resources) != RESOURCES:
            raise SystemExit(f"benchmark rendered {len(rsp.desired.resources)} resources, not {RESOURCES}")
        if k:
            times.append(elapsed)
    return statistics.median(times)


def _table(t: float, commit: str) -> str:
    verdict = "met" if t * 1000 <= TARGET_MS else "missed"
    return "\n".join(
        [
            "| composed resources | median compose CPU time | per resource | target | commit |",
            "|---:|---:|---:|---|---|",
            f"| {RESOURCES} | {t * 1000:.1f} ms | {t / RESOURCES * 1e6:.0f} µs | ≤ {TARGET_MS:.0f} ms: {verdict} | {commit} |",
        ]
    )


def _write(table: str, repeat: int) -> None:
    body = (
        f"{SECTION}\n\n"
        "Compose time of the built-in function-go-templating (`crossfn.functions.go_templating.compose`, v0.12.2)\n"
        "for a template that renders 50 composed resources (a `range` over the XR's spec, fields, Sprig's `quote`,\n"
        "`default`, `nindent` and `b64enc`, `printf`, `toYaml`, `getComposedResource`), plus the XR's status and\n"
        "connection details; half the resources observed. Parsing the template, running it on the request and\n"
        "reading the output back are all counted; Sprig's function map is built once per process, as Go's is.\n"
        "Target: at most 50 ms in-process.\n"
        f"Measured with `python benchmarks/go_templating.py` (median CPU time of {repeat} runs) on\n"
        f"Python {platform.python_version()}, {platform.machine()}.\n"
        "The Go function's own time for the same template cannot be measured here (no Go toolchain is\n"
        "installed), and no published figure for it was found.\n\n"
        f"{table}\n"
    )
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Performance\n"
    if SECTION in text:
        start = text.index(SECTION)
        nxt = text.find("\n## ", start + len(SECTION))
        text = text[:start] + body + ("\n" + text[nxt + 1 :] if nxt >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + body
    DOC.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument(
        "--write", action="store_true", help="also rewrite this section of docs/performance.md"
    )
    args = parser.parse_args()
    commit = _provenance.commit()
    print(_provenance.line(), flush=True)
    table = _table(measure(args.repeat), commit)
    print(table)
    if args.write:
        _write(table, args.repeat)


if __name__ == "__main__":
    main()
