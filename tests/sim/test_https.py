"""Simulated clusters serve HTTPS, verified against a CA their kubeconfig carries.

Covers: the kubeconfig names an https URL and the CA, and the kubernetes client verifies the
server with it; a client trusting only the system's CAs refuses the server; the certificate
is valid for 127.0.0.1 and localhost; the clusters of one process share one CA; plain HTTP
and a failed handshake leave the server serving; a watch whose client goes away ends its
connection on the server.
"""

from __future__ import annotations

import base64
import http.client
import socket
import ssl
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
import yaml
from simfixture import RunningSim, raw


def _connection_threads(port: int) -> int:
    return sum(1 for t in threading.enumerate() if t.name == f"sim-connection-{port}")


def test_kubeconfig_names_the_ca_the_server_proves(sim_cluster: RunningSim) -> None:
    from kubernetes import client

    document = yaml.safe_load(sim_cluster.kubeconfig.read_text())
    cluster = document["clusters"][0]["cluster"]
    assert cluster["server"] == f"https://127.0.0.1:{sim_cluster.cluster.port}"
    assert base64.b64decode(cluster["certificate-authority-data"]) == sim_cluster.cluster.ca_pem
    assert sim_cluster.api_client.configuration.verify_ssl
    assert client.VersionApi(sim_cluster.api_client).get_code().git_version == "v1.30.0"


def test_system_trust_refuses_the_server(sim_cluster: RunningSim) -> None:
    with pytest.raises(urllib.error.URLError) as refused:
        urllib.request.urlopen(sim_cluster.url + "/version", timeout=10)
    assert isinstance(refused.value.reason, ssl.SSLCertVerificationError)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_certificate_is_valid_for_the_loopback_names(sim_cluster: RunningSim, host: str) -> None:
    context = sim_cluster.cluster.client_tls()
    url = f"https://{host}:{sim_cluster.cluster.port}/version"
    with urllib.request.urlopen(url, timeout=10, context=context) as response:
        assert response.status == 200


def test_clusters_of_a_process_share_one_ca(make_sim_cluster: Any) -> None:
    first, second = make_sim_cluster("one"), make_sim_cluster("two")
    assert first.cluster.ca_pem == second.cluster.ca_pem
    assert first.cluster.ca_pem.startswith(b"-----BEGIN CERTIFICATE-----")


def test_plain_http_and_failed_handshakes_leave_it_serving(sim_cluster: RunningSim) -> None:
    plain = http.client.HTTPConnection("127.0.0.1", sim_cluster.cluster.port, timeout=10)
    with pytest.raises((http.client.HTTPException, OSError)):
        plain.request("GET", "/version")
        plain.getresponse()
    plain.close()
    untrusting = ssl.create_default_context()
    with (
        pytest.raises(ssl.SSLCertVerificationError),
        socket.create_connection(("127.0.0.1", sim_cluster.cluster.port), timeout=10) as tcp,
    ):
        untrusting.wrap_socket(tcp, server_hostname="127.0.0.1")
    assert raw(sim_cluster, "GET", "/version")[0] == 200


def test_watch_ends_when_its_client_goes_away(sim_cluster: RunningSim) -> None:
    port = sim_cluster.cluster.port
    connection = http.client.HTTPSConnection(
        "127.0.0.1", port, timeout=10, context=sim_cluster.cluster.client_tls()
    )
    headers = {"Authorization": f"Bearer {sim_cluster.cluster.token}"}
    connection.request("GET", "/api/v1/namespaces?watch=true", headers=headers)
    response = connection.getresponse()
    assert b'"ADDED"' in response.readline()
    assert _connection_threads(port) == 1
    connection.close()
    deadline = time.monotonic() + 10
    while _connection_threads(port) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _connection_threads(port) == 0
