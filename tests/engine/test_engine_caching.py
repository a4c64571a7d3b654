"""The function response cache (upstream core-2.19; core-4.7 cached_runner_test.go)."""

import datetime
from pathlib import Path

import pytest
from google.protobuf import duration_pb2

from crossfn import errors
from crossfn.engine import _cache_store, _caching
from crossfn.proto.v1 import run_function_pb2 as fnv1

NOW = datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.UTC)


class Counting:
    """A runner answering with one response (or error), counting calls."""

    def __init__(self, rsp: fnv1.RunFunctionResponse | Exception) -> None:
        self.rsp = rsp
        self.calls = 0

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        self.calls += 1
        if isinstance(self.rsp, Exception):
            raise self.rsp
        return self.rsp


class Clock:
    def __init__(self, now: datetime.datetime) -> None:
        self.now = now

    def __call__(self) -> datetime.datetime:
        return self.now


class RecordingMetrics:
    def __init__(self) -> None:
        self.events: list[str] = []

    def run_started(self, function: str, target: str, method: str) -> None:
        return None

    def run_finished(
        self, function: str, *, target: str, method: str, code: str, severity: str, seconds: float
    ) -> None:
        return None

    def cache(self, event: str, function: str, amount: float = 1) -> None:
        self.events.append(event)

    def cache_seconds(self, op: str, function: str, seconds: float) -> None:
        return None


def rsp(
    ttl: datetime.timedelta = datetime.timedelta(minutes=1), message: str = "fresh"
) -> fnv1.RunFunctionResponse:
    d = duration_pb2.Duration()
    d.FromTimedelta(ttl)
    out = fnv1.RunFunctionResponse(meta=fnv1.ResponseMeta(tag="t", ttl=d))
    out.results.add(severity=fnv1.SEVERITY_NORMAL, message=message)
    return out


def req(tag: str = "t") -> fnv1.RunFunctionRequest:
    return fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag=tag))


def stored(deadline: datetime.datetime | None, message: str = "cached") -> _cache_store.Entry:
    return _cache_store.Entry(deadline=deadline, response=rsp(message=message).SerializeToString())


@pytest.mark.parametrize("backend", ["memory", "disk"])
@pytest.mark.parametrize(
    ("tag", "seed", "inner_rsp", "want_message", "want_calls", "want_cached", "reason"),
    [
        pytest.param(
            "", None, rsp(), "fresh", 1, False, "No tag: call through and do not cache.", id="MissingTag"
        ),
        pytest.param(
            "t",
            None,
            rsp(),
            "fresh",
            1,
            True,
            "A miss calls the function and caches the answer.",
            id="NotCached",
        ),
        pytest.param(
            "t",
            stored(None),
            rsp(),
            "fresh",
            1,
            True,
            "An entry without deadline is expired.",
            id="EmptyFile",
        ),
        pytest.param(
            "t",
            stored(NOW - datetime.timedelta(seconds=1)),
            rsp(),
            "fresh",
            1,
            True,
            "An expired entry is a miss and is replaced.",
            id="DeadlineExceeded",
        ),
        pytest.param(
            "t",
            stored(NOW + datetime.timedelta(seconds=30)),
            rsp(),
            "cached",
            0,
            True,
            "A valid entry is returned without calling the function.",
            id="CacheHit",
        ),
        pytest.param(
            "t",
            None,
            rsp(ttl=datetime.timedelta(0)),
            "fresh",
            1,
            False,
            "TTL zero is never cached.",
            id="ZeroTTL",
        ),
    ],
)
async def test_TestRunFunction(
    *,
    tmp_path: Path,
    backend: str,
    tag: str,
    seed: _cache_store.Entry | None,
    inner_rsp: fnv1.RunFunctionResponse,
    want_message: str,
    want_calls: int,
    want_cached: bool,
    reason: str,
) -> None:
    store: _cache_store.ResponseStore = (
        _cache_store.MemoryStore() if backend == "memory" else _cache_store.DiskStore(tmp_path)
    )
    if seed is not None:
        store.put("fn", tag, seed)
    inner = Counting(inner_rsp)
    runner = _caching.CachingRunner(inner, store=store, clock=Clock(NOW))
    got = await runner.run_function("fn", req(tag))
    assert got.results[0].message == want_message, reason
    assert inner.calls == want_calls, reason
    entry = store.get("fn", tag) if tag else None
    cached_fresh = entry is not None and entry.deadline is not None and entry.deadline > NOW
    assert cached_fresh is want_cached, reason


async def test_TestRunFunction_WrappedError() -> None:
    runner = _caching.CachingRunner(Counting(errors.FunctionRunError("boom")), clock=Clock(NOW))
    with pytest.raises(errors.FunctionRunError, match=r"^boom$"):
        await runner.run_function("fn", req())


async def test_TestRunFunction_UnexpectedFile(tmp_path: Path) -> None:
    (tmp_path / "fn").mkdir()
    (tmp_path / "fn" / "t").write_bytes(b"\xff\xffgarbage")
    metrics = RecordingMetrics()
    inner = Counting(rsp())
    runner = _caching.CachingRunner(
        inner, store=_cache_store.DiskStore(tmp_path), clock=Clock(NOW), metrics=metrics
    )
    got = await runner.run_function("fn", req())
    assert got.results[0].message == "fresh" and inner.calls == 1, "a garbage file is a miss"
    assert "errors" in metrics.events and "writes" in metrics.events, (
        "the error is counted and the answer cached"
    )


async def test_TestRunFunction_MaxTTLClamping(tmp_path: Path) -> None:
    store = _cache_store.DiskStore(tmp_path)
    runner = _caching.CachingRunner(
        Counting(rsp(ttl=datetime.timedelta(hours=48))),
        store=store,
        max_ttl=datetime.timedelta(minutes=5),
        clock=Clock(NOW),
    )
    got = await runner.run_function("fn", req())
    assert got.meta.ttl.ToTimedelta() == datetime.timedelta(hours=48), "the response itself is unchanged"
    entry = store.get("fn", "t")
    assert entry is not None and entry.deadline == NOW + datetime.timedelta(minutes=5), (
        "the deadline uses the clamped TTL"
    )


async def test_TestCacheFunction(tmp_path: Path) -> None:
    store = _cache_store.DiskStore(tmp_path)
    await _caching.CachingRunner(Counting(rsp()), store=store, clock=Clock(NOW)).run_function("fn", req())
    reader = _caching.CachingRunner(
        Counting(errors.FunctionRunError("must not be called")), store=store, clock=Clock(NOW)
    )
    got = await reader.run_function("fn", req())
    assert got.results[0].message == "fresh", "a second runner reads the response back from disk"
    assert (tmp_path / "fn").stat().st_mode & 0o777 == 0o700, "cache directories are private"


async def test_store_failures_never_fail_the_call() -> None:
    class Broken:
        def get(self, function: str, tag: str) -> _cache_store.Entry | None:
            raise OSError("disk on fire")

        def put(self, function: str, tag: str, entry: _cache_store.Entry) -> int:
            raise OSError("disk on fire")

    metrics = RecordingMetrics()
    got = await _caching.CachingRunner(
        Counting(rsp()), store=Broken(), clock=Clock(NOW), metrics=metrics
    ).run_function("fn", req())
    assert got.results[0].message == "fresh", "cache errors are side concerns"
    assert metrics.events.count("errors") == 2, "both the read and the write failure are counted"


async def test_unresolved_requirements_are_not_cached() -> None:
    out = rsp()
    out.results.add(severity=fnv1.SEVERITY_FATAL, message="need more")
    out.requirements.resources["x"].CopyFrom(
        fnv1.ResourceSelector(api_version="v1", kind="Foo", match_name="a")
    )
    store = _cache_store.MemoryStore()
    await _caching.CachingRunner(Counting(out), store=store, clock=Clock(NOW)).run_function("fn", req())
    assert len(store) == 0, "a response still asking for resources it never got is not cached"


def test_memory_store_is_bounded() -> None:
    store = _cache_store.MemoryStore(max_entries=2)
    for tag in ("a", "b", "c"):
        store.put("fn", tag, stored(NOW))
    assert store.get("fn", "a") is None and len(store) == 2, "the least recently used entry goes first"


def test_TestGarbageCollectFilesNow(tmp_path: Path) -> None:
    store = _cache_store.DiskStore(tmp_path)
    past, future = NOW - datetime.timedelta(minutes=1), NOW + datetime.timedelta(minutes=1)
    for fn, tag, deadline in [
        ("a", "1", past),
        ("a", "2", future),
        ("b", "3", past),
        ("b", "4", past),
        ("b", "5", future),
    ]:
        store.put(fn, tag, stored(deadline))
    metrics = RecordingMetrics()
    runner = _caching.CachingRunner(Counting(rsp()), store=store, clock=Clock(NOW), metrics=metrics)
    assert runner.collect_garbage() == 3, "three of five entries have expired"
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["2", "5"], "live entries stay"
    assert metrics.events.count("deletes") == 2 and metrics.events.count("bytes_deleted") == 2, (
        "counted per function"
    )
    assert _caching.CachingRunner(Counting(rsp())).collect_garbage() == 0, (
        "the memory store has nothing to collect"
    )


@pytest.mark.parametrize("function", ["../escape", "a/b", "..", ""])
async def test_disk_store_refuses_paths_outside_its_directory(tmp_path: Path, function: str) -> None:
    store = _cache_store.DiskStore(tmp_path / "cache")
    inner = Counting(rsp())
    got = await _caching.CachingRunner(inner, store=store, clock=Clock(NOW)).run_function(function, req())
    assert got.results[0].message == "fresh" and inner.calls == 1, "the call goes on"
    assert not any(tmp_path.rglob("t")), "nothing is written outside (or inside) the cache for a bad name"
