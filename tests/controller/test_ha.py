"""High availability: two ``crossfn controller run --leader-election`` processes against one API server.

Each test starts real controller processes (as two replicas of ``deploy/``'s
Deployment would run) with short Lease timings, and watches them only from
outside: ``/readyz`` says which one leads, ``/metrics`` proves the standby
reconciles nothing, and the API server shows that no XR is lost and no
composed resource is made twice when the leader is killed (SIGKILL, no
release) or the API server goes away under it.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import itertools
import json
import os
import signal
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest

from crossfn.controller import envtest as envtest_module
from crossfn.controller.kube import _api
from crossfn.controller.manager import _leader

from .e2e_support import (
    AUTO_READY_PACKAGE,
    COMPOSED_NAMESPACE,
    CONTROLLER_NAMESPACE,
    FLAVOURS,
    PAT_PACKAGE,
    WIDGET_API,
    WIDGET_CRD,
    Process,
    condition,
    crossfn_serve,
    free_port,
    function,
    namespace,
    wait_for,
)

pytestmark = pytest.mark.cluster

LEASE, RENEW, RETRY = 4.0, 3.0, 0.5
"""Short Lease timings (the flags accept any): a dead leader is replaced within LEASE + RETRY."""
XRS = 12
FLAVOUR = FLAVOURS[0]


def _http(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
    except OSError:
        return 0, ""


class Replica:
    """One ``crossfn controller run --leader-election`` process and its probe and metrics ports."""

    def __init__(self, env: envtest_module.Environment, name: str) -> None:
        self.name = name
        self.health, self.metrics_port = free_port(), free_port()
        self.process = Process(
            [
                sys.executable, "-m", "crossfn", "controller", "run", "--kubeconfig", env.kubeconfig,
                "--insecure-functions", "--leader-election", "--no-enable-webhooks",
                f"--leader-election-lease-duration={LEASE:g}s", f"--leader-election-renew-deadline={RENEW:g}s",
                f"--leader-election-retry-period={RETRY:g}s",
                "--health-address", f"127.0.0.1:{self.health}", "--metrics-address", f"127.0.0.1:{self.metrics_port}",
            ],
            env={"POD_NAMESPACE": CONTROLLER_NAMESPACE},
        )  # fmt: skip

    @property
    def identity(self) -> str:
        """This replica's leader election identity, from its ``waiting to lead`` log line (JSON)."""
        for line in self.process.lines:
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if record.get("msg") == "waiting to lead" and record.get("identity"):
                    return str(record["identity"])
        raise AssertionError(f"{self.name} logged no identity: {''.join(self.process.lines[-5:])}")

    async def readyz(self) -> tuple[int, str]:
        return await asyncio.to_thread(_http, f"http://127.0.0.1:{self.health}/readyz")

    async def metrics(self) -> str:
        return (await asyncio.to_thread(_http, f"http://127.0.0.1:{self.metrics_port}/metrics"))[1]

    async def state(self) -> str:
        """``leading``, ``standing by``, or ``""`` while not ready (or gone)."""
        status, body = await self.readyz()
        if status != 200:
            return ""
        return "leading" if "leader election: leading" in body else "standing by"

    async def wait_state(self, want: str, timeout: float) -> float:
        """Seconds until this replica reports ``want``."""
        began = time.monotonic()

        async def check() -> bool:
            assert self.process.proc.poll() is None, f"{self.name} exited: {''.join(self.process.lines[-5:])}"
            return await self.state() == want

        await wait_for(check, timeout=timeout, what=f"{self.name} {want}")
        return time.monotonic() - began

    async def reconciles(self) -> float:
        """Reconciles this replica has run (``controller_runtime_reconcile_total`` summed)."""
        total = 0.0
        for line in (await self.metrics()).splitlines():
            if line.startswith("controller_runtime_reconcile_total{"):
                total += float(line.rsplit(" ", 1)[1])
        return total

    async def wait_reconciled(self, timeout: float) -> None:
        """Wait until this replica counts a reconcile: the counter moves when a reconcile returns, after
        its writes, so a test that saw the writes may scrape before it."""

        async def counted() -> bool:
            return await self.reconciles() > 0

        await wait_for(counted, timeout=timeout, what=f"{self.name}'s controller_runtime_reconcile_total")

    def kill(self) -> None:
        self.process.proc.send_signal(signal.SIGKILL)
        self.process.stop()

    def stop(self) -> int:
        return self.process.stop(40)


@pytest.fixture
async def cluster(
    controller_manager: envtest_module.Environment, crossplane_crds: list[str], kube: Any
) -> AsyncIterator[envtest_module.Environment]:
    """The Widget kind, namespaces and built-in Functions; Lease left by an earlier test removed."""
    for obj in (WIDGET_CRD, namespace(COMPOSED_NAMESPACE), namespace(FLAVOUR.xr_namespace),
                namespace(CONTROLLER_NAMESPACE)):  # fmt: skip
        await kube.apply(obj, field_manager="e2e")
    for name, package in (
        ("function-patch-and-transform", PAT_PACKAGE),
        ("function-auto-ready", AUTO_READY_PACKAGE),
    ):
        await kube.apply(function(name, package), field_manager="e2e", force=True)
    await _delete_lease(kube)
    yield controller_manager
    await _delete_lease(kube)


async def _delete_lease(kube: Any) -> None:
    with contextlib.suppress(_api.NotFound):
        await kube.delete(_leader.LEASE_API_VERSION, "Lease", _leader.LEASE_NAME, CONTROLLER_NAMESPACE)


async def _establish(kube: Any, composition: str) -> None:
    await kube.apply(FLAVOUR.xrd(), field_manager="e2e", force=True)

    async def served() -> bool:
        xrd = await kube.get(
            "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", FLAVOUR.xrd_name
        )
        return condition(xrd, "Established").get("status") == "True"

    await wait_for(served, timeout=30, what="the XRD Established")
    await kube.apply(FLAVOUR.composition(composition, ["a"]), field_manager="e2e", force=True)


async def _widgets(kube: Any, prefix: str) -> dict[str, int]:
    """Composed Widgets per XR, for the XRs named ``prefix-*``."""
    items, _ = await kube.list(WIDGET_API, "Widget", FLAVOUR.xr_namespace)
    out: dict[str, int] = {}
    for w in items:
        xr = (w["metadata"].get("labels") or {}).get("crossplane.io/composite", "")
        if xr.startswith(prefix):
            out[xr] = out.get(xr, 0) + 1
    return out


async def _all_composed_once(kube: Any, prefix: str, sizes: str) -> None:
    """Every XR has exactly one Widget with the XR's current size, and says so in its status."""

    async def done() -> bool:
        counts = await _widgets(kube, prefix)
        if len(counts) < XRS:
            return False
        assert all(n == 1 for n in counts.values()), f"duplicate composed resources: {counts}"
        items, _ = await kube.list(WIDGET_API, "Widget", FLAVOUR.xr_namespace)
        mine = [w for w in items if w["metadata"]["labels"]["crossplane.io/composite"].startswith(prefix)]
        return all(w["spec"].get("size") == sizes for w in mine)

    await wait_for(done, timeout=60, what=f"{XRS} XRs composed exactly once with size {sizes}")
    assert len(await _widgets(kube, prefix)) == XRS, "no XR lost"


class LeaseRecords:
    """Every record the leader election Lease holds while watched, in order (``spec`` of each version)."""

    def __init__(self, kube: Any) -> None:
        self.kube = kube
        self.records: list[dict[str, Any]] = []
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> LeaseRecords:
        items, version = await self.kube.list(_leader.LEASE_API_VERSION, "Lease", CONTROLLER_NAMESPACE)
        self.records.extend(dict(i["spec"]) for i in items if i["metadata"]["name"] == _leader.LEASE_NAME)
        self._task = asyncio.create_task(self._watch(version))
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def _watch(self, version: str) -> None:
        async for event in self.kube.watch(
            _leader.LEASE_API_VERSION, "Lease", CONTROLLER_NAMESPACE, resource_version=version
        ):
            if event.type in ("ADDED", "MODIFIED") and event.object["metadata"]["name"] == _leader.LEASE_NAME:
                self.records.append(dict(event.object["spec"]))

    def holders(self) -> list[str]:
        """The holder of each record, consecutive repeats (renewals) dropped; ``""`` for a released Lease."""
        out: list[str] = []
        for r in self.records:
            holder = str(r.get("holderIdentity") or "")
            if not out or out[-1] != holder:
                out.append(holder)
        return out

    def handover(self, new: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """The last record before ``new`` first held the Lease, and ``new``'s first record."""
        for before, after in itertools.pairwise(self.records):
            if after.get("holderIdentity") == new and before.get("holderIdentity") != new:
                return before, after
        raise AssertionError(f"{new} never took the Lease: {self.records}")

    async def wait_holder(self, identity: str) -> None:
        async def held() -> bool:
            return any(r.get("holderIdentity") == identity for r in self.records)

        await wait_for(held, timeout=60, what=f"a Lease record held by {identity}")


def _micro(stamp: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(stamp)


async def test_one_leader_reconciles_and_a_killed_leader_is_replaced(cluster: Any, kube: Any) -> None:
    """The standby reconciles nothing; SIGKILL of the leader mid-work: takeover within the lease, nothing lost."""
    a = Replica(cluster, "replica-a")
    b: Replica | None = None
    try:
        await a.wait_state("leading", timeout=60)
        b = Replica(cluster, "replica-b")
        await b.wait_state("standing by", timeout=60)
        await _establish(kube, "e2e-ha")
        for i in range(XRS):
            await kube.apply(FLAVOUR.xr(f"ha-{i}", "e2e-ha", "one"), field_manager="e2e", force=True)
        await _all_composed_once(kube, "ha-", "one")
        await a.wait_reconciled(timeout=30)
        assert await b.reconciles() == 0, "the standby ran no reconcile while the other led"
        assert "leader_election_master_status" in await b.metrics()

        # Change every XR and kill the leader while it works through them: no release, no drain.
        for i in range(XRS):
            await kube.patch(
                FLAVOUR.xr_api, "XWidget", f"ha-{i}", FLAVOUR.xr_namespace, {"spec": {"size": "two"}}
            )

        async def started() -> bool:
            items, _ = await kube.list(WIDGET_API, "Widget", FLAVOUR.xr_namespace)
            return any(w["spec"].get("size") == "two" for w in items)

        await wait_for(started, timeout=30, what="the leader to start on the changes")
        async with LeaseRecords(kube) as lease:
            a.kill()
            # The timeouts here only end a failing run; what the takeover waited is read from the Lease.
            await b.wait_state("leading", timeout=60)
            await lease.wait_holder(b.identity)
        last, first = lease.handover(b.identity)
        assert last["holderIdentity"] == a.identity, "b took over from the killed leader's unreleased record"
        waited = _micro(first["acquireTime"]) - _micro(last["renewTime"])
        assert waited >= datetime.timedelta(seconds=LEASE), (
            f"taken {waited} after the last renewal, before it expired"
        )
        assert first["leaseTransitions"] == last["leaseTransitions"] + 1
        await _all_composed_once(kube, "ha-", "two")
        await b.wait_reconciled(timeout=30)  # the new leader reconciles

        # A replica started again stands by; the leader stopped with SIGTERM hands over at once.
        a = Replica(cluster, "replica-a2")
        await a.wait_state("standing by", timeout=60)
        async with LeaseRecords(kube) as lease:
            assert b.stop() == 0, "a clean exit on SIGTERM: " + "".join(b.process.lines[-5:])
            assert any("released the leader election Lease" in line for line in b.process.lines)
            await a.wait_state("leading", timeout=60)
            await lease.wait_holder(a.identity)
        assert lease.holders()[-3:] == [b.identity, "", a.identity], (
            "the new leader took the released record (no holder), not one it waited out"
        )
        b = None
    finally:
        for i in range(XRS):
            with contextlib.suppress(_api.ApiError):
                await kube.delete(FLAVOUR.xr_api, "XWidget", f"ha-{i}", FLAVOUR.xr_namespace)
        for replica in (a, b):
            if replica is not None:
                replica.stop()


async def test_api_server_outage_longer_than_the_renew_deadline(cluster: Any, kube: Any) -> None:
    """The leader cannot renew: it stops and exits non-zero; after the restart a leader finishes the work."""
    a = Replica(cluster, "replica-a")
    b: Replica | None = None
    env: envtest_module.Environment = cluster
    try:
        await a.wait_state("leading", timeout=60)
        b = Replica(cluster, "replica-b")
        await b.wait_state("standing by", timeout=60)
        await _establish(kube, "e2e-ha-outage")
        for i in range(XRS):
            await kube.apply(
                FLAVOUR.xr(f"outage-{i}", "e2e-ha-outage", "one"), field_manager="e2e", force=True
            )
        await asyncio.to_thread(env.stop_apiserver)
        # The timeouts here only end a failing run: the leader exits once its renew deadline has passed
        # without a renewal (the log says which), however long the machine takes to get there.
        code = await asyncio.to_thread(a.process.wait, 120)
        assert code == 1, "leadership lost: exit non-zero, as controller-runtime"
        assert any("leader election lost" in line for line in a.process.lines), "".join(a.process.lines[-5:])
        await asyncio.to_thread(env.start_apiserver)
        await b.wait_state("leading", timeout=120)
        lease = await kube.get(_leader.LEASE_API_VERSION, "Lease", _leader.LEASE_NAME, CONTROLLER_NAMESPACE)
        assert lease["spec"]["holderIdentity"] == b.identity, "the standby took the Lease"
        await _all_composed_once(kube, "outage-", "one")
    finally:
        for i in range(XRS):
            with contextlib.suppress(_api.ApiError):
                await kube.delete(FLAVOUR.xr_api, "XWidget", f"outage-{i}", FLAVOUR.xr_namespace)
        for replica in (a, b):
            if replica is not None:
                replica.stop()


async def _quiet(replica: Replica, seconds: float = 2.0, timeout: float = 60) -> None:
    """Wait until ``replica`` has run no reconcile for ``seconds``."""
    deadline = time.monotonic() + timeout
    last, since = await replica.reconciles(), time.monotonic()
    while time.monotonic() - since < seconds:
        assert time.monotonic() < deadline, f"{replica.name} never went quiet"
        await asyncio.sleep(0.25)
        now = await replica.reconciles()
        if now != last:
            last, since = now, time.monotonic()


async def test_a_frozen_leader_writes_nothing_after_a_standby_took_over(cluster: Any, kube: Any) -> None:
    """SIGSTOP the leader with function calls in flight; the standby takes over and composes newer data;
    SIGCONT: the old leader writes nothing (its first write is fenced: the renew deadline has passed) and
    exits 1. Before: 220 stale writes in 0.35 s, repaired by the new leader only ~10 s later."""
    a = Replica(cluster, "replica-a")
    b: Replica | None = None
    stale: list[str] = []
    watching: asyncio.Future[Any] | None = None
    with crossfn_serve("crossfn_functions:delayed") as address:
        await kube.apply(
            function("function-delayed", "example.org/delayed:v1", address), field_manager="e2e", force=True
        )
        try:
            await a.wait_state("leading", timeout=60)
            b = Replica(cluster, "replica-b")
            await b.wait_state("standing by", timeout=60)
            await kube.apply(FLAVOUR.xrd(), field_manager="e2e", force=True)
            await _establish(kube, "e2e-ha-fence")
            slow_step = {"step": "delayed", "functionRef": {"name": "function-delayed"}}
            await kube.apply(
                FLAVOUR.composition("e2e-ha-fence", ["a"], extra_steps=[slow_step]),
                field_manager="e2e",
                force=True,
            )
            for i in range(XRS):
                await kube.apply(
                    FLAVOUR.xr(f"fence-{i}", "e2e-ha-fence", "one"), field_manager="e2e", force=True
                )
            await _all_composed_once(kube, "fence-", "one")

            # New data for every XR; freeze the leader while its calls (2 s each) are in flight.
            for i in range(XRS):
                await kube.patch(
                    FLAVOUR.xr_api, "XWidget", f"fence-{i}", FLAVOUR.xr_namespace, {"spec": {"size": "two"}}
                )
            await asyncio.sleep(0.7)
            os.kill(a.process.proc.pid, signal.SIGSTOP)
            try:
                await b.wait_state("leading", timeout=LEASE * 4)
                for i in range(XRS):
                    await kube.patch(
                        FLAVOUR.xr_api,
                        "XWidget",
                        f"fence-{i}",
                        FLAVOUR.xr_namespace,
                        {"spec": {"size": "three"}},
                    )
                await _all_composed_once(kube, "fence-", "three")
                await _quiet(b)
                _, version = await kube.list(WIDGET_API, "Widget", FLAVOUR.xr_namespace)
                _, xr_version = await kube.list(FLAVOUR.xr_api, "XWidget", FLAVOUR.xr_namespace)

                async def watch(api_version: str, kind: str, rv: str) -> None:
                    async for event in kube.watch(
                        api_version, kind, FLAVOUR.xr_namespace, resource_version=rv
                    ):
                        meta = event.object.get("metadata") or {}
                        composite = (meta.get("labels") or {}).get("crossplane.io/composite", "")
                        mine = str(meta.get("name", "")).startswith("fence-") or composite.startswith(
                            "fence-"
                        )
                        if event.type != "BOOKMARK" and mine:
                            stale.append(
                                f"{event.type} {kind} {meta.get('name')}: {event.object.get('spec')}"
                            )

                watching = asyncio.ensure_future(
                    asyncio.gather(
                        watch(WIDGET_API, "Widget", version), watch(FLAVOUR.xr_api, "XWidget", xr_version)
                    )
                )
                await asyncio.sleep(0.5)
            finally:
                os.kill(a.process.proc.pid, signal.SIGCONT)
            code = await asyncio.to_thread(a.process.wait, 30)
            await asyncio.sleep(2)
            assert code == 1, "a leader that lost the Lease exits non-zero"
            assert any("leader election lost" in line for line in a.process.lines), "".join(
                a.process.lines[-5:]
            )
            assert stale == [], "writes after the standby took over"
            counts = await _widgets(kube, "fence-")
            assert len(counts) == XRS and all(n == 1 for n in counts.values())
        finally:
            if watching is not None:
                watching.cancel()
                with contextlib.suppress(BaseException):
                    await watching
            with contextlib.suppress(ProcessLookupError):
                os.kill(a.process.proc.pid, signal.SIGCONT)
            for i in range(XRS):
                with contextlib.suppress(_api.ApiError):
                    await kube.delete(FLAVOUR.xr_api, "XWidget", f"fence-{i}", FLAVOUR.xr_namespace)
            for replica in (a, b):
                if replica is not None:
                    replica.stop()
