"""The worker process that runs KCL programs; started by ``crossfn.functions._sandbox``, never imported by crossfn.

It runs as ``python -I _worker.py <memory limit bytes>`` and imports only
kcl-lib, so it starts fast and a hostile program cannot reach crossfn's state.
Each stdin line is a JSON job::

    {"code": <inline source or null>, "files": [...], "work_dir": "...",
     "args": [[name, json value], ...], "pkgs": [[name, path], ...],
     "options": {...}, "settings": [...], "max_output": <bytes>}

and each stdout line is ``{"ok": "<the program's JSON result>"}`` or
``{"error": "<KCL's message>"}``. The limits: ``RLIMIT_AS`` turns a runaway
allocation into an abort of this process (the parent reports it), and the
parent kills this process at its deadline, since the KCL runtime cannot be
interrupted. The output limit is checked here, before the reply is sent.
"""

from __future__ import annotations

import contextlib
import json
import resource
import sys
from typing import Any

import kcl_lib.api as kcl_api

PROGRAM_FILE = "prog.k"
"""The name an inline program runs under, as function-kcl's own (KCL's messages say ``File prog.k:<line>``)."""


def _args(job: dict[str, Any]) -> kcl_api.ExecProgramArgs:
    options: dict[str, Any] = job.get("options") or {}
    args = kcl_api.ExecProgramArgs(
        work_dir=job.get("work_dir") or "",
        k_filename_list=job.get("files") or [PROGRAM_FILE],
        k_code_list=[job["code"]] if job.get("code") is not None else [],
        args=[kcl_api.Argument(name=n, value=v) for n, v in job.get("args", [])],
        external_pkgs=[kcl_api.ExternalPkg(pkg_name=n, pkg_path=p) for n, p in job.get("pkgs", [])],
        overrides=options.get("overrides") or [],
        path_selector=options.get("path_selector") or [],
        disable_none=bool(options.get("disable_none")),
        sort_keys=bool(options.get("sort_keys")),
        show_hidden=bool(options.get("show_hidden")),
        strict_range_check=bool(options.get("strict_range_check")),
        debug=1 if options.get("debug") else 0,
    )
    settings = job.get("settings") or []
    if settings:
        from kcl_lib import kcl  # noqa: PLC0415 -- only settings files need kcl-lib's reader of them

        for path in settings:
            kcl._apply_settings(args, path)
    return args


def run(api: kcl_api.API, job: dict[str, Any]) -> dict[str, Any]:
    """Run one job; returns the protocol reply."""
    try:
        result = api.exec_program(_args(job))
    except Exception as exc:
        return {"error": str(exc)}
    if result.err_message:
        return {"error": result.err_message}
    out = result.json_result
    if len(out) > job["max_output"]:
        return {"too_large": len(out)}
    return {"ok": out}


def serve(memory_limit: int) -> None:
    """Answer jobs until stdin closes."""
    if memory_limit > 0:
        # Some kernels (macOS) refuse RLIMIT_AS; the time and output limits still hold there.
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    api = kcl_api.API()
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        try:
            reply = run(api, json.loads(line))
        except MemoryError:
            reply = {"memory": True}
        out.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    serve(int(sys.argv[1]))
