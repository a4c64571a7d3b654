"""The Starlark sandbox: what a script cannot do, and that a server survives it.

Every escape attempt and every limit gives a Fatal result naming the script
line where the evaluator knows it; a runaway script costs one sandbox process
while other requests, served concurrently, go on.
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf import json_format

from crossfn.functions import starlark
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import function, response

PREFIX = "cannot run starlark script: "


@pytest.fixture(scope="module")
def fn() -> Iterator[starlark.Starlark]:
    with starlark.Starlark(
        timeout=datetime.timedelta(seconds=0.5),
        grace=datetime.timedelta(seconds=0.5),
        memory_limit=512 << 20,
        max_output=1 << 20,
        workers=2,
    ) as f:
        yield f


def _request(script: str) -> fnv1.RunFunctionRequest:
    return json_format.ParseDict(
        {
            "observed": {"composite": {"resource": {"apiVersion": "x/v1", "kind": "XR"}}},
            "input": {
                "apiVersion": "starlark.fn.crossfn.io/v1alpha1",
                "kind": "StarlarkScript",
                "script": script,
            },
        },
        fnv1.RunFunctionRequest(),
    )


def _fatal(fn: starlark.Starlark, script: str) -> str:
    req = _request(script)
    rsp = response.to(req)
    fn(req, rsp)
    fatals = [r.message for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL]
    assert len(fatals) == 1, list(rsp.results)
    assert fatals[0].startswith(PREFIX)
    return fatals[0].removeprefix(PREFIX)


def _main(*body: str) -> str:
    return "def main(req):\n" + "".join(f"    {line}\n" for line in body)


SANDBOX = [
    pytest.param(
        _main("return open('/etc/passwd')"),
        "script.star:2:12: Variable `open` not found",
        "there is no file system",
        id="OpenFile",
    ),
    pytest.param(
        'load("@stdlib//os.star", "os")\n' + _main("return {}"),
        "script.star:1:1: `load` is not allowed in this dialect",
        "load() is refused at parse time",
        id="Load",
    ),
    pytest.param(
        _main("return {'context': {'now': time.now()}}"),
        "script.star:2:32: Variable `time` not found",
        "there is no clock",
        id="Clock",
    ),
    pytest.param(
        _main("return {'context': {'r': random.random()}}"),
        "script.star:2:30: Variable `random` not found",
        "there is no randomness",
        id="Random",
    ),
    pytest.param(
        _main("return __import__('os')"),
        "script.star:2:12: Variable `__import__` not found",
        "there is no Python import machinery",
        id="Import",
    ),
    pytest.param(
        _main("return http.get('https://example.com')"),
        "script.star:2:12: Variable `http` not found",
        "there is no network",
        id="Network",
    ),
    pytest.param(
        _main("x = 0", "for i in range(1000000000):", "    x = i", "return {}"),
        "script.star:3:5: script exceeded its time limit of 0.5s",
        "a long loop is cancelled at its line",
        id="RunsForever",
    ),
    pytest.param(
        "def f(n):\n    return f(n + 1)\n" + _main("return f(0)"),
        "script.star:2:12: Starlark call stack overflow",
        "unbounded recursion stops at the call",
        id="Recursion",
    ),
    pytest.param(
        _main("return {'context': {'x': 'a' * 2000000}}"),
        "script.star:1: main returned 2000020 bytes of data, more than the limit of 1048576 bytes",
        "the output is bounded and the error points at main",
        id="OutputTooLarge",
    ),
    pytest.param(
        _main("return {'ttl': 10000000000000000000000}"),
        "ttl: want at most 315576000000 seconds, got 10000000000000000000000",
        "a TTL past a protobuf Duration's range is named (it escaped as OverflowError)",
        id="TTLOutOfRange",
    ),
    pytest.param(
        _main("fail('x' * 2000000)"),
        "script.star:2:5: fail: " + "x" * 100,
        "a fail() message larger than the output limit is kept, truncated below",
        id="HugeFail",
    ),
    pytest.param(
        _main("x = [0] * 1000000000", "return {}"),
        "script.star: script exceeded its memory limit of 512 MiB (its sandbox process was killed by signal 6)",
        "memory is bounded by the sandbox's address space",
        id="MemoryLimit",
    ),
    pytest.param(
        # Two distinct lists of 2**60 shared leaves, compared inside one `==`:
        # the evaluator's deadline is never consulted and nothing is allocated.
        _main(
            "a = [1]",
            "b = [1]",
            "for _ in range(60):",
            "    a = [a, a]",
            "    b = [b, b]",
            "return {'eq': a == b}",
        ),
        "script.star: script exceeded its time limit of 0.5s inside one builtin call "
        "and its sandbox was stopped after 1s",
        "a builtin that never yields to the evaluator is killed at the hard deadline",
        id="StuckInBuiltin",
    ),
]


@pytest.mark.parametrize(("script", "want", "reason"), SANDBOX)
def test_sandbox(fn: starlark.Starlark, script: str, want: str, reason: str) -> None:
    got = _fatal(fn, script)
    assert got.startswith(want), f"{reason}: {got}"


def test_huge_fail_message_is_truncated(fn: starlark.Starlark) -> None:
    """A 2 MB fail() message becomes a Fatal result a gRPC response can carry (it was RESOURCE_EXHAUSTED)."""
    got = _fatal(fn, _main("fail('x' * 2000000)"))
    assert len(got) < starlark.MAX_ERROR + 100
    assert got.endswith(" more characters)")


def test_recovers_after_a_killed_sandbox(fn: starlark.Starlark) -> None:
    """After a sandbox is killed, the next script runs in a fresh one."""
    _fatal(fn, _main("x = [0] * 1000000000", "return {}"))
    req = _request(_main("return {'ttl': 7}"))
    rsp = response.to(req)
    fn(req, rsp)
    assert list(rsp.results) == []
    assert rsp.meta.ttl.seconds == 7


async def test_server_keeps_serving_during_a_runaway_script() -> None:
    """A handler as a server drives it: quick scripts finish while a runaway one is still running."""
    with starlark.Starlark(timeout=datetime.timedelta(seconds=4), workers=2) as fn:
        await _serve_during_runaway(function.to_handler(fn))


async def _serve_during_runaway(handle: function.Handler) -> None:
    runaway = asyncio.ensure_future(
        handle(_request(_main("x = 0", "for i in range(1000000000):", "    x += i", "return {}")))
    )
    await asyncio.sleep(0.05)
    # No wall-clock bound (CI machines are loaded): the claim is the order, the
    # quick script is answered while the runaway one still runs.
    quick = await handle(_request(_main("return {'ttl': 1}")))
    assert not runaway.done(), "the runaway script should still be running"
    assert list(quick.results) == []
    slow = await runaway
    assert [r.severity for r in slow.results] == [fnv1.SEVERITY_FATAL]
    after = await handle(_request(_main("return {'ttl': 2}")))
    assert after.meta.ttl.seconds == 2


SCRIPT_ERRORS = [
    pytest.param(_main("return req['nope']"), 'script.star:2:12: Key `"nope"` was not found', id="KeyError"),
    pytest.param("def main(req)\n    return {}\n", "script.star:1:14: Parse error", id="SyntaxError"),
    pytest.param(_main("fail('no robots today')"), "script.star:2:5: fail: no robots today", id="Fail"),
    pytest.param("x = 1\n", "script.star: the script must define main(req)", id="NoMain"),
    pytest.param(_main("return [1]"), "script.star:1: main must return a dict, not list", id="NotADict"),
    pytest.param(
        _main("return {'context': {'f': lambda: 1}}"),
        "script.star:1: main returned a value that is not plain data",
        id="NotPlainData",
    ),
    pytest.param(
        _main("return {'desird': {}}"),
        'unknown response field "desird" (want one of conditions, context, desired, output, requirements, results, ttl)',
        id="UnknownField",
    ),
    pytest.param(
        _main("return {'results': [{'severity': 'LOUD', 'message': 'x'}]}"),
        "Invalid enum value LOUD",
        id="BadEnum",
    ),
    pytest.param(_main("return {'ttl': 'soon'}"), "ttl: ", id="BadTTL"),
    pytest.param(
        _main("x = {}", "for i in range(5000):", "    x = {'a': x}", "return {'context': x}"),
        "script.star:1: Maximum depth of 1000 exceeded",
        id="TooDeepToConvert",
    ),
    pytest.param(
        _main("x = {}", "for i in range(500):", "    x = {'a': x}", "return {'context': x}"),
        "cannot use what main returned: Message too deep",
        id="TooDeepForProtobuf",
    ),
]


@pytest.mark.parametrize(("script", "want"), SCRIPT_ERRORS)
def test_script_errors_are_fatal_with_location(fn: starlark.Starlark, script: str, want: str) -> None:
    got = _fatal(fn, script)
    assert want in got, got


INPUT_ERRORS = [
    pytest.param(
        None, "missing input: want starlark.fn.crossfn.io/v1alpha1 StarlarkScript with a script", id="NoInput"
    ),
    pytest.param({"script": ""}, "invalid input: script: must be a non-empty string", id="EmptyScript"),
    pytest.param({"script": 3}, "invalid input: script: must be a non-empty string", id="ScriptNotString"),
]


@pytest.mark.parametrize(("input_", "want"), INPUT_ERRORS)
def test_input_errors(fn: starlark.Starlark, input_: dict[str, Any] | None, want: str) -> None:
    req = fnv1.RunFunctionRequest()
    if input_ is not None:
        req.input.update(input_)
    rsp = response.to(req)
    fn(req, rsp)
    assert [(r.severity, r.message) for r in rsp.results] == [(fnv1.SEVERITY_FATAL, PREFIX + want)]


def test_replaces_an_idle_sandbox_killed_from_outside() -> None:
    """An idle sandbox that died (OOM killer, operator) is replaced instead of failing the next call."""
    with starlark.Starlark(workers=1) as fn:
        req = _request(_main("return {'ttl': 4}"))
        fn(req, response.to(req))
        # Killing the idle sandbox needs its process handle, which only the pool holds.
        pool = fn._pool
        worker, generation = pool._idle.get_nowait()
        worker._proc.kill()
        worker._proc.wait()
        pool._idle.put((worker, generation))
        rsp = response.to(req)
        fn(req, rsp)
        assert (list(rsp.results), rsp.meta.ttl.seconds) == ([], 4)


def test_close_stops_the_sandboxes_and_a_later_call_starts_new_ones() -> None:
    """``close`` stops the idle sandbox; the function keeps working with a new one afterwards."""
    with starlark.Starlark(workers=1) as fn:
        req = _request(_main("return {'ttl': 4}"))
        fn(req, response.to(req))
        worker, _ = fn._pool._idle.get_nowait()
        fn._pool._idle.put((worker, _))
        fn.close()
        assert not worker.alive(), "close stops the idle sandbox"
        rsp = response.to(req)
        fn(req, rsp)
        assert (list(rsp.results), rsp.meta.ttl.seconds) == ([], 4)
        again, _ = fn._pool._idle.get_nowait()
        fn._pool._idle.put((again, _))
        assert again is not worker and again.alive(), "the later call ran in a new sandbox, kept for reuse"
