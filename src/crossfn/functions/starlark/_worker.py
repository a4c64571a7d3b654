"""The sandbox process that runs Starlark scripts; started by ``crossfn.functions._sandbox``, never imported by crossfn.

It runs as ``python -I _worker.py <memory limit bytes>`` and imports nothing
from crossfn, so it starts fast and a broken script cannot reach crossfn's
state. Each stdin line is a JSON job ``{"script", "req", "timeout",
"max_output"}``; each stdout line is ``{"ok": <response dict>}`` or
``{"error": "<one line>"}``.

The limits, in depth:

* Starlark itself has no file system, network, clock or randomness, and the
  dialect refuses ``load()``; only the ``json`` extension and our helpers
  (``_PRELUDE``, ``child_name``) are added.
* Execution time: the evaluator asks ``check_cancelled`` between instructions;
  past the deadline it stops with "Evaluation cancelled" and the current line.
  A single builtin call (``"a" * 10**9``) never asks, so the parent also kills
  this process at a hard deadline.
* Memory: ``RLIMIT_AS`` makes a runaway allocation fail here instead of in the
  server; the process then dies and the parent reports it.
* Output: the JSON response is measured before it is sent.

Bytes (connection details, credentials) travel as ``{"base64": ...}`` dicts,
as ``crossfn.functions.starlark._data`` explains; ``text`` and ``from_base64``
are the helpers for them, written here because this process imports nothing
from crossfn.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import resource
import sys
import time
from collections.abc import Callable
from typing import Any

import starlark

SCRIPT_FILE = "script.star"

_PRELUDE = '''
def response_to(req):
    """Start a response that keeps the desired state and context, as every step should."""
    return {"desired": req["desired"], "context": req["context"], "results": [], "conditions": []}

def _result(rsp, severity, message, reason, target):
    r = {"severity": severity, "message": message}
    if reason != None:
        r["reason"] = reason
    if target != None:
        r["target"] = target
    rsp.setdefault("results", []).append(r)
    return rsp

def normal(rsp, message, reason = None, target = None):
    return _result(rsp, "SEVERITY_NORMAL", message, reason, target)

def warning(rsp, message, reason = None, target = None):
    return _result(rsp, "SEVERITY_WARNING", message, reason, target)

def fatal(rsp, message, reason = None, target = None):
    return _result(rsp, "SEVERITY_FATAL", message, reason, target)

def set_condition(rsp, type, status, reason, message = None, target = None):
    c = {"type": type, "status": "STATUS_CONDITION_" + status.upper(), "reason": reason}
    if message != None:
        c["message"] = message
    if target != None:
        c["target"] = target
    rsp.setdefault("conditions", []).append(c)
    return rsp

def set_ready(rsp, name, ready = True):
    res = rsp["desired"]["resources"][name]
    res["ready"] = "READY_TRUE" if ready else "READY_FALSE"
    return rsp

def require_resources(rsp, name, api_version, kind, match_name = None, match_labels = None, namespace = None):
    sel = {"api_version": api_version, "kind": kind}
    if match_name != None:
        sel["match_name"] = match_name
    else:
        sel["match_labels"] = {"labels": match_labels or {}}
    if namespace != None:
        sel["namespace"] = namespace
    reqs = rsp.setdefault("requirements", {})
    reqs.setdefault("resources", {})[name] = sel
    return rsp

def credentials(req, name):
    """The data of the step's credentials name (key -> bytes value), or None without them."""
    found = req["credentials"].get(name)
    if found == None:
        return None
    return found.get("credential_data", {}).get("data", {})

def required_resources(req, name):
    """The resources fetched for requirement name, or None while Crossplane has not resolved it."""
    found = req["required_resources"].get(name) or req["extra_resources"].get(name)
    if found == None:
        return None
    return [item["resource"] for item in found.get("items", [])]
'''


def child_name(parent: str, uid: str, name: str) -> str:
    """Crossplane's deterministic composed-resource name (ChildName)."""
    suffix = hashlib.sha256((uid + name).encode()).hexdigest()[:12]
    prefix = parent
    if prefix and not prefix.endswith("-"):
        prefix += "-"
    if len(prefix + suffix) <= 63:
        return prefix + suffix
    prefix = prefix[:51]
    if not prefix.endswith("-"):
        prefix = prefix[:50] + "-"
    return prefix + suffix


_BYTES_KEY = "base64"


class HelperError(Exception):
    """A helper was given something it cannot use; the message reaches the user without this name."""


def _decode(helper: str, b64: object) -> bytes:
    if not isinstance(b64, str):
        raise HelperError(f"{helper}: want a base64 string, not {type(b64).__name__}")
    try:
        return base64.b64decode(b64, validate=True)
    except ValueError as exc:  # binascii.Error, or non-ASCII text
        raise HelperError(f"{helper}: invalid base64: {exc}") from exc


def text_of(value: object) -> str:
    """``text(value)``: the UTF-8 text a bytes value holds; a string is already text and comes back as it is."""
    if isinstance(value, str):
        return value
    if not (isinstance(value, dict) and set(value) == {_BYTES_KEY}):
        raise HelperError(
            f'text: want a bytes value {{"{_BYTES_KEY}": ...}} or a string, not {type(value).__name__}'
        )
    data = _decode("text", value[_BYTES_KEY])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HelperError(
            # The offset but never the byte: the value may be a secret, and this message becomes an event.
            f"text: the value is not UTF-8 text (invalid at byte offset {exc.start}); "
            f'copy the bytes value as it is, or use its "{_BYTES_KEY}" string'
        ) from exc


def from_base64(b64: object) -> dict[str, str]:
    """``from_base64(b64)``: the bytes value a base64 string encodes (a Secret's ``data`` field, say), checked."""
    return {_BYTES_KEY: base64.b64encode(_decode("from_base64", b64)).decode("ascii")}


_HELPERS: dict[str, Callable[..., object]] = {
    "child_name": child_name,
    "text": text_of,
    "from_base64": from_base64,
}
"""The helpers written in Python, by their Starlark name."""

_SPAN = re.compile(r"^\s*--> (\S+:\d+:\d+)", re.MULTILINE)
_ERROR = re.compile(r"^error: (.*)$", re.MULTILINE)


def where(exc: BaseException) -> str | None:
    """The ``<file>:<line>:<col>`` a Starlark diagnostic points at, if any."""
    span = _SPAN.search(str(exc))
    return span.group(1) if span else None


def one_line(exc: BaseException) -> str:
    """Reduce a multi-line Starlark diagnostic to ``<file>:<line>:<col>: <message>``."""
    body = str(exc).strip()
    errors = _ERROR.findall(body)
    message = errors[-1] if errors else (body.splitlines()[-1] if body else type(exc).__name__)
    message = message.removeprefix(f"{HelperError.__name__}: ")
    span = where(exc)
    return f"{span}: {message}" if span else message


def _main_line(script: str) -> str:
    m = re.search(r"^def main\b", script, re.MULTILINE)
    return f"{SCRIPT_FILE}:{script.count(chr(10), 0, m.start()) + 1}" if m else SCRIPT_FILE


def run(job: dict[str, Any]) -> dict[str, Any]:
    """Run one job; returns the protocol reply."""
    script: str = job["script"]
    timeout: float = job["timeout"]
    deadline = time.monotonic() + timeout
    options = starlark.EvalOptions(
        check_cancelled=lambda: time.monotonic() > deadline, max_callstack_size=256
    )
    dialect = starlark.Dialect.standard()
    dialect.enable_load = False
    env = starlark.Globals.extended_by([starlark.LibraryExtension.Json])
    module = starlark.Module()
    for name, helper in _HELPERS.items():
        module.add_callable(name, helper)
    try:
        starlark.eval_with(options, module, starlark.parse("crossfn.star", _PRELUDE, dialect), env)
        starlark.eval_with(options, module, starlark.parse(SCRIPT_FILE, script, dialect), env)
        value = module.freeze().call_with(options, "main", job["req"]).value
    except starlark.StarlarkError as exc:
        text = one_line(exc)
        if "Evaluation cancelled" in str(exc):
            return {"error": f"{where(exc) or SCRIPT_FILE}: script exceeded its time limit of {timeout:g}s"}
        if "has no symbol `main`" in str(exc):
            return {"error": f"{SCRIPT_FILE}: the script must define main(req)"}
        if "serde::serialize" in str(exc):
            return {"error": f"{_main_line(script)}: main returned a value that is not plain data: {text}"}
        if where(exc) is None:
            # No span: the failure is in converting what main returned.
            return {"error": f"{_main_line(script)}: {text}"}
        return {"error": text}
    if not isinstance(value, dict):
        return {"error": f"{_main_line(script)}: main must return a dict, not {type(value).__name__}"}
    size = len(json.dumps(value, separators=(",", ":")))
    if size > job["max_output"]:
        return {
            "error": f"{_main_line(script)}: main returned {size} bytes of data, "
            f"more than the limit of {job['max_output']} bytes"
        }
    return {"ok": value}


def serve(memory_limit: int) -> None:
    """Answer jobs until stdin closes."""
    if memory_limit > 0:
        # Some kernels (macOS) refuse RLIMIT_AS; the time and output limits still hold there.
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        try:
            reply = run(json.loads(line))
        except MemoryError:
            reply = {"error": "script exceeded its memory limit"}
        out.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    serve(int(sys.argv[1]))
