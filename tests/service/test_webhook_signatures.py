"""Webhook requests from GitHub, GitLab and Gitea: which host, genuine or not, what moved.

Aspects covered:
- each host is recognised by its event header; Gitea first, although it also sends GitHub's;
- a correct signature (GitHub, Gitea: HMAC-SHA256 of the body) or token (GitLab) verifies;
  a wrong one, one for another body, a missing one, one that is not ASCII, or another
  host's header does not;
- a push payload gives its ref and new commit; other events and broken bodies give none.
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
    push = webhook.push_of(provider, headers, body)
    assert (None if push is None else (push.ref, push.after)) == expected
