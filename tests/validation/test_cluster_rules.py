"""What Karmada refuses in a Cluster (pkg/apis/cluster/validation, lifted cluster taints).

Aspects covered:
- the name: a DNS-1123 label of at most 48 characters;
- secretRef: a namespace and a Secret name, never a path: `agent push` reads the kubeconfig
  `<kubeconfig-dir>/<namespace>/<name>.yaml`, which must not leave that folder;
- apiEndpoint: a URL with a host, without user, query or fragment; proxyURL schemes;
- provider, region and zones are label values; zone and zones do not mix;
- taints: key syntax, effect NoSchedule or NoExecute (not PreferNoSchedule), unique by key
  and effect;
- resource models: contiguous grades (first problem only), checked as Karmada stores them:
  sorted by grade, the first grade's mins 0 and the last grade's maxes the largest int64;
- declared capacity must be quantities.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from validation.documents import variant

Check = Callable[[dict[str, str]], list[str]]
MEMBER = "clusters/member1.yaml"

CASES = [
    pytest.param(
        "  name: member1\n", "  name: Member_1\n", "4:3",
        "metadata.name: 'Member_1' is not a DNS-1123 label: at most 48 lower case",
        id="name syntax",
    ),
    pytest.param(
        "  name: member1\n", "  name: " + "m" * 49 + "\n", "4:3",
        "is not a DNS-1123 label: at most 48", id="name length",
    ),
    pytest.param(
        "    namespace: karmada-cluster\n", "    namespace: ../elsewhere\n", "11:5",
        "spec.secretRef.namespace: '../elsewhere' is not a DNS-1123 label", id="secret namespace",
    ),
    pytest.param(
        "    name: member1\n", "    name: ../../../etc/kube\n", "12:5",
        "spec.secretRef.name: '../../../etc/kube' is not a DNS-1123 subdomain",
        id="secret name",
    ),
    pytest.param(
        "https://10.0.0.1:6443", "https://admin@10.0.0.1:6443", "9:3",
        "spec.apiEndpoint: user information is not allowed", id="endpoint user",
    ),
    pytest.param(
        "https://10.0.0.1:6443", "10.0.0.1", "9:3",
        "spec.apiEndpoint: '10.0.0.1' has no host", id="endpoint without scheme",
    ),
    pytest.param(
        "  provider: aws\n", "  provider: aws\n  proxyURL: ftp://proxy:21\n", "14:3",
        "spec.proxyURL: unsupported scheme 'ftp'", id="proxy scheme",
    ),
    pytest.param(
        "  provider: aws\n", "  provider: aws\n  proxyURL: 'http://[::1'\n", "14:3",
        "spec.proxyURL: 'http://[::1' is not a URL: Invalid IPv6 URL", id="proxy not a URL",
    ),
    pytest.param(
        "  region: us-east-1\n", "  region: us east\n", "14:3",
        "spec.region: 'us east' must be empty or consist", id="region value",
    ),
    pytest.param(
        "  region: us-east-1\n", "  region: us-east-1\n  zone: us-east-1a\n", "15:3",
        "spec.zone: zone and zones cannot be used together", id="zone and zones",
    ),
    pytest.param(
        "      effect: NoSchedule\n", "      effect: PreferNoSchedule\n", "19:7",
        "spec.taints.0.effect: unsupported value 'PreferNoSchedule': expected one of "
        "'NoSchedule', 'NoExecute'", id="taint effect",
    ),
    pytest.param(
        "      effect: NoSchedule\n",
        "      effect: NoSchedule\n    - {key: dedicated, value: cpu, effect: NoSchedule}\n",
        "20:7", "spec.taints.1: taints must be unique by key and effect", id="duplicate taint",
    ),
    pytest.param(
        '{name: cpu, min: "4", max: "9223372036854775807"}',
        '{name: cpu, min: "5", max: "9223372036854775807"}', "20:3",
        "spec.resourceModels: model intervals must be contiguous", id="gap between models",
    ),
    pytest.param(
        "    allocatable: {cpu: \"64\",", "    allocatable: {cpu: lots,", "30:19",
        "status.resourceSummary.allocatable.cpu: ", id="capacity quantity",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "where", "message"), CASES)
def test_cluster_rule(check: Check, old: str, new: str, where: str, message: str) -> None:
    found = [line for line in check(variant(MEMBER, old, new)) if "error" in line]
    assert len(found) == 1, found
    renamed = "Member_1" if "Member_1" in new else ("m" * 49 if "m" * 49 in new else "member1")
    assert found[0].startswith(f"{MEMBER}:{where}: error: Cluster {renamed}: "), found[0]
    assert message in found[0]


def test_an_endpoint_with_a_port_and_no_host_name_is_accepted(check: Check) -> None:
    """Karmada asks Go's url.Parse for a host, and `:6443` is one there."""
    found = check(variant(MEMBER, "https://10.0.0.1:6443", "https://:6443"))
    assert [line for line in found if ": error: " in line] == []


MODELS = """\
    - grade: 0
      ranges:
        - {name: cpu, min: "0", max: "4"}
    - grade: 1
      ranges:
        - {name: cpu, min: "4", max: "9223372036854775807"}
"""


def test_models_are_standardized_before_validation(check: Check) -> None:
    """Karmada's PrepareForCreate sorts the models by grade, sets the first grade's mins to 0
    and the last grade's maxes to the largest int64, then validates: so neither the order,
    nor those bounds as written, is an error."""
    written = """\
    - grade: 1
      ranges:
        - {name: cpu, min: "4", max: "8"}
    - grade: 0
      ranges:
        - {name: cpu, min: "1", max: "4"}
"""
    assert [line for line in check(variant(MEMBER, MODELS, written)) if "error" in line] == []
