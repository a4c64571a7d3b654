"""The call bounds both servers share: the gate, deadlines, the thread watchdog, the function threads (servers: test_server_faults)."""

from __future__ import annotations

import concurrent.futures
import time

import pytest

from crossfn.sdk import _calls, _threads


def test_gate_refuses_beyond_its_limit() -> None:
    gate = _calls.Gate(2)
    assert [gate.enter(), gate.enter(), gate.enter()] == [True, True, False]
    assert gate.in_flight == 2, "a refused call takes no place"
    gate.leave()
    assert gate.enter() is True


@pytest.mark.parametrize(
    ("client", "cap", "want", "reason"),
    [
        pytest.param(None, 120.0, 120.0, "no client deadline: the server's cap", id="NoClientDeadline"),
        pytest.param(5.0, 120.0, 5.0, "a shorter client deadline wins", id="ClientShorter"),
        pytest.param(1e9, 120.0, 120.0, "gRPC's 'infinite' deadline is capped", id="ClientInfinite"),
    ],
)
def test_deadline(client: float | None, cap: float, want: float, reason: str) -> None:
    before = time.monotonic()
    due = _calls.deadline(client, cap)
    assert before + want <= due <= time.monotonic() + want, reason


def test_watchdog_passes_results_through() -> None:
    assert _calls.Watchdog().run(time.monotonic() + 60, lambda a, b: a + b, 1, 2) == 3


def test_watchdog_interrupts_a_python_loop_and_leaves_the_thread_usable() -> None:
    watchdog = _calls.Watchdog()

    with pytest.raises(_calls.DeadlineExceeded):
        watchdog.run(time.monotonic() + 0.1, _spin_forever)
    assert watchdog.run(time.monotonic() + 60, lambda: "after") == "after"


def test_deadline_exceeded_passes_through_except_exception() -> None:
    """A function's own ``except Exception`` cannot swallow the interrupt."""
    caught: list[str] = []

    def careless() -> None:
        try:
            _spin_forever()
        except Exception:
            caught.append("swallowed")

    with pytest.raises(_calls.DeadlineExceeded):
        _calls.Watchdog().run(time.monotonic() + 0.1, careless)
    assert caught == []


def _spin_forever() -> None:
    while True:
        pass


def test_a_tickets_done_callbacks_run_once_whenever_they_are_added() -> None:
    """gRPC adds its callback after handing the call over: the call may be done by then."""
    ticket = _threads.Ticket(print, (), 0.0, admitted=True)
    seen: list[str] = []
    ticket.add_done_callback(lambda t: seen.append("before"))
    ticket._finish()
    ticket.add_done_callback(lambda t: seen.append("after"))
    assert seen == ["before", "after"]


def test_function_threads_take_positional_arguments_only() -> None:
    gate = _calls.Gate(1)
    with concurrent.futures.ThreadPoolExecutor(1) as spare:
        threads = _threads.FunctionThreads(1, gate, 60.0, spare)
        with pytest.raises(TypeError, match="positional arguments only"):
            threads.submit(print, end="")
    assert gate.in_flight == 0
