"""What the webhook endpoint answers, and what it logs and wakes; the HTTP is `server`'s.

A request is judged in two steps, so that as little as possible is read from a stranger:
`head` on the request line and headers alone (the health check; a request from no known host;
GitLab's token; a missing signature; a declared body over the limit), then `body` on the body
(GitHub's and Gitea's signatures; a replay; what was pushed). Replies:

| status | when | logged as |
|---|---|---|
| 202 | a genuine push to the source branch: the reconciler is woken | `webhook` |
| 200 | a genuine event that needs nothing (another branch, a ping) | `webhook-ignored` |
| 400 | a request from no known host, or one that is not HTTP | `webhook-rejected` |
| 401 | a missing or wrong signature or token | `webhook-rejected` |
| 404, 405 | GET of a path but `/healthz` (which answers `ok`); a method but GET and POST | no |
| 408 | no complete request within the time limit | `webhook-rejected` |
| 409 | a delivery already accepted within the replay window | `webhook-rejected` |
| 413, 431 | a body or headers over their limit | `webhook-rejected` |

A client that goes away before the reply is logged once as `webhook-dropped` (not at all when
it sent nothing), a failure of the server itself as `webhook-error`. Nothing but a 202 does
anything.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping

from gitfleet.service import events, replay, wakeup, webhook

HEALTH_PATH = "/healthz"
_QUOTED = 100
"""Characters of a delivery id kept in the log (a refused request's id is anybody's text)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Reply:
    status: int
    text: str


class Endpoint:
    """Judges requests for one source ref and secret; used from the server's one loop thread
    (the replay window is not shared between threads)."""

    def __init__(
        self,
        secret: bytes,
        source_ref: str,
        wake: wakeup.Wakeup,
        sink: events.Sink,
        *,
        max_body: int,
        replays: replay.Window,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.secret = secret
        self.source_ref = source_ref
        self.wake = wake
        self.sink = sink
        self.max_body = max_body
        self.replays = replays
        self.clock = clock

    def head(self, method: str, path: str, headers: Mapping[str, str], peer: str) -> Reply | None:
        """The reply due before any of the body is read, or None when the body decides.
        Header names are in lower case, as h11 gives them."""
        if method == "GET":
            found = path.split("?")[0] == HEALTH_PATH
            return Reply(200, "ok") if found else Reply(404, "not found")
        if method != "POST":
            return Reply(405, "only POST (and GET /healthz)")
        provider = webhook.identify(headers)
        if provider is None:
            return self.reject(400, "no GitHub, GitLab, Gitea or Bitbucket event", peer)
        if not webhook.verify_headers(provider, headers, self.secret):
            return self.reject(401, "missing or wrong signature", peer, headers)
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_body:
            return self.too_large(peer, headers)
        return None

    def body(self, headers: Mapping[str, str], body: bytes, peer: str) -> Reply:
        """The reply to a whole POST that `head` let through; wakes the reconciler for a
        genuine push to the source branch."""
        provider = webhook.identify(headers)
        assert provider is not None, "head() refuses requests from no known host"
        if not webhook.verify(provider, headers, body, self.secret):
            return self.reject(401, "missing or wrong signature", peer, headers)
        delivery = webhook.delivery_of(provider, headers)
        if not self.replays.admit(replay.keys_of(provider, delivery, body), self.clock()):
            return self.reject(409, "delivery already accepted", peer, headers)
        pushes = webhook.pushes_of(provider, headers, body)
        push = next((p for p in pushes if p.ref == self.source_ref), None)
        if push is None:
            ref = ",".join(p.ref for p in pushes) or None
            after = pushes[0].after if pushes else ""
            self._log("webhook-ignored", after, **_origin(headers), ref=ref)
            return Reply(200, "ignored")
        self._log("webhook", push.after, **_origin(headers), ref=push.ref)
        self.wake.poke("webhook")
        return Reply(202, "accepted")

    def too_large(self, peer: str, headers: Mapping[str, str]) -> Reply:
        return self.reject(413, f"body over {self.max_body} bytes", peer, headers)

    def reject(
        self, status: int, reason: str, peer: str, headers: Mapping[str, str] | None = None
    ) -> Reply:
        """Log a refusal and give its reply (the reason is the reply's text too)."""
        fields = {"status": status, "reason": reason, "peer": peer, **_origin(headers or {})}
        self._log("webhook-rejected", "", **fields)
        return Reply(status, reason)

    def dropped(self, reason: str, peer: str) -> None:
        """Log a client that went away before it was answered."""
        self._log("webhook-dropped", "", reason=reason, peer=peer)

    def failed(self, error: str, peer: str) -> None:
        """Log what went wrong in the server itself (the service goes on)."""
        self._log("webhook-error", "", error=error, peer=peer)

    def _log(self, name: str, source: str, **fields: events.Value) -> None:
        self.sink(events.Event(name, source, self.clock(), fields))


def _origin(headers: Mapping[str, str]) -> dict[str, events.Value]:
    """The host that sent the request and the id it gave the event, for the log."""
    provider = webhook.identify(headers)
    if provider is None:
        return {}
    delivery = webhook.delivery_of(provider, headers)
    return {"provider": str(provider), "delivery": delivery and delivery[:_QUOTED]}
