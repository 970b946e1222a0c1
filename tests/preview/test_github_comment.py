"""The sticky pull-request comment, against a stand-in for GitHub's REST API on 127.0.0.1.

Aspects covered:
- the first run creates the comment; later runs update that same comment, found by its
  marker across pages of comments (Link: rel="next"), and leave others' comments alone;
- a comment starting with the marker that someone else wrote (anyone can comment on a pull
  request) is neither updated nor taken for the preview: the token's own one is created, or
  with `--author` the one that login wrote;
- requests carry the token, GitHub's JSON media type and API version;
- the pull request number comes from --pr or from the Actions event file;
- a body without the marker gets it; one over the limit is cut with a note;
- an API error is reported on stderr with exit 1; no pull request number is a usage error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from preview.fake_github import BOT, REPO, FakeGitHub

from gitfleet.preview import github_comment, markdown


@pytest.fixture(name="github")
def github_fixture() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()
    fake.start()
    yield fake
    fake.close()


def post(
    github: FakeGitHub, tmp_path: Path, body: str, *args: str, env: dict[str, str] | None = None
) -> Any:
    path = tmp_path / "preview.md"
    path.write_text(body, encoding="utf-8")
    environment = {"GITHUB_REPOSITORY": REPO, "GITHUB_API_URL": github.url, "GITHUB_TOKEN": "tkn"}
    return CliRunner().invoke(
        github_comment.main, ["--body-file", str(path), *args], env={**environment, **(env or {})}
    )


def test_creates_then_updates_one_comment(github: FakeGitHub, tmp_path: Path) -> None:
    for i in range(3):
        github.add(f"comment {i}")
    first = post(github, tmp_path, f"{markdown.MARKER}\nfirst\n", "--pr", "7")
    assert first.exit_code == 0, first.output
    assert first.output == "created https://example/c/103\n"
    github.add("a later comment")
    second = post(github, tmp_path, f"{markdown.MARKER}\nsecond\n", "--pr", "7")
    assert second.output == "updated https://example/c/103\n"
    bodies = [c["body"] for c in github.comments]
    assert bodies == ["comment 0", "comment 1", "comment 2", f"{markdown.MARKER}\nsecond\n",
                      "a later comment"]  # fmt: skip
    pages = [path for method, path, _ in github.requests if method == "GET"]
    assert pages[-3:] == [f"/repos/{REPO}/issues/7/comments?per_page=100",
                          f"/repos/{REPO}/issues/7/comments?per_page=100&page=2",
                          f"/repos/{REPO}/issues/7/comments?per_page=100&page=3"]  # fmt: skip


def test_a_marker_someone_else_wrote_is_not_the_preview(github: FakeGitHub, tmp_path: Path) -> None:
    fake = f"{markdown.MARKER}\n### gitfleet preview: `main` → `pr`\n\n**no change**\n"
    github.add(fake, "mallory")
    done = post(github, tmp_path, f"{markdown.MARKER}\nreal\n", "--pr", "7")
    assert done.output == "created https://example/c/101\n"
    assert [(c["user"]["login"], c["body"]) for c in github.comments] == [
        ("mallory", fake),
        (BOT, f"{markdown.MARKER}\nreal\n"),
    ]
    assert "PATCH" not in {method for method, _, _ in github.requests}
    again = post(github, tmp_path, f"{markdown.MARKER}\nagain\n", "--pr", "7")
    assert again.output == "updated https://example/c/101\n"
    assert github.comments[0]["body"] == fake


def test_another_tokens_author(github: FakeGitHub, tmp_path: Path) -> None:
    github.add(f"{markdown.MARKER}\nold\n", "fleet-bot")
    done = post(github, tmp_path, "new\n", "--pr", "7", "--author", "fleet-bot")
    assert done.output == "updated https://example/c/100\n"
    assert github.comments[0]["body"] == f"{markdown.MARKER}\nnew\n"


def test_requests_carry_token_and_api_headers(github: FakeGitHub, tmp_path: Path) -> None:
    post(github, tmp_path, "x", "--pr", "7")
    for _, _, headers in github.requests:
        assert headers["authorization"] == "Bearer tkn"
        assert headers["accept"] == "application/vnd.github+json"
        assert headers["x-github-api-version"] == "2022-11-28"


def test_number_from_the_event_file(github: FakeGitHub, tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7}}), encoding="utf-8")
    done = post(github, tmp_path, "hello", env={"GITHUB_EVENT_PATH": str(event)})
    assert done.exit_code == 0, done.output
    assert ("POST", f"/repos/{REPO}/issues/7/comments") in {(m, p) for m, p, _ in github.requests}


def test_marker_is_added(github: FakeGitHub, tmp_path: Path) -> None:
    post(github, tmp_path, "no marker here\n", "--pr", "7")
    assert github.comments[-1]["body"] == f"{markdown.MARKER}\nno marker here\n"


def test_fit_cuts_an_oversized_body() -> None:
    body = github_comment.fit(markdown.MARKER + "\n" + "x" * 70_000)
    assert len(body) == markdown.LIMIT
    assert body.endswith("run `gitfleet preview` locally._\n")


def test_api_error_exits_1(github: FakeGitHub, tmp_path: Path) -> None:
    github.fail = 401
    done = CliRunner().invoke(
        github_comment.main,
        ["--body-file", "-", "--pr", "7", "--repo", REPO, "--api", github.url],
        input="x",
    )
    assert done.exit_code == 1
    assert "HTTP 401" in done.stderr and "Bad credentials" in done.stderr
    assert github.comments == []


def test_no_pull_request_number_is_a_usage_error(github: FakeGitHub, tmp_path: Path) -> None:
    done = post(github, tmp_path, "x", env={"GITHUB_EVENT_PATH": str(tmp_path / "none.json")})
    assert done.exit_code == 2
    assert "--pr" in done.output
