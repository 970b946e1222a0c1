"""`signals.on_stop_signal`: SIGINT and SIGTERM reach the stop handler whatever the main thread
is doing; `signals.interrupts_remembered`: a SIGINT whose KeyboardInterrupt was lost still
stops the command.

Aspects covered:
- a KeyboardInterrupt raised inside a finalizer (which Python drops) or caught by a broad
  `except` is still heard, and `checkpoint` raises it again; a later block starts unheard and
  the previous handler comes back;
- a signal the kernel hands to another thread (as it does to a thread starting a subprocess)
  still stops a main thread blocked in `Event.wait`;
- every SIGINT or SIGTERM calls the handler, none raises KeyboardInterrupt or ends the process,
  and the previous handlers, the wakeup descriptor and no relay thread are left afterwards.
"""

from __future__ import annotations

import signal
import threading
import time

import pytest

from gitfleet.cli import signals

BOUND = 20.0
"""Seconds after which a wait means the signal was lost (it normally takes milliseconds)."""


def test_a_signal_taken_by_another_thread_stops_a_main_thread_blocked_in_a_wait() -> None:
    def take() -> None:
        time.sleep(0.5)  # the main thread is blocked in its wait by then
        # The signal goes to this thread, not the main one, as the kernel may deliver a signal
        # sent to the process.
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)

    with signals.stop_on_signal() as stop:
        taker = threading.Thread(target=take)
        taker.start()
        heard = stop.wait(BOUND)
        taker.join()
    assert heard, "the stop handler did not run while the main thread waited"


def test_every_signal_calls_the_handler_and_everything_is_put_back() -> None:
    before = {sig: signal.getsignal(sig) for sig in signals.STOP_SIGNALS}
    wakeup_before = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(wakeup_before)
    calls: list[float] = []
    with signals.on_stop_signal(lambda: calls.append(time.monotonic())):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGINT):
            signal.raise_signal(sig)
        deadline = time.monotonic() + BOUND
        while len(calls) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    assert len(calls) == 3
    assert {sig: signal.getsignal(sig) for sig in signals.STOP_SIGNALS} == before
    wakeup_after = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(wakeup_after)
    assert wakeup_after == wakeup_before
    assert not [t for t in threading.enumerate() if t.name == "gitfleet-signals"]


class _InterruptedWhenCollected:
    """Ctrl-C at the moment Python runs a finalizer, as GitPython's close its git processes."""

    def __del__(self) -> None:
        signal.raise_signal(signal.SIGINT)


def test_an_interrupt_lost_in_a_finalizer_is_heard_without_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with signals.interrupts_remembered():
        _InterruptedWhenCollected()
        assert signals.interrupted()
        with pytest.raises(KeyboardInterrupt):
            signals.checkpoint()
    assert "KeyboardInterrupt" not in capsys.readouterr().err


def test_an_interrupt_caught_on_the_way_is_heard_and_a_later_block_starts_unheard() -> None:
    before = signal.getsignal(signal.SIGINT)
    with signals.interrupts_remembered():
        with pytest.raises(KeyboardInterrupt):  # as a broad `except` would catch it
            signal.raise_signal(signal.SIGINT)
        assert signals.interrupted()
    assert signal.getsignal(signal.SIGINT) is before
    with signals.interrupts_remembered():
        assert not signals.interrupted()
        signals.checkpoint()
