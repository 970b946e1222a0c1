"""Push events from Git hosts: which host sent a request, whether it is genuine, what moved.

- GitHub signs the body with HMAC-SHA256 of the shared secret: `X-Hub-Signature-256:
  sha256=<hex>`; the event name is in `X-GitHub-Event` (`push`, `ping`, ...).
- GitLab sends the secret itself in `X-Gitlab-Token`; the event is `X-Gitlab-Event: Push Hook`.
- Gitea signs like GitHub, without the prefix: `X-Gitea-Signature: <hex>`; event in
  `X-Gitea-Event`. Gitea also sends GitHub's headers, so it is recognised first.
- Bitbucket (Data Center and Cloud, with a webhook secret) signs like GitHub in
  `X-Hub-Signature: sha256=<hex>`; the event is in `X-Event-Key`: `repo:refs_changed` (Data
  Center: `changes[].refId` and `toHash`) or `repo:push` (Cloud: `push.changes[].new`, a
  branch's `name` and `target.hash`). One push may move several refs.

GitLab's token is in the headers, so a wrong one is refused before the body is read; the
signatures need the body, but a request without one is refused as early. Each host names the
event it delivers (`X-GitHub-Delivery`, `Idempotency-Key`, `X-Gitea-Delivery`, Bitbucket's
`X-Request-Id` or `X-Request-UUID`), the same id on
every attempt to deliver it, which lets a replay be told apart.

Comparisons are constant-time, of bytes (`hmac.compare_digest` refuses strings that are not
ASCII, which anybody can send). A request is never trusted for what to render: a genuine push
to the source branch only wakes the reconciler, which reads the branch itself.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any


class Provider(enum.StrEnum):
    GITHUB = "github"
    GITLAB = "gitlab"
    GITEA = "gitea"
    BITBUCKET = "bitbucket"


_EVENT_HEADER = {
    Provider.GITEA: "x-gitea-event",
    Provider.GITLAB: "x-gitlab-event",
    Provider.BITBUCKET: "x-event-key",
    Provider.GITHUB: "x-github-event",
}
_SIGNATURE_HEADER = {
    Provider.GITEA: "x-gitea-signature",
    Provider.GITLAB: "x-gitlab-token",
    Provider.BITBUCKET: "x-hub-signature",
    Provider.GITHUB: "x-hub-signature-256",
}
_DELIVERY_HEADERS = {
    Provider.GITEA: ("x-gitea-delivery",),
    Provider.GITLAB: ("idempotency-key",),
    Provider.BITBUCKET: ("x-request-id", "x-request-uuid"),
    Provider.GITHUB: ("x-github-delivery",),
}
_PREFIXED = {Provider.GITHUB, Provider.BITBUCKET}
"""The hosts whose signature starts with `sha256=`."""
_PUSH_EVENTS = {"push", "push hook"}
_BITBUCKET_DATA_CENTER_PUSH = "repo:refs_changed"
_BITBUCKET_CLOUD_PUSH = "repo:push"


@dataclasses.dataclass(frozen=True, slots=True)
class Push:
    """A push event: the ref that moved and the commit it moved to."""

    provider: Provider
    ref: str
    after: str


def _lower(headers: Mapping[str, str]) -> dict[str, str]:
    return {key.lower(): value for key, value in headers.items()}


def identify(headers: Mapping[str, str]) -> Provider | None:
    """The host that sent the request, from its event header; None for anything else."""
    found = _lower(headers)
    return next((p for p, header in _EVENT_HEADER.items() if header in found), None)


def _hmac_hex(secret: bytes, body: bytes) -> str:
    return hmac.new(secret, body, hashlib.sha256).hexdigest()


def _gitlab_token_matches(found: Mapping[str, str], secret: bytes) -> bool:
    token = found.get(_SIGNATURE_HEADER[Provider.GITLAB], "").encode()
    return bool(token) and hmac.compare_digest(token, secret)


def verify_headers(provider: Provider, headers: Mapping[str, str], secret: bytes) -> bool:
    """What the headers alone can tell, before the body is read: False when the request cannot
    be genuine (GitLab's token is wrong, a signature is missing); True when it may be, which
    for GitHub and Gitea `verify` must still confirm on the body."""
    found = _lower(headers)
    if provider is Provider.GITLAB:
        return _gitlab_token_matches(found, secret)
    return bool(found.get(_SIGNATURE_HEADER[provider]))


def verify(provider: Provider, headers: Mapping[str, str], body: bytes, secret: bytes) -> bool:
    """Whether the request carries the right signature (or token) for `secret`."""
    found = _lower(headers)
    if provider is Provider.GITLAB:
        return _gitlab_token_matches(found, secret)
    given = found.get(_SIGNATURE_HEADER[provider], "").lower().encode()
    expected = _hmac_hex(secret, body)
    if provider in _PREFIXED:
        expected = "sha256=" + expected
    return bool(given) and hmac.compare_digest(given, expected.encode())


def delivery_of(provider: Provider, headers: Mapping[str, str]) -> str | None:
    """The id the host gave the event (kept when it delivers the event again); None when the
    request carries none (older GitLab releases, a client signing by hand)."""
    found = _lower(headers)
    return next((found[h] for h in _DELIVERY_HEADERS[provider] if found.get(h)), None)


def pushes_of(provider: Provider, headers: Mapping[str, str], body: bytes) -> tuple[Push, ...]:
    """The refs a verified request reports moved, each with its new commit; none for other
    events (ping, tag, ...) or a body that is not a push payload."""
    event = _lower(headers).get(_EVENT_HEADER[provider], "").strip().lower()
    if event not in (*_PUSH_EVENTS, _BITBUCKET_DATA_CENTER_PUSH, _BITBUCKET_CLOUD_PUSH):
        return ()
    try:
        payload = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return ()
    if not isinstance(payload, dict):
        return ()
    if event == _BITBUCKET_DATA_CENTER_PUSH:
        moved = [(c.get("refId"), c.get("toHash")) for c in _objects(payload.get("changes"))]
    elif event == _BITBUCKET_CLOUD_PUSH:
        moved = [_cloud_change(c.get("new")) for c in _objects(_get(payload, "push", "changes"))]
    else:
        moved = [(payload.get("ref"), payload.get("after"))]
    return tuple(
        Push(provider, ref, after)
        for ref, after in moved
        if isinstance(ref, str) and isinstance(after, str)
    )


def _objects(found: Any) -> list[dict[str, Any]]:
    return [item for item in found if isinstance(item, dict)] if isinstance(found, list) else []


def _get(found: Any, *keys: str) -> Any:
    for key in keys:
        found = found.get(key) if isinstance(found, dict) else None
    return found


def _cloud_change(new: Any) -> tuple[Any, Any]:
    """Bitbucket Cloud's `new` side of a change: a branch's ref and commit (None for a
    deleted branch or a tag)."""
    if _get(new, "type") != "branch" or not isinstance(_get(new, "name"), str):
        return None, None
    return f"refs/heads/{new['name']}", _get(new, "target", "hash")


def sign_github(secret: bytes, body: bytes) -> str:
    """The `X-Hub-Signature-256` value GitHub would send (for clients and tests)."""
    return "sha256=" + _hmac_hex(secret, body)


def sign_gitea(secret: bytes, body: bytes) -> str:
    """The `X-Gitea-Signature` value Gitea would send."""
    return _hmac_hex(secret, body)


def sign_bitbucket(secret: bytes, body: bytes) -> str:
    """The `X-Hub-Signature` value Bitbucket would send."""
    return sign_github(secret, body)
