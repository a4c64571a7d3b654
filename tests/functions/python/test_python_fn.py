"""function-python: each release's dispatch and messages, the official SDK in scripts, and the sandbox's limits."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf import json_format

from crossfn.functions import python
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def fns() -> Iterator[dict[str, python.Python]]:
    made = {
        r: python.Python(r, workers=1, timeout=datetime.timedelta(seconds=2))
        for r in ("v0.1.0", "v0.3.0", "v0.5.0")
    }
    yield made
    for fn in made.values():
        fn.close()


def _run(fn: python.Python, script: Any, *, key: bool = True) -> fnv1.RunFunctionResponse:
    inp: dict[str, Any] = {"apiVersion": python.API_VERSION, "kind": python.KIND}
    if key:
        inp["script"] = script
    req = json_format.ParseDict(
        {
            "meta": {"tag": "t"},
            "input": inp,
            "observed": {
                "composite": {"resource": {"apiVersion": "x/v1", "kind": "XR", "metadata": {"name": "xr"}}}
            },
        },
        fnv1.RunFunctionRequest(),
    )
    rsp = response.to(req)
    fn(req, rsp)
    return rsp


def _fatal(rsp: fnv1.RunFunctionResponse) -> list[str]:
    return [r.message for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL]


COMPOSE = 'def compose(req, rsp):\n    rsp.desired.resources["a"].resource.update({"kind": "A"})\n'
OPERATE = 'def operate(req, rsp):\n    rsp.desired.resources["o"].resource.update({"kind": "O"})\n'
ASYNC = 'async def compose(req, rsp):\n    rsp.desired.resources["a"].resource.update({"kind": "A"})\n'

DISPATCH = [
    pytest.param("v0.1.0", COMPOSE, {"a"}, [], "compose fills the desired state", id="V010Compose"),
    pytest.param(
        "v0.1.0",
        OPERATE,
        set(),
        ["Unexpected <class 'AttributeError'>: module 'script' has no attribute 'compose'"],
        "v0.1.0 knows no operate: the missing compose fails the call",
        id="V010NoOperate",
    ),
    pytest.param("v0.3.0", OPERATE, {"o"}, [], "operate runs from v0.2.0", id="V030Operate"),
    pytest.param(
        "v0.3.0",
        COMPOSE + OPERATE,
        set(),
        ["script must define only one function: compose or operate"],
        "both functions is a Fatal result",
        id="V030Both",
    ),
    pytest.param(
        "v0.3.0",
        "x = 1\n",
        set(),
        ["script must define a compose or operate function"],
        "neither function is a Fatal result",
        id="V030Neither",
    ),
    pytest.param(
        "v0.3.0",
        ASYNC,
        set(),
        [],
        "before v0.4.0 an async compose is never awaited",
        id="V030AsyncNotAwaited",
    ),
    pytest.param(
        "v0.5.0", ASYNC, {"a"}, [], "from v0.4.0 an async compose is awaited", id="V050AsyncAwaited"
    ),
    pytest.param(
        "v0.5.0",
        None,
        set(),
        ["missing script"],
        "script: null is upstream's Fatal result",
        id="NullScript",
    ),
    pytest.param(
        "v0.5.0",
        "def compose(req, rsp):\n    raise KeyError('boom')\n",
        set(),
        ["Unexpected <class 'KeyError'>: 'boom'"],
        "an exception is grpc.aio's text for it, as a Fatal result",
        id="Exception",
    ),
    pytest.param(
        "v0.5.0",
        "def compose(req, rsp:\n",
        set(),
        ["Unexpected <class 'SyntaxError'>: '(' was never closed (<string>, line 1)"],
        "a syntax error is reported the same way",
        id="SyntaxError",
    ),
]


@pytest.mark.parametrize(("release", "script", "resources", "fatal", "reason"), DISPATCH)
def test_dispatch(
    *,
    fns: dict[str, python.Python],
    release: str,
    script: Any,
    resources: set[str],
    fatal: list[str],
    reason: str,
) -> None:
    rsp = _run(fns[release], script)
    assert _fatal(rsp) == fatal, reason
    assert set(rsp.desired.resources) == resources, reason


def test_missing_script_key_fails_as_upstream(fns: dict[str, python.Python]) -> None:
    """``req.input["script"]`` on a Struct without the key raises protobuf's ValueError."""
    assert _fatal(_run(fns["v0.5.0"], None, key=False)) == ["Unexpected <class 'ValueError'>: Value not set"]


def test_response_starts_as_the_official_sdk_starts_it(fns: dict[str, python.Python]) -> None:
    """Tag and a 60 s TTL; results the script adds with the official SDK come back unchanged."""
    script = (
        "from crossplane.function import response\n"
        "def compose(req, rsp):\n    response.normal(rsp, 'hello')\n"
        "    rsp.desired.composite.resource.update({'status': {'n': len(req.observed.composite.resource['metadata'])}})\n"
    )
    rsp = _run(fns["v0.5.0"], script)
    assert rsp.meta.tag == "t" and rsp.meta.ttl.seconds == 60
    assert [(r.severity, r.message) for r in rsp.results] == [(fnv1.SEVERITY_NORMAL, "hello")]
    assert resource.struct_to_dict(rsp.desired.composite.resource) == {"status": {"n": 1}}


SANDBOX = [
    pytest.param(
        "import socket\ndef compose(req, rsp):\n    socket.create_connection(('127.0.0.1', 9))\n",
        "without network access (socket.",
        "no network (the name look-up is refused first)",
        id="Network",
    ),
    pytest.param(
        "def compose(req, rsp):\n    open('/etc/hostname').read()\n",
        "without file access (open '/etc/hostname')",
        "no reading files outside the interpreter",
        id="ReadFile",
    ),
    pytest.param(
        "def compose(req, rsp):\n    open('/tmp/crossfn-python-sandbox', 'w')\n",
        "without file access",
        "no writing files",
        id="WriteFile",
    ),
    pytest.param(
        "import subprocess\ndef compose(req, rsp):\n    subprocess.run(['true'])\n",
        "without starting processes (subprocess.Popen)",
        "no processes",
        id="Process",
    ),
    pytest.param(
        "def compose(req, rsp):\n    while True:\n        pass\n",
        "script exceeded its time limit of 2s",
        "a loop is stopped at the time limit",
        id="Timeout",
    ),
    pytest.param(
        "def compose(req, rsp):\n    x = bytearray(4 << 30)\n",
        "MemoryError",
        "an allocation over the address-space limit fails",
        id="Memory",
    ),
]


@pytest.mark.parametrize(("script", "want", "reason"), SANDBOX)
def test_sandbox(fns: dict[str, python.Python], script: str, want: str, reason: str) -> None:
    fatal = _fatal(_run(fns["v0.5.0"], script))
    assert len(fatal) == 1 and want in fatal[0], (reason, fatal)


def test_prints_do_not_break_the_reply(fns: dict[str, python.Python]) -> None:
    rsp = _run(
        fns["v0.5.0"],
        'def compose(req, rsp):\n    print("noise")\n' + COMPOSE.replace("def compose(req, rsp):\n", ""),
    )
    assert _fatal(rsp) == [] and set(rsp.desired.resources) == {"a"}
