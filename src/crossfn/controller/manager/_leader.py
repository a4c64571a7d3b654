"""Leader election on a ``coordination.k8s.io/v1`` Lease, as client-go's ``leaderelection`` does it.

Two replicas of the controller against one API server must never reconcile at
the same time: both would create the same composed resources, and a Composition
function's ``generateName`` would make duplicates. Crossplane runs its core
behind a Lease (upstream controllers-6); :class:`LeaderElector` is the same
algorithm, so its timing guarantees carry over:

* a candidate **acquires** the Lease when nobody holds it, when its holder
  released it (an empty ``holderIdentity``), or when the record has not changed
  for ``leaseDurationSeconds`` *as observed on the candidate's own clock*
  (client-go's rule: no trust in other machines' clocks, only in how long the
  record has stood still);
* the leader **renews** every ``retry_period``; when it has not managed to for
  ``renew_deadline`` (the API server unreachable, the Lease taken), it stops
  leading: the work it runs is cancelled before anyone else can take over,
  because ``renew_deadline < lease_duration``;
* every write is an update with the Lease's ``resourceVersion``, so two
  candidates racing for an expired Lease cannot both win: one gets a Conflict;
* **fencing**: the leader's writes pass :meth:`LeaderElector.check` (the
  manager hands the controllers a client fenced by it, ``KubeApi.fenced``),
  checked in the step that writes the request's bytes. A write is allowed only
  until ``renew_deadline`` after the last successful renewal's Lease write was
  sent (monotonic clock): no other candidate can see that record, and so take
  over, before ``lease_duration`` after that, so there is a ``lease_duration -
  renew_deadline`` margin; a renewal whose write took longer than the renew
  deadline does not count. A replica frozen (SIGSTOP, a VM paused) past that
  moment writes nothing when it resumes: the first refused write ends
  leadership at once (the work, function calls in flight included, is
  cancelled), and a write whose bytes could only leave after it stops the
  process (:meth:`LeaderElector.sent`);
* on a clean stop the leader **releases** the Lease (``holderIdentity`` empty,
  ``leaseDurationSeconds: 1``), so the next leader starts at once instead of
  after a lease duration. A leader that dies without releasing is replaced
  after ``lease_duration`` plus at most one ``retry_period``.

Usage (what the manager wraps around its start)::

    elector = LeaderElector(api, namespace=lease_namespace("crossplane-system"),
                            identity=default_identity())
    await elector.run(start_controllers, on_stopped_leading=exit_process)

:meth:`LeaderElector.run` waits until this replica leads, then runs
``on_started_leading()`` as a task for as long as it leads. It returns when
leadership is lost (the task is cancelled first) or when the task ends (the
Lease is released). Cancelling ``run`` cancels the task and releases the
Lease. :attr:`LeaderElector.leading` is what ``/readyz`` reports.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import os
import random
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.engine import _clock

__all__ = [
    "JITTER_FACTOR",
    "LEASE_API_VERSION",
    "LEASE_DURATION",
    "LEASE_NAME",
    "RENEW_DEADLINE",
    "RETRY_PERIOD",
    "LeaderElector",
    "default_identity",
    "lease_namespace",
]

_log = logging.getLogger("crossfn.controller.leader")

LEASE_API_VERSION = "coordination.k8s.io/v1"
LEASE_NAME = "crossplane-leader-election-core"
"""Crossplane core's Lease (upstream controllers-6): one leader
among crossfn's replicas and Crossplane's own core."""

LEASE_DURATION = 60.0
"""Seconds a non-leader waits after the record last changed before taking over (Crossplane: 60 s)."""

RENEW_DEADLINE = 50.0
"""Seconds the leader keeps trying to renew before it gives up leading (Crossplane: 50 s)."""

RETRY_PERIOD = 2.0
"""Seconds between attempts to acquire or renew (controller-runtime's default, which Crossplane keeps)."""

JITTER_FACTOR = 1.2
"""Candidates wait ``retry_period * (1 + random * 0.2)`` between acquire attempts (client-go's)."""

_SERVICE_ACCOUNT_NAMESPACE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")


def default_identity() -> str:
    """``<hostname>_<uuid>``, as controller-runtime names a candidate: unique even for restarts."""
    return f"{socket.gethostname()}_{uuid.uuid4()}"


def lease_namespace(fallback: str, *, path: Path = _SERVICE_ACCOUNT_NAMESPACE) -> str:
    """The pod's own namespace (the service account's namespace file) or, outside a cluster, ``fallback``."""
    with contextlib.suppress(OSError):
        found = path.read_text(encoding="utf-8").strip()
        if found:
            return found
    return os.environ.get("POD_NAMESPACE") or fallback


def _micro_time(now: datetime.datetime) -> str:
    """A ``metav1.MicroTime``: RFC 3339 in UTC with microseconds."""
    return now.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class LeaderElector:
    """One candidate for the Lease ``namespace/name``; see the module docstring for the rules.

    ``clock`` (monotonic seconds), ``sleep``, ``now`` (wall time written into the
    Lease) and ``jitter`` (a number in [0, 1)) are injectable for tests.
    """

    def __init__(
        self,
        api: _api.Api,
        *,
        namespace: str,
        identity: str,
        name: str = LEASE_NAME,
        lease_duration: float = LEASE_DURATION,
        renew_deadline: float = RENEW_DEADLINE,
        retry_period: float = RETRY_PERIOD,
        release_on_cancel: bool = True,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        now: Callable[[], datetime.datetime] = _clock.utcnow,
        jitter: Callable[[], float] = random.random,
        exit_process: Callable[[], None] = lambda: os._exit(1),
    ) -> None:
        if not identity:
            raise errors.InputError("cannot elect a leader: the candidate's identity is empty")
        if not lease_duration > renew_deadline > JITTER_FACTOR * retry_period > 0:
            raise errors.InputError(
                "cannot elect a leader: want lease duration > renew deadline > "
                f"{JITTER_FACTOR:g} x retry period > 0, got {lease_duration:g}s, {renew_deadline:g}s, "
                f"{retry_period:g}s"
            )
        if lease_duration < 1:
            raise errors.InputError("cannot elect a leader: the lease duration is under one second")
        self._api = api
        self.namespace = namespace
        self.name = name
        self.identity = identity
        self._duration = lease_duration
        self._deadline = renew_deadline
        self._retry = retry_period
        self._release_on_cancel = release_on_cancel
        self._clock = clock
        self._sleep = sleep
        self._now = now
        self._jitter = jitter
        self._observed: Mapping[str, Any] | None = None
        self._observed_at = 0.0
        self._leading = False
        self._renewed_at: float | None = None
        """When the write of the last successful acquire or renew was sent (``clock``): no other candidate can
        have seen that record earlier, so writes are fenced from then + renew deadline."""
        self._fence_tripped = asyncio.Event()
        self._exit = exit_process

    def check(self) -> None:
        """The write fence (:class:`~crossfn.controller.kube._api.WriteFence`): raise ``Fenced`` once this
        replica cannot be sure it still holds the Lease, and end its leadership at once."""
        renewed = self._renewed_at
        if self._leading and renewed is not None and self._clock() < renewed + self._deadline:
            return
        self._fence_tripped.set()
        raise _api.Fenced(
            f"not writing: this replica cannot be sure it still holds the Lease {self.namespace}/{self.name} "
            f"(not renewed within the renew deadline, {self._deadline:g}s)"
        )

    def sent(self) -> None:
        """A write's last bytes left the process just now: when that was past the fence, stop the process."""
        try:
            self.check()
        except _api.Fenced:
            _log.critical(
                "leader election lost while a write was being sent: it could not be fenced; exiting",
                extra={"lease": f"{self.namespace}/{self.name}", "identity": self.identity},
            )
            self._exit()

    @property
    def leading(self) -> bool:
        """Whether this candidate holds the Lease now (``/readyz`` reports it)."""
        return self._leading

    @property
    def holder(self) -> str:
        """The holder this candidate last saw in the Lease (``""``: none)."""
        return str((self._observed or {}).get("holderIdentity") or "")

    async def run(
        self,
        on_started_leading: Callable[[], Coroutine[Any, Any, None]],
        on_stopped_leading: Callable[[], Awaitable[None] | None] | None = None,
    ) -> None:
        """Lead while ``on_started_leading()`` runs; see the module docstring for when this returns.

        ``on_stopped_leading`` is called (and awaited when it returns an
        awaitable) after the work was cancelled, whenever this candidate had led.
        An exception raised by the work propagates after the Lease is released.
        """
        try:
            await self._acquire()
        except asyncio.CancelledError:
            if self._release_on_cancel:
                await self.release()
            raise
        work = asyncio.create_task(on_started_leading(), name=f"leading:{self.name}")
        lost = finished = False
        try:
            lost = await self._renew(work)
            finished = not lost
        finally:
            await self._stop(work)
            if finished or (not lost and self._release_on_cancel):
                await self.release()
            self._leading = False
            if on_stopped_leading is not None:
                result = on_stopped_leading()
                if result is not None:
                    await result
        failure = None if work.cancelled() else work.exception()
        if failure is not None:
            raise failure

    @staticmethod
    async def _stop(work: asyncio.Task[None]) -> None:
        if not work.done():
            work.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await work

    async def _acquire(self) -> None:
        """Try every ``retry_period`` (jittered) until this candidate holds the Lease."""
        while not await self.try_acquire_or_renew():
            await self._sleep(self._retry * (1 + (JITTER_FACTOR - 1) * self._jitter()))
        _log.info(
            "became leader", extra={"lease": f"{self.namespace}/{self.name}", "identity": self.identity}
        )

    async def _renew(self, work: asyncio.Task[None]) -> bool:
        """Renew every ``retry_period`` while ``work`` runs; ``True`` when leadership was lost."""
        last = self._clock()
        tripped = asyncio.ensure_future(self._fence_tripped.wait())
        try:
            while not work.done():
                sleeper = asyncio.ensure_future(self._sleep(self._retry))
                try:
                    await asyncio.wait({sleeper, work, tripped}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    if not sleeper.done():
                        sleeper.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await sleeper
                if work.done():
                    return False
                if tripped.done():
                    _log.error(
                        "leader election lost: a write was refused past the renew deadline",
                        extra={"lease": f"{self.namespace}/{self.name}", "identity": self.identity},
                    )
                    return True
                if await self._renew_once(last):
                    last = self._clock()
                elif self._clock() - last >= self._deadline:
                    _log.error(
                        "leader election lost: the Lease was not renewed within the renew deadline",
                        extra={"lease": f"{self.namespace}/{self.name}", "identity": self.identity},
                    )
                    return True
            return False
        finally:
            tripped.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await tripped

    async def _renew_once(self, last: float) -> bool:
        """One renewal attempt within what is left of the renew deadline since ``last``."""
        remaining = self._deadline - (self._clock() - last)
        if remaining <= 0:
            return False
        try:
            return await asyncio.wait_for(self.try_acquire_or_renew(), timeout=remaining)
        except TimeoutError:
            return False

    async def try_acquire_or_renew(self) -> bool:
        """One attempt: create, take over or renew the Lease; ``False`` when another holds it.

        API errors are logged and count as a failed attempt: the loops retry.
        """
        now = self._now()
        try:
            lease = await self._api.get(LEASE_API_VERSION, "Lease", self.name, self.namespace)
            if lease is None:
                sent = self._clock()  # the record cannot be seen by anyone before it is sent
                created = await self._api.create(self._lease(self._record(now, None)))
                self._observe(created)
                return self._renewed(sent)
            spec = dict(lease.get("spec") or {})
            self._observe(lease)
            holder = str(spec.get("holderIdentity") or "")
            if holder and holder != self.identity and not self._expired(spec):
                return False
            updated = dict(lease)
            updated["spec"] = self._record(now, spec)
            sent = self._clock()
            self._observe(await self._api.update(updated))
        except _api.Conflict:
            return False  # another candidate wrote first; the next attempt reads its record
        except _api.ApiError as exc:
            _log.warning(
                "cannot acquire or renew the leader election Lease",
                extra={"lease": f"{self.namespace}/{self.name}", "error": str(exc)},
            )
            return False
        return self._renewed(sent)

    def _renewed(self, sent: float) -> bool:
        """This candidate holds the Lease as of a write sent at ``sent``; ``False`` (an attempt to repeat)
        when the write took so long that its renew deadline has already passed."""
        if self._clock() - sent >= self._deadline:
            _log.warning(
                "the Lease was written, but later than the renew deadline allows: trying again",
                extra={"lease": f"{self.namespace}/{self.name}", "identity": self.identity},
            )
            return False
        self._renewed_at = sent
        self._fence_tripped.clear()
        self._leading = True
        return True

    def _expired(self, spec: Mapping[str, Any]) -> bool:
        """Whether the record has stood still for its ``leaseDurationSeconds`` on this clock."""
        try:
            duration = float(spec.get("leaseDurationSeconds") or self._duration)
        except (TypeError, ValueError):
            duration = self._duration
        return self._observed_at + duration <= self._clock()

    def _observe(self, lease: Mapping[str, Any]) -> None:
        """Remember the record and, when it changed, when this candidate first saw it."""
        spec = dict(lease.get("spec") or {})
        if spec != self._observed:
            self._observed = spec
            self._observed_at = self._clock()

    def _record(self, now: datetime.datetime, old: Mapping[str, Any] | None) -> dict[str, Any]:
        """The Lease spec this candidate writes: a renewal keeps acquire time and transitions."""
        stamp = _micro_time(now)
        transitions = int((old or {}).get("leaseTransitions") or 0)
        same_holder = old is not None and old.get("holderIdentity") == self.identity
        if old is not None and not same_holder:
            transitions += 1
        return {
            "holderIdentity": self.identity,
            "leaseDurationSeconds": int(self._duration),
            "acquireTime": (old or {}).get("acquireTime") if same_holder else stamp,
            "renewTime": stamp,
            "leaseTransitions": transitions,
        }

    def _lease(self, spec: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "apiVersion": LEASE_API_VERSION,
            "kind": "Lease",
            "metadata": {"name": self.name, "namespace": self.namespace},
            "spec": dict(spec),
        }

    async def release(self) -> bool:
        """Give the Lease up if this candidate holds it, so the next leader need not wait it out."""
        if not self._leading:
            return False
        self._leading = False
        self._renewed_at = None
        stamp = _micro_time(self._now())
        try:
            lease = await self._api.get(LEASE_API_VERSION, "Lease", self.name, self.namespace)
            spec = dict((lease or {}).get("spec") or {})
            if lease is None or spec.get("holderIdentity") != self.identity:
                return False
            updated = dict(lease)
            updated["spec"] = {
                "leaseDurationSeconds": 1,
                "acquireTime": stamp,
                "renewTime": stamp,
                "leaseTransitions": int(spec.get("leaseTransitions") or 0),
            }
            self._observe(await self._api.update(updated))
        except _api.ApiError as exc:
            _log.warning(
                "cannot release the leader election Lease",
                extra={"lease": f"{self.namespace}/{self.name}", "error": str(exc)},
            )
            return False
        _log.info("released the leader election Lease", extra={"lease": f"{self.namespace}/{self.name}"})
        return True
