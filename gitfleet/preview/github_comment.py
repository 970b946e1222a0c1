"""Post the preview on a pull request as one sticky comment, created once and then updated.

    python -m gitfleet.preview.github_comment --body-file preview.md

run by `.github/workflows/preview.yml`. It talks to GitHub's REST API with the workflow's token
(`GITHUB_TOKEN`), with nothing but the standard library: it lists the pull request's comments,
updates the one that starts with the preview marker and that the token's own user wrote, or
creates it. Anyone can comment on a pull request, a comment that starts with the marker
included: one by anybody else is never taken for the preview (updating it would fail, or put
the preview under their name, and leave theirs the one a reviewer reads). The workflow's
token comments as `github-actions[bot]`; with another token, name its user (`--author`).
The repository, the pull request and the API address default to what GitHub Actions sets
(`GITHUB_REPOSITORY`, the event file's `pull_request.number`, `GITHUB_API_URL`). A body over
GitHub's limit (not one `gitfleet preview` writes, which keeps within it) is cut with a note
rather than refused.
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import click

from gitfleet.preview import markdown

DEFAULT_API = "https://api.github.com"
DEFAULT_AUTHOR = "github-actions[bot]"
"""Who the workflow's token (`GITHUB_TOKEN`) comments as."""
_NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')
_CUT_NOTE = "\n\n_Preview cut at GitHub's comment size limit; run `gitfleet preview` locally._\n"


class GitHubError(Exception):
    """GitHub refused a request or could not be reached."""


class Client:
    """The few REST calls a sticky comment needs."""

    def __init__(self, api: str, token: str, timeout: float = 30.0) -> None:
        self.api = api.rstrip("/")
        self.token = token
        self.timeout = timeout

    def request(self, method: str, url: str, body: Any = None) -> tuple[Any, str | None]:
        """(decoded JSON reply, the `next` page's URL from the Link header)."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url if "://" in url else self.api + url, data, method=method)
        req.add_header("Accept", "application/vnd.github+json")
        req.add_header("X-GitHub-Api-Version", "2022-11-28")
        req.add_header("User-Agent", "gitfleet")
        if self.token:
            req.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as reply:
                payload = reply.read()
                link = reply.headers.get("Link", "")
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode(errors="replace")[:300]
            raise GitHubError(f"{method} {req.full_url}: HTTP {exc.code}: {detail}") from exc
        except (urllib.error.URLError, OSError) as exc:
            raise GitHubError(f"{method} {req.full_url}: {exc}") from exc
        found = _NEXT.search(link)
        return (json.loads(payload) if payload else None), (found.group(1) if found else None)

    def comments(self, repo: str, number: int) -> list[dict[str, Any]]:
        """Every comment of an issue or pull request, following pagination."""
        url: str | None = f"/repos/{repo}/issues/{number}/comments?per_page=100"
        found: list[dict[str, Any]] = []
        while url:
            page, url = self.request("GET", url)
            found += [c for c in page or [] if isinstance(c, dict)]
        return found


def fit(body: str, limit: int = markdown.LIMIT) -> str:
    """`body` starting with the marker and at most `limit` characters long."""
    if not body.startswith(markdown.MARKER):
        body = f"{markdown.MARKER}\n{body}"
    if len(body) <= limit:
        return body
    return body[: limit - len(_CUT_NOTE)] + _CUT_NOTE


def _author(comment: dict[str, Any]) -> str:
    user = comment.get("user")
    login = user.get("login") if isinstance(user, dict) else None
    return login if isinstance(login, str) else ""


def upsert(
    client: Client, repo: str, number: int, body: str, author: str = DEFAULT_AUTHOR
) -> tuple[str, str]:
    """Update the pull request's preview comment, the one `author` wrote, or create it:
    ("updated"|"created", URL)."""
    body = fit(body)
    for comment in client.comments(repo, number):
        ours = _author(comment) == author
        if ours and str(comment.get("body", "")).startswith(markdown.MARKER):
            reply, _ = client.request(
                "PATCH", f"/repos/{repo}/issues/comments/{comment['id']}", {"body": body}
            )
            return "updated", str((reply or {}).get("html_url", ""))
    reply, _ = client.request("POST", f"/repos/{repo}/issues/{number}/comments", {"body": body})
    return "created", str((reply or {}).get("html_url", ""))


def _event_number() -> int | None:
    path = os.environ.get("GITHUB_EVENT_PATH")
    if not path or not Path(path).is_file():
        return None
    event = json.loads(Path(path).read_text(encoding="utf-8"))
    number = (event.get("pull_request") or {}).get("number") or event.get("number")
    return int(number) if number else None


@click.command()
@click.option(
    "--body-file",
    type=click.File("r", encoding="utf-8"),
    required=True,
    help="The Markdown to post (`gitfleet preview --format markdown`); - for stdin.",
)
@click.option("--repo", envvar="GITHUB_REPOSITORY", required=True, help="OWNER/NAME.")
@click.option(
    "--pr",
    "number",
    type=int,
    default=None,
    help="Pull request number (default: from the GitHub Actions event).",
)
@click.option("--api", envvar="GITHUB_API_URL", default=DEFAULT_API, show_default=True)
@click.option(
    "--token",
    envvar=["GITHUB_TOKEN", "GH_TOKEN"],
    default="",
    show_envvar=True,
    help="API token (default: the GITHUB_TOKEN or GH_TOKEN environment variable).",
)
@click.option(
    "--author",
    default=DEFAULT_AUTHOR,
    show_default=True,
    help="The login the token comments as: only its comment is ever updated.",
)
def main(body_file: Any, repo: str, number: int | None, api: str, token: str, author: str) -> None:
    """Create or update the pull request's gitfleet preview comment."""
    number = number or _event_number()
    if number is None:
        raise click.UsageError("no pull request number: pass --pr or run on a pull_request event")
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo):
        raise click.UsageError(f"--repo {repo!r}: expected OWNER/NAME")
    try:
        done, url = upsert(Client(api, token), repo, number, body_file.read(), author)
    except GitHubError as exc:
        click.echo(f"cannot post the preview: {exc}", err=True)
        sys.exit(1)
    click.echo(f"{done} {url}")


if __name__ == "__main__":
    main()
