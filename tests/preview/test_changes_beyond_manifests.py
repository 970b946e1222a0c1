"""A pull request that changes what the agents and the reconciler do without changing a rendered
file is not previewed as "no change".

Aspects covered:
- a Push Cluster's `secretRef` pointed at another cluster's kubeconfig (the push agent would
  apply its folder there), its `syncMode` turned to Pull (the push agent stops serving it), a
  Retain script added (the push agent runs it on every apply), a third-party rule changed, and
  gitfleet.yaml's `sourceBranch` changed (the branch rendered after the merge) are each listed
  by object and field, in the comment and in JSON, and the summary counts them;
- a ClusterTaintPolicy whose conditions no cluster meets yet is listed (it acts later);
- the settings are named as gitfleet.yaml names them, inside the failover section too;
- a change that moves lines but changes no value (a comment added above a Cluster) lists
  nothing, and neither does a change to a file gitfleet does not read;
- a commit of the change whose message carries `Gitfleet-Allow-Prune` or
  `Gitfleet-Rollout` (a trailer: not a title alone) is listed with it, before any object
  (many objects changed cannot push it out of the comment);
- a policy's failover changes no manifest and moves nothing, but changes its bindings: each
  is listed with the fields that differ, and the summary counts them;
- a manifest's bidirectional controls are written escaped in the comment (as read), kept in
  JSON;
- what a pull request writes into those fields stays inside the comment's code block
  (backticks, new lines, an @mention), each item bounded, and a binding's fields stay inline
  code in their table cell (`|` escaped).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
import yaml
from builders import make_federated_hpa, make_taint_policy, ready_is
from preview.preview_builders import preview_of
from preview.preview_changes import on_branch

from gitfleet import preview
from gitfleet.preview import diff, inputs, markdown, report

SECRET_REF = (
    "clusters/aws-euw1.yaml",
    "  syncMode: Push\n",
    "  syncMode: Push\n  secretRef:\n    namespace: karmada-cluster\n    name: gcp-euw1-a\n",
)
TO_PULL = ("clusters/aws-euw1.yaml", "  syncMode: Push\n", "  syncMode: Pull\n")
RETAIN = (
    "interpreter/widget.yaml",
    "    healthInterpretation:",
    "    retention:\n      luaScript: |\n        function Retain(desiredObj, observedObj)\n"
    '          desiredObj.spec.image = "evil/miner"\n          return desiredObj\n'
    "        end\n    healthInterpretation:",
)
SOURCE_BRANCH = ("gitfleet.yaml", "sourceBranch: main", "sourceBranch: unreviewed")


FAILOVER = (
    "gitfleet.yaml",
    "maxFileSize: 1Mi",
    "maxFileSize: 512Ki\nfailover:\n  purgeMode: Directly\n  heartbeatGracePeriod: 5s\n",
)
CUSTOMIZATION = "ResourceInterpreterCustomization widgets.example.gitfleet.io"


def _beyond(repo: Any) -> tuple[str, list[tuple[str, str, list[str]]], str]:
    """The preview of `pr` against `main`, which must change no manifest: its summary, what it
    lists beyond the manifests in JSON (subject, change, fields), and its comment."""
    found = preview.preview(repo.path, "main", "pr")
    assert found.changes is not None and found.changes.empty
    listed = json.loads(json.dumps(report.as_json(found)))["beyondManifests"]
    return (
        found.summary,
        [(c["subject"], c["change"], c["fields"]) for c in listed],
        markdown.render(found),
    )


def test_a_taint_policy_no_cluster_meets_yet(example_fleet: Any) -> None:
    """It taints a cluster, and moves what does not tolerate the taint, once one reports it
    is not Ready: nothing moves now."""
    taint = ("cluster.example.io/not-ready", "NoSchedule")
    policy = make_taint_policy("detect-not-ready", taint, add_on=ready_is("NotIn", "True"))
    on_branch(example_fleet, "pr", files={"policies/not-ready.yaml": yaml.safe_dump(policy)})
    _, listed, _ = _beyond(example_fleet)
    assert listed == [("ClusterTaintPolicy detect-not-ready", "added", [])]


@pytest.mark.parametrize(
    ("change", "subject", "fields"),
    [
        pytest.param(
            SECRET_REF, "Cluster aws-euw1",
            ['spec.secretRef: (absent) → {"name":"gcp-euw1-a","namespace":"karmada-cluster"}'],
            id="another cluster's kubeconfig",
        ),
        pytest.param(TO_PULL, "Cluster aws-euw1", ['spec.syncMode: "Push" → "Pull"'],
                     id="push cluster turned pull"),
        pytest.param(RETAIN, CUSTOMIZATION, ["spec.customizations.retention added"],
                     id="retain script run on every apply"),
        pytest.param(SOURCE_BRANCH, "gitfleet.yaml", ['sourceBranch: "main" → "unreviewed"'],
                     id="branch rendered after the merge"),
        pytest.param(
            FAILOVER, "gitfleet.yaml",
            ["failover.heartbeatGracePeriod: 40 → 5",
             'failover.purgeMode: "Gracefully" → "Directly"', "maxFileSize: 1048576 → 524288"],
            id="settings inside a section",
        ),
    ],
)  # fmt: skip
def test_listed_by_object_and_field(
    example_fleet: Any, change: tuple[str, str, str], subject: str, fields: list[str]
) -> None:
    on_branch(example_fleet, "pr", change)
    summary, listed, text = _beyond(example_fleet)
    assert summary == "no manifest change, 1 change beyond the manifests"
    assert listed == [(subject, "changed", fields)]
    assert "**no manifest change, 1 change beyond the manifests**" in text
    assert f"#### Changes beyond the manifests\n\n{'Merged, these change what the agents'}" in text
    assert f"\n{subject}: changed: {'; '.join(fields)}\n" in text


def test_a_third_party_rule_changed(example_fleet: Any) -> None:
    rule = "interpreter/widget.yaml"
    folder = "thirdparty/example.gitfleet.io/v1alpha1/Widget/customizations.yaml"
    text = (example_fleet.path / rule).read_text(encoding="utf-8")
    example_fleet.commit(
        {
            folder: text,
            rule: None,
            "gitfleet.yaml": (example_fleet.path / "gitfleet.yaml").read_text(encoding="utf-8")
            + "thirdPartyCustomizations: thirdparty\n",
        },
        "the widget rules as third-party rules",
    )
    on_branch(example_fleet, "pr", (folder, "return (status.readyReplicas or 0) >= wanted",
                                    "return true"))  # fmt: skip
    _, listed, _ = _beyond(example_fleet)
    assert listed == [
        (
            "third-party rule widgets.example.gitfleet.io",
            "changed",
            ["spec.customizations.healthInterpretation changed"],
        )
    ]


def test_commits_whose_message_lifts_a_guard(example_fleet: Any) -> None:
    """Rebased or fast-forwarded, the change's newest commit is the source commit whose
    trailers the render and the agents obey."""
    example_fleet.git("checkout", "-q", "-b", "pr", "main")
    example_fleet.git("commit", "-q", "--allow-empty", "-m", "retire", "-m",
                      "Gitfleet-Allow-Prune: all")  # fmt: skip
    example_fleet.git("commit", "-q", "--allow-empty", "-m", "hurry", "-m",
                      "Gitfleet-Rollout: skip\nSigned-off-by: someone")  # fmt: skip
    example_fleet.git("commit", "-q", "--allow-empty", "-m", "Gitfleet-Rollout: skip")
    hpas = {f"apps/hpa-{i}.yaml": yaml.safe_dump(make_federated_hpa(f"h{i}")) for i in range(150)}
    example_fleet.commit(hpas, "many autoscalers")
    hurry, retire = example_fleet.git("rev-parse", "HEAD~2", "HEAD~3").split()
    example_fleet.git("checkout", "-q", "main")
    found = preview.preview(example_fleet.path, "main", "pr")
    assert found.summary.endswith(", 152 changes beyond the manifests")
    assert [(c.subject, c.fields) for c in found.beyond[:2]] == [
        (f"commit {hurry[:12]}", ("Gitfleet-Rollout: skip",)),
        (f"commit {retire[:12]}", ("Gitfleet-Allow-Prune: all",)),
    ]
    text = markdown.render(found)
    assert f"\ncommit {hurry[:12]}: message carries: Gitfleet-Rollout: skip\n" in text
    assert f"\ncommit {retire[:12]}: message carries: Gitfleet-Allow-Prune: all\n" in text
    assert "\n... and 52 more\n" in text


def test_a_policys_failover_changes_bindings_only(example_fleet: Any) -> None:
    """Application failover that evicts at once: where the resources go now does not change,
    what the reconciler does when they turn unhealthy does."""
    failover = (
        "policies/propagation/web.yaml",
        "spec:\n  resourceSelectors:",
        "spec:\n  propagateDeps: true\n  failover:\n    application:\n"
        "      decisionConditions:\n        tolerationSeconds: 0\n      purgeMode: Directly\n"
        "  resourceSelectors:",
    )
    on_branch(example_fleet, "pr", failover)
    found = preview.preview(example_fleet.path, "main", "pr")
    assert found.summary == "3 bindings change"
    assert found.changes is not None and not found.changes.clusters
    listed = {str(b.resource): b.fields for b in found.changes.bindings}
    assert listed["Deployment shop/web"] == (
        "spec.failover added",
        "spec.propagateDeps: (absent) → true",
    )
    assert sorted(listed) == [
        "ConfigMap shop/web-config",
        "Deployment shop/web",
        "Service shop/web",
    ]
    text = markdown.render(found)
    assert (
        "| Deployment shop/web | `spec.failover added; spec.propagateDeps: (absent) → true` |\n"
    ) in text


def test_a_binding_field_stays_inside_its_cell() -> None:
    """A binding's fields hold what a policy says (cluster names, say): HTML, an @mention,
    backticks and `|` stay inline code in their cell."""
    resource = diff.Resource("Deployment", "shop", "web", "apps")
    hostile = 'spec.placement: ["<img src=x>","@admin","a|b","`x`"]'
    changes = diff.TreeDiff((), (), (), (), bindings=(diff.BindingChange(resource, (hostile,)),))
    text = markdown.render(preview_of(changes))
    assert (
        '| Deployment shop/web | ``spec.placement: ["<img src=x>","@admin","a\\|b","`x`"]`` |'
        in (text)
    )


def test_a_manifest_shows_the_order_it_is_read_in(example_fleet: Any) -> None:
    """Trojan Source: a value holding U+202E displays reversed. The comment writes it as its
    escape, so what a reviewer reads is what the cluster gets; JSON keeps the value."""
    value = "\u202erenim/live"
    on_branch(
        example_fleet, "pr", ("apps/shop/web.yaml", "\ndata:\n", f'\ndata:\n  IMAGE: "{value}"\n')
    )
    found = preview.preview(example_fleet.path, "main", "pr")
    text = markdown.render(found)
    assert '+  IMAGE: "\\u202erenim/live"\n' in text
    assert "\u202e" not in text
    assert value in report.as_json(found)["clusters"]["aws-euw1"]["diff"]


def test_moved_lines_and_unread_files_are_no_change(example_fleet: Any) -> None:
    on_branch(example_fleet, "pr", ("clusters/aws-euw1.yaml", "# AWS", "# a comment\n\n# AWS"),
              files={"README.md": "not read\n"})  # fmt: skip
    found = preview.preview(example_fleet.path, "main", "pr")
    assert found.beyond == ()
    assert found.summary == "no change"
    assert "beyond the manifests" not in markdown.render(found)


def test_what_a_pull_request_writes_stays_in_the_code_block() -> None:
    hostile = inputs.InputChange(
        "Cluster aws-euw1", "changed", ('spec.proxyHeader: {"X":"```\\n@admin <img src=x>"}',)
    )
    long = inputs.InputChange("Cluster c", "changed", ("x" * 5_000,))
    found = preview_of(diff.TreeDiff((), (), (), ()))
    text = markdown.render(
        dataclasses.replace(found, beyond=(hostile, long)), limit=markdown.MIN_LIMIT * 4
    )
    section = text.split("#### Changes beyond the manifests\n\n", 1)[1]
    fence = "````"
    assert section.split("\n\n", 1)[1].startswith(fence + "\n")
    block = section.split(fence + "\n", 2)[1]
    assert '@admin <img src=x>"}\nCluster c: changed: xxx' in block
    assert "characters cut" in block
    assert len(block.splitlines()[1]) <= markdown.MAX_ITEM
