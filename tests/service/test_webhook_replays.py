"""Replayed webhook deliveries are refused within the replay window.

Aspects covered:
- a delivery id already accepted is refused (409) and wakes nothing, for each host's header;
- a body already accepted is refused under a new delivery id (the signature covers the body,
  not the id), and without any delivery id;
- a new delivery with a new body is accepted; a delivery without an id is accepted once;
- after the window has passed, the same delivery is accepted again;
- a request that failed its signature takes no id away from the genuine delivery;
- the window forgets its oldest deliveries beyond its capacity.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from service.webhook_client import Served, gitea, github, gitlab, push_body

from gitfleet.service import replay, server, webhook

FIRST, SECOND = push_body(after="1" * 40), push_body(after="2" * 40)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("first", "again", "body_again"),
    [
        pytest.param(github(FIRST, delivery="d"), github(SECOND, delivery="d"), SECOND,
                     id="github id"),
        pytest.param(gitlab(delivery="d"), gitlab(delivery="d"), SECOND,
                     id="gitlab idempotency key"),
        pytest.param(gitea(FIRST, delivery="d"), gitea(SECOND, delivery="d"), SECOND,
                     id="gitea id"),
        pytest.param(github(FIRST, delivery="d"), github(FIRST, delivery="e"), FIRST,
                     id="same body, new id"),
        pytest.param(github(FIRST), github(FIRST), FIRST, id="same body, no id"),
    ],
)  # fmt: skip
def test_replay_is_refused(
    served: Served, first: dict[str, str], again: dict[str, str], body_again: bytes
) -> None:
    assert served.post(first, FIRST)[0] == 202
    assert served.wake.wait(0) == ("webhook",)
    assert served.post(again, body_again) == (409, "delivery already accepted\n")
    assert served.wake.wait(0) == ()
    assert served.names() == ["webhook", "webhook-rejected"]
    assert served.events[1].fields["status"] == 409


@pytest.mark.parametrize(
    ("first", "then"),
    [
        pytest.param(github(FIRST, delivery="d"), github(SECOND, delivery="e"), id="new id"),
        pytest.param(github(FIRST), github(SECOND), id="no ids, new body"),
    ],
)
def test_new_delivery_is_accepted(
    served: Served, first: dict[str, str], then: dict[str, str]
) -> None:
    assert served.post(first, FIRST)[0] == 202
    assert served.post(then, SECOND)[0] == 202
    assert served.names() == ["webhook", "webhook"]


def test_accepted_again_after_the_window(serve: Callable[..., Served]) -> None:
    clock = Clock()
    served = serve(server.Limits(replay_window=60.0), clock)
    headers = github(FIRST, delivery="d")
    assert served.post(headers, FIRST)[0] == 202
    clock.now += 59.0
    assert served.post(headers, FIRST)[0] == 409
    clock.now += 2.0
    assert served.post(headers, FIRST)[0] == 202


def test_forged_request_takes_no_delivery_away(served: Served) -> None:
    forged = github(FIRST, delivery="d") | {"X-Hub-Signature-256": webhook.sign_github(b"x", FIRST)}
    assert served.post(forged, FIRST)[0] == 401
    assert served.post(github(FIRST, delivery="d"), FIRST)[0] == 202


def test_window_forgets_the_oldest_beyond_its_capacity() -> None:
    window = replay.Window(seconds=60.0, capacity=4)
    first, second, third = (replay.keys_of("github", f"d{n}", b"%d" % n) for n in range(3))
    assert [window.admit(keys, 0.0) for keys in (first, second, third)] == [True, True, True]
    assert not window.admit(third, 1.0)
    assert window.admit(first, 1.0), "the first delivery's two keys were forgotten"
