"""Webhook requests from GitHub, GitLab, Gitea and Bitbucket: which host, genuine or not, what
moved.

Aspects covered:
- each host is recognised by its event header; Gitea first, although it also sends GitHub's;
- a correct signature (GitHub, Gitea: HMAC-SHA256 of the body) or token (GitLab) verifies;
  a wrong one, one for another body, a missing one, one that is not ASCII, or another
  host's header does not;
- a push payload gives its ref and new commit (Bitbucket's, every branch and tag it moved, not
  a deleted branch); other events and broken bodies give none.
"""

from __future__ import annotations

import json

import pytest

from gitfleet.service import webhook

SECRET = b"s3cret"
BODY = json.dumps({"ref": "refs/heads/main", "after": "a" * 40}).encode()
BARE = webhook.sign_gitea(SECRET, BODY)


def github(body: bytes = BODY, secret: bytes = SECRET, event: str = "push") -> dict[str, str]:
    return {"X-GitHub-Event": event, "X-Hub-Signature-256": webhook.sign_github(secret, body)}


def gitlab(token: bytes = SECRET, event: str = "Push Hook") -> dict[str, str]:
    return {"X-Gitlab-Event": event, "X-Gitlab-Token": token.decode()}


def bitbucket(
    body: bytes = BODY, secret: bytes = SECRET, event: str = "repo:refs_changed"
) -> dict[str, str]:
    return {"X-Event-Key": event, "X-Hub-Signature": webhook.sign_bitbucket(secret, body)}


DATA_CENTER = json.dumps({"changes": [
    {"refId": "refs/heads/main", "toHash": "a" * 40, "type": "UPDATE"},
    {"refId": "refs/tags/v2", "toHash": "c" * 40, "type": "ADD"},
    {"refId": 7, "toHash": "d" * 40},
    "not a change",
]}).encode()  # fmt: skip
CLOUD = json.dumps({"push": {"changes": [
    {"new": {"type": "branch", "name": "main", "target": {"hash": "a" * 40}}},
    {"new": None, "old": {"type": "branch", "name": "gone"}},
    {"new": {"type": "tag", "name": "v2", "target": {"hash": "c" * 40}}},
    {"new": {"type": "branch", "name": "dev", "target": {}}},
]}}).encode()  # fmt: skip


def gitea(body: bytes = BODY, secret: bytes = SECRET) -> dict[str, str]:
    return {
        "X-Gitea-Event": "push",
        "X-Gitea-Signature": webhook.sign_gitea(secret, body),
        "X-GitHub-Event": "push",
        "X-Hub-Signature-256": "sha256=" + "0" * 64,
    }


@pytest.mark.parametrize(
    ("headers", "provider"),
    [
        pytest.param(github(), webhook.Provider.GITHUB, id="github"),
        pytest.param(gitlab(), webhook.Provider.GITLAB, id="gitlab"),
        pytest.param(gitea(), webhook.Provider.GITEA, id="gitea sends github headers too"),
        pytest.param({"x-github-event": "push"}, webhook.Provider.GITHUB, id="lowercase header"),
        pytest.param(bitbucket(), webhook.Provider.BITBUCKET, id="bitbucket"),
        pytest.param({"Content-Type": "application/json"}, None, id="no event header"),
    ],
)
def test_identify(headers: dict[str, str], provider: webhook.Provider | None) -> None:
    assert webhook.identify(headers) == provider


@pytest.mark.parametrize(
    ("provider", "headers", "body", "ok"),
    [
        pytest.param(webhook.Provider.GITHUB, github(), BODY, True, id="github signed"),
        pytest.param(webhook.Provider.GITHUB, github(secret=b"other"), BODY, False,
                     id="github wrong secret"),
        pytest.param(webhook.Provider.GITHUB, github(), BODY + b" ", False,
                     id="github body changed after signing"),
        pytest.param(webhook.Provider.GITHUB, {"X-GitHub-Event": "push"}, BODY, False,
                     id="github unsigned"),
        pytest.param(webhook.Provider.GITHUB, {**github(), "X-Hub-Signature-256": BARE},
                     BODY, False, id="github signature without its prefix"),
        pytest.param(webhook.Provider.GITLAB, gitlab(), BODY, True, id="gitlab token"),
        pytest.param(webhook.Provider.GITLAB, gitlab(b"nope"), BODY, False,
                     id="gitlab wrong token"),
        pytest.param(webhook.Provider.GITLAB, {"X-Gitlab-Event": "Push Hook"}, BODY, False,
                     id="gitlab no token"),
        pytest.param(webhook.Provider.GITEA, gitea(), BODY, True, id="gitea signed"),
        pytest.param(webhook.Provider.GITEA, gitea(secret=b"x"), BODY, False, id="gitea wrong"),
        pytest.param(webhook.Provider.GITEA, {"X-Gitea-Event": "push", **github()}, BODY, False,
                     id="gitea with only github's signature"),
        pytest.param(webhook.Provider.GITHUB, {**github(), "X-Hub-Signature-256": "sha256=é"},
                     BODY, False, id="github signature not ascii"),
        pytest.param(webhook.Provider.GITEA, {**gitea(), "X-Gitea-Signature": "ü" * 64}, BODY,
                     False, id="gitea signature not ascii"),
        pytest.param(webhook.Provider.GITLAB, gitlab("jeton-été".encode()), BODY, False,
                     id="gitlab token not ascii"),
        pytest.param(webhook.Provider.BITBUCKET, bitbucket(), BODY, True, id="bitbucket signed"),
        pytest.param(webhook.Provider.BITBUCKET, bitbucket(secret=b"x"), BODY, False,
                     id="bitbucket wrong secret"),
        pytest.param(webhook.Provider.BITBUCKET, {**bitbucket(), "X-Hub-Signature": BARE}, BODY,
                     False, id="bitbucket signature without its prefix"),
        pytest.param(webhook.Provider.BITBUCKET, {"X-Event-Key": "repo:push", **github()}, BODY,
                     False, id="bitbucket with only github's signature"),
    ],
)  # fmt: skip
def test_verify(provider: webhook.Provider, headers: dict[str, str], body: bytes, ok: bool) -> None:
    assert webhook.verify(provider, headers, body, SECRET) is ok


@pytest.mark.parametrize(
    ("provider", "headers", "body", "expected"),
    [
        pytest.param(webhook.Provider.GITHUB, github(), BODY, ("refs/heads/main", "a" * 40),
                     id="github push"),
        pytest.param(webhook.Provider.GITLAB, gitlab(), BODY, ("refs/heads/main", "a" * 40),
                     id="gitlab push"),
        pytest.param(webhook.Provider.GITEA, gitea(), BODY, ("refs/heads/main", "a" * 40),
                     id="gitea push"),
        pytest.param(webhook.Provider.GITHUB, github(event="ping"), b'{"zen": "x"}', None,
                     id="github ping"),
        pytest.param(webhook.Provider.GITLAB, gitlab(event="Tag Push Hook"), BODY, None,
                     id="gitlab tag push"),
        pytest.param(webhook.Provider.GITHUB, github(), b"not json", None, id="broken body"),
        pytest.param(webhook.Provider.GITHUB, github(), b"[1, 2]", None, id="not an object"),
        pytest.param(webhook.Provider.GITHUB, github(), b'{"ref": 3, "after": "x"}', None,
                     id="ref not a string"),
    ],
)  # fmt: skip
def test_push_of(
    provider: webhook.Provider,
    headers: dict[str, str],
    body: bytes,
    expected: tuple[str, str] | None,
) -> None:
    pushes = webhook.pushes_of(provider, headers, body)
    assert [(p.ref, p.after) for p in pushes] == ([expected] if expected else [])


@pytest.mark.parametrize(
    ("event", "body", "expected"),
    [
        pytest.param("repo:refs_changed", DATA_CENTER,
                     [("refs/heads/main", "a" * 40), ("refs/tags/v2", "c" * 40)], id="data center"),
        pytest.param("repo:push", CLOUD, [("refs/heads/main", "a" * 40)], id="cloud"),
        pytest.param("repo:refs_changed", CLOUD, [], id="cloud's body for data center's event"),
        pytest.param("diagnostics:ping", DATA_CENTER, [], id="test connection"),
        pytest.param("repo:push", b'{"push": {"changes": {}}}', [], id="changes not a list"),
        pytest.param("repo:push", BODY, [], id="a github body"),
    ],
)  # fmt: skip
def test_bitbucket_pushes(event: str, body: bytes, expected: list[tuple[str, str]]) -> None:
    pushes = webhook.pushes_of(webhook.Provider.BITBUCKET, bitbucket(body, event=event), body)
    assert [(p.ref, p.after) for p in pushes] == expected


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        pytest.param({"X-Request-Id": "a-1"}, "a-1", id="data center"),
        pytest.param({"X-Request-UUID": "{b-2}", "X-Hook-UUID": "{hook}"}, "{b-2}", id="cloud"),
        pytest.param({}, None, id="none"),
    ],
)
def test_bitbucket_delivery(headers: dict[str, str], expected: str | None) -> None:
    assert webhook.delivery_of(webhook.Provider.BITBUCKET, headers) == expected
