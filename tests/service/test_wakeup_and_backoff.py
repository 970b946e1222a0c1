"""Pokes collapse and stops are heard; backoff doubles up to its cap.

Aspects covered:
- pokes made while nobody waits are all returned by the next wait, once each, in order;
- a wait with nothing pending times out empty; a poke from another thread ends a wait;
- a stop ends a wait at once and makes every later wait return nothing;
- `sleep` ignores pokes (they stay pending) but not a stop;
- backoff delays double from the base, stop at the cap, and start over after a reset.
"""

from __future__ import annotations

import threading

from gitfleet.service import backoff, wakeup


def test_pokes_collapse_into_one_wakeup() -> None:
    wake = wakeup.Wakeup()
    for reason in ("watch", "webhook", "watch", "watch"):
        wake.poke(reason)
    assert wake.wait(0) == ("watch", "webhook")
    assert wake.wait(0) == ()


def test_poke_from_another_thread_ends_a_wait() -> None:
    wake = wakeup.Wakeup()
    timer = threading.Timer(0.05, wake.poke, args=("webhook",))
    timer.start()
    assert wake.wait(30) == ("webhook",)
    timer.join()


def test_stop_ends_a_wait_and_every_later_one() -> None:
    wake = wakeup.Wakeup()
    timer = threading.Timer(0.05, wake.stop)
    timer.start()
    assert wake.wait(30) == ()
    timer.join()
    wake.poke("watch")
    assert wake.stopped
    assert wake.wait(30) == ()


def test_sleep_ignores_pokes_but_not_stop() -> None:
    wake = wakeup.Wakeup()
    wake.poke("watch")
    assert wake.sleep(0.01) is True
    assert wake.wait(0) == ("watch",)
    threading.Timer(0.05, wake.stop).start()
    assert wake.sleep(30) is False


def test_backoff_doubles_to_its_cap_and_resets() -> None:
    delays = backoff.Backoff(base=0.5, cap=3.0)
    assert [delays.next_delay() for _ in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    delays.reset()
    assert delays.next_delay() == 0.5


def test_backoff_survives_many_failures() -> None:
    delays = backoff.Backoff(base=1.0, cap=60.0, failures=10_000)
    assert delays.next_delay() == 60.0
