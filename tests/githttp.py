"""A Git host for tests: bare repositories served over smart HTTP on 127.0.0.1, by git's own
`git http-backend` run as a CGI program behind a small `http.server`.

`GitHttpServer(root)` serves every bare repository under `root` at `http://127.0.0.1:PORT/<name>`:

- **Access.** `users` (name to password) are checked with HTTP basic auth and `tokens` as
  `Authorization: Bearer <token>`; a request without a good one is answered 401 with a
  `WWW-Authenticate: Basic` challenge, as Git hosts do, unless `anonymous_read` lets it read.
  `writable=False` refuses every push (403), whoever asks: a read-only credential.
- **What went over the wire.** Each request is recorded (`requests`: method, service, status,
  bytes received and sent), so a test can tell what a fetch cost (`sent_by`).
- **Faults.** `fail(status, times)` answers the next requests with an error, `truncate(times)`
  sends the next answers cut in the middle (the full length announced), `stop()` closes the
  port and `start()` opens the same one again.
- **Who could see a secret.** `watch_argv(secret)` makes every request look at the command lines
  of all processes of this user while it is served (the client's git is then running), and
  `argv_leaks` lists those that held `secret`, as `ps` would show them to anyone on the host.

`git_http` (a fixture, registered by the test areas that use it) starts one on `tmp_path/srv`
and stops it after the test.
"""

from __future__ import annotations

import base64
import dataclasses
import http.server
import os
import subprocess
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

RECEIVE_PACK = "git-receive-pack"
UPLOAD_PACK = "git-upload-pack"


@dataclasses.dataclass(frozen=True)
class Request:
    """One request the server answered."""

    method: str
    path: str
    service: str
    """`git-upload-pack` (fetch, ls-remote) or `git-receive-pack` (push)."""
    status: int
    received: int
    """Bytes of the request's body."""
    sent: int
    """Bytes of the answer's body that were sent."""
    user: str


@dataclasses.dataclass
class _Faults:
    status: int = 0
    failures: int = 0
    truncations: int = 0
    match: bytes = b""
    """Only requests whose body holds this (b"command=fetch": those asking for objects)."""


class GitHttpServer:
    """Bare repositories under `root` over smart HTTP (see the module docstring)."""

    def __init__(
        self,
        root: Path,
        *,
        users: dict[str, str] | None = None,
        tokens: tuple[str, ...] = (),
        writable: bool = True,
        anonymous_read: bool = False,
    ) -> None:
        self.root = root
        self.users = dict(users or {})
        self.tokens = tokens
        self.writable = writable
        self.anonymous_read = anonymous_read
        self.requests: list[Request] = []
        self.argv_leaks: list[str] = []
        self._secrets: list[str] = []
        self._faults = _Faults()
        self._lock = threading.Lock()
        self._server: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0
        self.start()

    # ---- the server ------------------------------------------------------------------------

    def start(self) -> None:
        """Listen (again, on the same port once it had one)."""
        handler = type("Handler", (_Handler,), {"host": self})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        server.daemon_threads = True
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Close the port: clients get `connection refused`."""
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join()
        self._server = None

    def url(self, name: str, user: str | None = None, password: str | None = None) -> str:
        """The URL of repository `name`, with a user and password in it when given."""
        auth = ""
        if user is not None:
            auth = urllib.parse.quote(user, safe="")
            if password is not None:
                auth += ":" + urllib.parse.quote(password, safe="")
            auth += "@"
        return f"http://{auth}127.0.0.1:{self.port}/{name}"

    def bare(self, name: str) -> Path:
        """A new bare repository `name`, allowing partial fetches, as GitHub and GitLab do."""
        path = self.root / name
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
        subprocess.run(
            ["git", "-C", str(path), "config", "uploadpack.allowFilter", "true"], check=True
        )
        return path

    # ---- faults and records ----------------------------------------------------------------

    def fail(self, status: int = 500, times: int = 1, match: bytes = b"") -> None:
        """Answer the next `times` requests (whose body holds `match`) with `status`, without
        running git."""
        with self._lock:
            self._faults = _Faults(status=status, failures=times, match=match)

    def truncate(self, times: int = 1, match: bytes = b"") -> None:
        """Send the next `times` answers to a POST (whose body holds `match`) cut in half,
        then close the connection."""
        with self._lock:
            self._faults = _Faults(truncations=times, match=match)

    def watch_argv(self, secret: str) -> None:
        self._secrets.append(secret)

    def sent_by(self, service: str = UPLOAD_PACK, since: int = 0) -> int:
        """Bytes sent for `service` by requests from number `since` on."""
        return sum(r.sent for r in self.requests[since:] if r.service == service)

    def pushes(self, since: int = 0) -> list[Request]:
        """The push requests (those that send objects) from number `since` on."""
        return [
            r for r in self.requests[since:] if r.service == RECEIVE_PACK and r.method == "POST"
        ]

    def _take_failure(self, body: bytes) -> int:
        with self._lock:
            if not self._faults.failures or self._faults.match not in body:
                return 0
            self._faults.failures -= 1
            return self._faults.status

    def _take_truncation(self, body: bytes) -> bool:
        with self._lock:
            if not self._faults.truncations or self._faults.match not in body:
                return False
            self._faults.truncations -= 1
            return True

    def _look_at_processes(self) -> None:
        if not self._secrets:
            return
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                argv = (
                    (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                )
            except OSError:
                continue
            if any(secret in argv for secret in self._secrets):
                self.argv_leaks.append(argv)

    # ---- access --------------------------------------------------------------------------

    def _user(self, authorization: str) -> str | None:
        """Whom the header names, if its credential is good."""
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() == "bearer" and value in self.tokens:
            return "bearer"
        if scheme.lower() == "basic":
            try:
                user, _, password = base64.b64decode(value).decode().partition(":")
            except ValueError:
                return None
            if self.users.get(user) == password and password:
                return user
        return None


class _Handler(http.server.BaseHTTPRequestHandler):
    host: GitHttpServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test reads `requests`."""

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _serve(self) -> None:
        host = self.host
        path, _, query = self.path.partition("?")
        service = UPLOAD_PACK
        if RECEIVE_PACK in path or f"service={RECEIVE_PACK}" in query:
            service = RECEIVE_PACK
        body = self._body() if self.command == "POST" else b""
        user = host._user(self.headers.get("Authorization", ""))
        host._look_at_processes()
        status = host._take_failure(body)
        if status:
            self._answer(path, service, body, status, {}, b"injected failure\n", "")
        elif user is None and not (host.anonymous_read and service == UPLOAD_PACK):
            challenge = {"WWW-Authenticate": 'Basic realm="fleet"'}
            self._answer(path, service, body, 401, challenge, b"authentication required\n", "")
        elif service == RECEIVE_PACK and not host.writable:
            self._answer(path, service, body, 403, {}, b"read-only\n", user or "")
        else:
            status, headers, output = self._backend(path, query, body, user or "")
            cut = self.command == "POST" and host._take_truncation(body)
            self._answer(path, service, body, status, headers, output, user or "", cut=cut)

    def _backend(
        self, path: str, query: str, body: bytes, user: str
    ) -> tuple[int, dict[str, str], bytes]:
        env = {
            "PATH": os.environ["PATH"],
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_PROJECT_ROOT": str(self.host.root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "PATH_INFO": urllib.parse.unquote(path),
            "QUERY_STRING": query,
            "REQUEST_METHOD": self.command,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_ADDR": self.client_address[0],
            "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
            "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
        }
        if user:
            env["REMOTE_USER"] = user  # http-backend lets only a known user push
        done = subprocess.run(
            ["git", "http-backend"], input=body, env=env, capture_output=True, check=False
        )
        head, _, output = done.stdout.partition(b"\r\n\r\n")
        status, headers = 200, {}
        for line in head.decode(errors="replace").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers[name] = value.strip()
        return status, headers, output

    def _answer(
        self,
        path: str,
        service: str,
        body: bytes,
        status: int,
        headers: dict[str, str],
        output: bytes,
        user: str,
        *,
        cut: bool = False,
    ) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(output)))
        if cut:
            self.send_header("Connection", "close")
        self.end_headers()
        sent = output[: len(output) // 2] if cut else output
        self.wfile.write(sent)
        self.wfile.flush()
        if cut:
            self.close_connection = True
        request = Request(self.command, path, service, status, len(body), len(sent), user)
        with self.host._lock:
            self.host.requests.append(request)


@pytest.fixture(name="git_http")
def git_http_fixture(tmp_path: Path) -> Iterator[GitHttpServer]:
    """A Git host on 127.0.0.1 serving tmp_path/srv; user `agent` with password `s3cret-token`,
    and the bearer token `b3arer-token`."""
    root = tmp_path / "srv"
    root.mkdir()
    server = GitHttpServer(root, users={"agent": "s3cret-token"}, tokens=("b3arer-token",))
    yield server
    server.stop()
