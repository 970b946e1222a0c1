"""Reading what the metrics endpoint serves, over real HTTP, as Prometheus would."""

from __future__ import annotations

import contextlib
import urllib.error
import urllib.request
from collections.abc import Iterator

import prometheus_client
from prometheus_client import parser

from gitfleet.monitor import endpoint, health

BOUND = 20.0


@contextlib.contextmanager
def serving(registry: prometheus_client.CollectorRegistry, alive: health.Health) -> Iterator[str]:
    """The endpoint of `registry` and `alive` on 127.0.0.1, by its URL, while the block runs."""
    with endpoint.serving(("127.0.0.1", 0), registry, alive) as server:
        assert server is not None
        host, port = server.address
        yield f"http://{host}:{port}"


def get(url: str) -> tuple[int, str]:
    """The status and text of a GET (an error status is an answer too)."""
    try:
        with urllib.request.urlopen(url, timeout=BOUND) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def scrape(base: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of `base`/metrics, by name and labels."""
    status, text = get(base + "/metrics")
    assert status == 200, text
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in parser.text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str
) -> float | None:
    return samples.get((name, frozenset(labels.items())))
