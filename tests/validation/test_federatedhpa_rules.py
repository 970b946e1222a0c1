"""What Karmada refuses in a FederatedHPA (pkg/util/lifted/validatingfhpa.go), each at its
field, and what gitfleet cannot scale on.

Aspects covered:
- replica bounds: minReplicas and maxReplicas at least 1 and int32s, maxReplicas not below
  minReplicas;
- the target: a template of the source in the FederatedHPA's namespace (apiVersion too, when
  given), else a warning and nothing is scaled; scaled by one FederatedHPA only;
- metrics: the source its type names and no other (an `external` source next to it is
  ignored, with a warning); a resource target with a utilization or an average value, not
  both; unknown types and External (Karmada takes none); Pods/Object warned as not read;
  their sources checked all the same (names, targets), as Karmada's webhook does;
- behaviour: windows up to 3600 s, periods 1 to 1800 s, policy types and selectPolicy values;
  a direction's tolerance taken as a quantity, and warned as not read;
- through `gitfleet validate` as a user types it, a Karmada sample without a namespace: exit 1
  and `path:line:col:` for an error.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gitfleet import autoscaling, source
from gitfleet.model import loaded

Check = Callable[[dict[str, str]], list[str]]
TARGET = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
spec:
  replicas: 1
  selector:
    matchLabels: {app: nginx}
  template:
    metadata:
      labels: {app: nginx}
    spec:
      containers:
      - name: nginx
        image: nginx
"""
HPA = """\
apiVersion: autoscaling.karmada.io/v1alpha1
kind: FederatedHPA
metadata:
  name: nginx
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: nginx
  minReplicas: 1
  maxReplicas: 10
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 10
      policies:
        - type: Percent
          value: 100
          periodSeconds: 15
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: 10
"""

CASES = [
    pytest.param("  minReplicas: 1\n", "  minReplicas: 0\n", "10:3",
                 "spec.minReplicas: must be at least 1", id="minReplicas"),
    pytest.param("  maxReplicas: 10\n", "  maxReplicas: 0\n", "11:3",
                 "spec.maxReplicas: must be at least 1", id="maxReplicas"),
    pytest.param("  maxReplicas: 10\n", "  maxReplicas: 2147483648\n", "11:3",
                 "spec.maxReplicas: must be at most 2147483647 (int32), got 2147483648",
                 id="maxReplicas past int32"),
    pytest.param("  minReplicas: 1\n  maxReplicas: 10\n",
                 "  minReplicas: 99999999999999999999\n  maxReplicas: 99999999999999999999\n",
                 "10:3", "spec.minReplicas: 1e+20 does not fit in a 64-bit integer",
                 id="minReplicas past int64"),
    pytest.param("  minReplicas: 1\n", "  minReplicas: 20\n", "11:3",
                 "spec.maxReplicas: must be greater than or equal to `minReplicas`",
                 id="max below min"),
    pytest.param("      stabilizationWindowSeconds: 10\n",
                 "      stabilizationWindowSeconds: 3601\n", "14:7",
                 "spec.behavior.scaleDown.stabilizationWindowSeconds: must be less than or "
                 "equal to 3600", id="window"),
    pytest.param("          periodSeconds: 15\n", "          periodSeconds: 1801\n", "18:11",
                 "spec.behavior.scaleDown.policies.0.periodSeconds: must be less than or equal "
                 "to 1800", id="period"),
    pytest.param("      policies:\n        - type: Percent\n          value: 100\n"
                 "          periodSeconds: 15\n", "      policies: []\n", "15:7",
                 "spec.behavior.scaleDown.policies: must have at least 1 item(s)",
                 id="no policy"),
    pytest.param("        - type: Percent\n", "        - type: Percentage\n", "16:11",
                 "spec.behavior.scaleDown.policies.0.type: unsupported value 'Percentage'",
                 id="policy type"),
    pytest.param("      stabilizationWindowSeconds: 10\n",
                 "      stabilizationWindowSeconds: 10\n      selectPolicy: Maximum\n", "15:7",
                 "spec.behavior.scaleDown.selectPolicy: unsupported value 'Maximum'",
                 id="selectPolicy"),
    pytest.param("          averageUtilization: 10\n",
                 "          averageUtilization: 10\n          averageValue: 100m\n", "26:11",
                 "spec.metrics.0.resource.target.averageValue: may not set both a target raw "
                 "value and a target utilization", id="both targets"),
    pytest.param("          averageUtilization: 10\n", "          averageValue: lots\n", "25:11",
                 "spec.metrics.0.resource.target.averageValue: quantity 'lots' has an invalid",
                 id="averageValue not a quantity"),
    pytest.param("          averageUtilization: 10\n", "          averageUtilization: 0\n",
                 "25:11", "spec.metrics.0.resource.target.averageUtilization: must be greater "
                 "than 0", id="zero utilization"),
    pytest.param("          averageUtilization: 10\n", "          averageValue: 0m\n", "25:11",
                 "spec.metrics.0.resource.target.averageValue: must be positive",
                 id="zero average value"),
    pytest.param("          averageUtilization: 10\n", "", "23:9",
                 "spec.metrics.0.resource.target.averageUtilization: must set either a target "
                 "raw value or a target utilization", id="no target"),
    pytest.param("    - type: Resource\n", "    - type: Pods\n", "20:7",
                 "spec.metrics.0.pods: must populate information for the given metric source",
                 id="source not matching its type"),
    pytest.param("    - type: Resource\n", "    - type: Memory\n", "20:7",
                 "spec.metrics.0.type: unsupported value 'Memory'", id="unknown type"),
    pytest.param("    - type: Resource\n", "    - type: External\n", "20:7",
                 "spec.metrics.0.type: unsupported value 'External'", id="External"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "where", "message"), CASES)
def test_refused(check: Check, old: str, new: str, where: str, message: str) -> None:
    assert HPA.count(old) == 1
    found = check({"app.yaml": TARGET, "hpa.yaml": HPA.replace(old, new)})
    errors = [d for d in found if ": error: " in d]
    assert any(d.startswith(f"hpa.yaml:{where}: error: ") and message in d for d in errors), found


@pytest.mark.parametrize(
    ("old", "new", "named"),
    [
        pytest.param("    name: nginx\n  minReplicas", "    name: web\n  minReplicas",
                     "apps/v1 Deployment 'web'", id="no such template"),
        pytest.param("    apiVersion: apps/v1\n", "    apiVersion: apps/v2\n",
                     "apps/v2 Deployment 'nginx'", id="another apiVersion"),
    ],
)  # fmt: skip
def test_a_target_that_is_no_template_scales_nothing(
    check: Check, tmp_path: Path, old: str, new: str, named: str
) -> None:
    """Karmada takes the FederatedHPA, fails to get its target's scale and scales nothing;
    gitfleet's autoscaling leaves every template as written and writes no decision."""
    hpa = HPA.replace(old, new)
    found = check({"app.yaml": TARGET, "hpa.yaml": hpa})
    assert found == [
        "hpa.yaml:6:3: warning: FederatedHPA default/nginx: spec.scaleTargetRef: names no "
        f"template: no {named} in namespace 'default'; it scales nothing"
    ]
    (tmp_path / "app.yaml").write_text(TARGET)
    (tmp_path / "hpa.yaml").write_text(hpa)
    objs = source.load(tmp_path).objects
    now = "2026-01-01T00:00:00Z"
    scaled = autoscaling.autoscale(objs, {}, {}, now, loaded.AutoscalingSettings())
    assert scaled.objects.templates == objs.templates
    assert scaled.decisions == () and scaled.files == {}


def test_an_external_source_next_to_a_resource_metric_is_ignored(check: Check) -> None:
    """Karmada's check does not count an `external` source among those a metric sets, and its
    controller reads a Resource metric's `resource` only, as gitfleet's autoscaling does."""
    text = HPA.replace(
        "    - type: Resource\n",
        "    - type: Resource\n      external:\n        metric: {name: queue}\n"
        "        target: {type: Value, value: 1}\n",
    )
    found = check({"app.yaml": TARGET, "hpa.yaml": text})
    assert found == [
        "hpa.yaml:21:7: warning: FederatedHPA default/nginx: spec.metrics.0.external: ignored: "
        "a Resource metric reads its resource source only"
    ]


@pytest.mark.parametrize("value", ["'0.05'", "0", "'-1'"])
def test_a_direction_s_tolerance_is_taken_and_ignored(check: Check, value: str) -> None:
    """Karmada's CRD takes `tolerance` (Kubernetes' HPA behaviour type has it) as a quantity;
    its controller never reads it, so neither does gitfleet, and says so."""
    window = "      stabilizationWindowSeconds: 10\n"
    text = HPA.replace(window, f"{window}      tolerance: {value}\n")
    found = check({"app.yaml": TARGET, "hpa.yaml": text})
    assert found == [
        "hpa.yaml:15:7: warning: FederatedHPA default/nginx: spec.behavior.scaleDown.tolerance: "
        "ignored, as Karmada's FederatedHPA controller ignores it: both directions scale with "
        "the fleet-wide tolerance (autoscaling.tolerance in gitfleet.yaml, 0.1)"
    ]


def test_a_tolerance_that_is_no_quantity_is_refused(check: Check) -> None:
    window = "      stabilizationWindowSeconds: 10\n"
    text = HPA.replace(window, f"{window}      tolerance: 5%\n")
    found = check({"app.yaml": TARGET, "hpa.yaml": text})
    assert [d.split(": error: ")[0] for d in found if ": error: " in d] == ["hpa.yaml:15:7"]


def test_a_karmada_sample_is_valid(check: Check) -> None:
    assert check({"app.yaml": TARGET, "hpa.yaml": HPA}) == []


def test_metrics_gitfleet_does_not_read_are_warned(check: Check) -> None:
    pods_metric = (
        "    - type: Pods\n      pods:\n        metric: {name: requests}\n"
        "        target: {type: AverageValue, averageValue: 10}\n"
    )
    text = HPA.split("  metrics:\n")[0] + "  metrics:\n" + pods_metric
    found = check({"app.yaml": TARGET, "hpa.yaml": text})
    assert found == [
        "hpa.yaml:20:7: warning: FederatedHPA default/nginx: spec.metrics.0.type: Pods metrics "
        "are not read by gitfleet yet"
    ]


@pytest.mark.parametrize(
    ("metric", "message"),
    [
        pytest.param("    - type: Pods\n      pods:\n        metric: {name: requests}\n"
                     "        target: {type: Value, value: 10}\n",
                     "spec.metrics.0.pods.target.averageValue: must specify a positive target "
                     "averageValue", id="pods without averageValue"),
        pytest.param("    - type: Pods\n      pods:\n        metric: {name: a/b}\n"
                     "        target: {type: AverageValue, averageValue: 10}\n",
                     "spec.metrics.0.pods.metric.name: 'a/b' is not a valid path segment",
                     id="pods metric name"),
        pytest.param("    - type: Object\n      object:\n        metric: {name: hits}\n"
                     "        target: {type: Value, value: 10}\n",
                     "spec.metrics.0.object.describedObject.kind: required",
                     id="object without describedObject"),
        pytest.param("    - type: Object\n      object:\n"
                     "        describedObject: {kind: Ingress, name: main}\n"
                     "        metric: {name: hits}\n        target: {type: Utilization}\n",
                     "spec.metrics.0.object.target.averageValue: must set either a target value "
                     "or averageValue", id="object without value"),
        pytest.param("    - type: ContainerResource\n      containerResource:\n"
                     "        name: cpu\n        container: Web_1\n"
                     "        target: {type: Utilization, averageUtilization: 50}\n",
                     "spec.metrics.0.containerResource.container: ", id="container name"),
        pytest.param("    - type: ContainerResource\n      containerResource:\n"
                     "        name: cpu\n        container: web\n"
                     "        target: {type: Utilization}\n",
                     "spec.metrics.0.containerResource.target.averageUtilization: must set "
                     "either a target raw value or a target utilization", id="container target"),
        pytest.param("    - type: Resource\n      resource:\n        name: cpu\n"
                     "        target: {type: Utilization, averageUtilization: 50, value: 0}\n",
                     "spec.metrics.0.resource.target.value: must be positive",
                     id="resource value not positive"),
    ],
)  # fmt: skip
def test_sources_gitfleet_does_not_read_are_checked_as_karmada_checks_them(
    check: Check, metric: str, message: str
) -> None:
    """Karmada's webhook checks every metric's source (validatePodsSource,
    validateObjectSource, validateContainerResourceSource, validateMetricTarget) and refuses
    the FederatedHPA for a bad one, also where gitfleet does not read the metric."""
    text = HPA.split("  metrics:\n")[0] + "  metrics:\n" + metric
    found = check({"app.yaml": TARGET, "hpa.yaml": text})
    errors = [d for d in found if ": error: " in d]
    assert any(message in d for d in errors), found


def test_two_federated_hpas_scaling_one_template_are_warned(check: Check) -> None:
    """Karmada takes both, and scales with neither (the autoscaling stage does the same)."""
    second = HPA.replace("  name: nginx\nspec", "  name: other\nspec")
    found = check({"app.yaml": TARGET, "hpa.yaml": HPA, "other.yaml": second})
    assert found == [
        "other.yaml:6:3: warning: FederatedHPA default/other: spec.scaleTargetRef: Deployment "
        "nginx is also scaled by FederatedHPA default/nginx: neither scales it (each reports "
        "ScalingActive False, AmbiguousSelector)"
    ]


def test_validate_reports_with_file_and_line(cli: Any, tmp_path: Path, monkeypatch: Any) -> None:
    source = tmp_path / "fleet"
    source.mkdir()
    (source / "app.yaml").write_text(TARGET)
    (source / "hpa.yaml").write_text(HPA.replace("  maxReplicas: 10\n", "  maxReplicas: 0\n"))
    monkeypatch.chdir(tmp_path)
    result = cli("validate", "--repo", "fleet")
    assert result.exit_code == 1
    assert (
        "fleet/hpa.yaml:11:3: error: FederatedHPA default/nginx: spec.maxReplicas:" in result.output
    )
