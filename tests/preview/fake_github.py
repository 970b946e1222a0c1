"""A stand-in for the part of GitHub's REST API the sticky comment uses, on 127.0.0.1.

It serves the issue comments of one pull request (number 7 of REPO) in pages of PAGE, with
GitHub's `Link: <...>; rel="next"` header, each naming its author as GitHub does (`user`:
`login`, `type`); a comment it creates is the workflow token's (BOT). It records every request
(method, path, headers in lower case) for the tests to check.
"""

from __future__ import annotations

import http.server
import json
import threading
from typing import Any

REPO = "octo/fleet"
PAGE = 2
BOT = "github-actions[bot]"
"""Who the workflow's token comments as."""


class FakeGitHub:
    """Issue comments of one pull request, served as GitHub serves them (pages of PAGE)."""

    def __init__(self) -> None:
        self.comments: list[dict[str, Any]] = []
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.fail = 0
        handler = self._handler()
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def add(self, body: str, author: str = "someone") -> None:
        user = {"login": author, "type": "Bot" if author.endswith("[bot]") else "User"}
        self.comments.append({"id": 100 + len(self.comments), "body": body, "user": user})

    def _handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _send(self, status: int, payload: Any, link: str = "") -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if link:
                    self.send_header("Link", link)
                self.end_headers()
                self.wfile.write(data)

            def _record(self) -> dict[str, Any] | None:
                fake.requests.append(
                    (self.command, self.path, {k.lower(): v for k, v in self.headers.items()})
                )
                length = int(self.headers.get("Content-Length") or 0)
                return json.loads(self.rfile.read(length)) if length else None

            def do_GET(self) -> None:
                self._record()
                if fake.fail:
                    self._send(fake.fail, {"message": "Bad credentials"})
                    return
                page = int(self.path.partition("&page=")[2] or 1)
                items = fake.comments[(page - 1) * PAGE : page * PAGE]
                more = len(fake.comments) > page * PAGE
                base = f"/repos/{REPO}/issues/7/comments?per_page=100"
                link = f'<{fake.url}{base}&page={page + 1}>; rel="next"' if more else ""
                self._send(200, items, link)

            def do_POST(self) -> None:
                body = self._record()
                assert body is not None
                fake.add(body["body"], BOT)
                made = fake.comments[-1]
                self._send(201, {**made, "html_url": f"https://example/c/{made['id']}"})

            def do_PATCH(self) -> None:
                body = self._record()
                assert body is not None
                number = int(self.path.rsplit("/", 1)[1])
                comment = next(c for c in fake.comments if c["id"] == number)
                comment["body"] = body["body"]
                self._send(200, {**comment, "html_url": f"https://example/c/{number}"})

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler

    def start(self) -> None:
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
