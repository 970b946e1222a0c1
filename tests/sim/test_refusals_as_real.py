"""Answers the simulator gives as a real kube-apiserver 1.20.2 was seen to give them
(tests/e2e/test_sim_and_real_agree.py compares them with a real server's where the tier of
real API servers runs; these keep them where it does not).

Covers: keys of ConfigMap and Secret data that are no config keys (422, each problem a cause);
`force` on a patch that is no apply (422 on PatchOptions); a failed delete precondition
(409 naming the kind, `UID`/`ResourceVersion`); `remainingItemCount` only for a list without
a selector; the manager `unknown` for a write with neither fieldManager nor User-Agent; the
EndpointSlice Table's columns and cells.
"""

from __future__ import annotations

from typing import Any

import pytest
from simfixture import RunningSim, raw

CONFIG_MAPS = "/api/v1/namespaces/default/configmaps"
KEY_RULE = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
    "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
    "'[-._a-zA-Z0-9]+')"
)
LONG = "k" * 254


@pytest.mark.parametrize(
    ("collection", "body", "causes"),
    [
        pytest.param(
            "configmaps",
            {"data": {"bad key": "x", "ok": "y"}},
            [("data[bad key]", f'Invalid value: "bad key": {KEY_RULE}')],
            id="not a config key",
        ),
        pytest.param(
            "configmaps",
            {"binaryData": {"..x": "eA==", ".": "eA=="}},
            [
                ("binaryData[..x]", "Invalid value: \"..x\": must not start with '..'"),
                ("binaryData[.]", "Invalid value: \".\": must not be '.'"),
            ],
            id="dots",
        ),
        pytest.param(
            "secrets",
            {"data": {LONG: "eA=="}},
            [(f"data[{LONG}]", f'Invalid value: "{LONG}": must be no more than 253 characters')],
            id="too long",
        ),
    ],
)  # fmt: skip
def test_keys_that_are_no_config_keys(
    sim_cluster: RunningSim, collection: str, body: dict[str, Any], causes: list[tuple[str, str]]
) -> None:
    obj = {"metadata": {"name": "keys"}, **body}
    code, status = raw(sim_cluster, "POST", f"/api/v1/namespaces/default/{collection}", body=obj)
    assert (code, status["reason"]) == (422, "Invalid")
    said = [(c["field"], c["message"]) for c in status["details"]["causes"]]
    assert said == causes


def test_force_on_a_patch_that_is_no_apply(sim_cluster: RunningSim) -> None:
    raw(sim_cluster, "POST", CONFIG_MAPS, body={"metadata": {"name": "forced"}})
    merge = {"Content-Type": "application/merge-patch+json"}
    path = f"{CONFIG_MAPS}/forced?force=false&fieldManager=me"
    code, status = raw(sim_cluster, "PATCH", path, body={"data": {"a": "1"}}, headers=merge)
    assert (code, status["message"]) == (
        422,
        'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for '
        "non-apply patch",
    )


@pytest.mark.parametrize(
    ("field", "said"),
    [
        ("uid", "the UID in the precondition (0) does not match the UID in record ({}). The "
         "object might have been deleted and then recreated"),
        ("resourceVersion", "the ResourceVersion in the precondition (0) does not match the "
         "ResourceVersion in record ({}). The object might have been modified"),
    ],
)  # fmt: skip
def test_a_delete_whose_precondition_fails(sim_cluster: RunningSim, field: str, said: str) -> None:
    _, created = raw(sim_cluster, "POST", CONFIG_MAPS, body={"metadata": {"name": "kept"}})
    options = {"preconditions": {field: "0"}}
    code, status = raw(sim_cluster, "DELETE", f"{CONFIG_MAPS}/kept", body=options)
    expected = said.format(created["metadata"][field])
    assert (code, status["message"]) == (
        409,
        f'Operation cannot be fulfilled on ConfigMap "kept": {expected}',
    )
    assert status["details"] == {"name": "kept", "kind": "ConfigMap"}


@pytest.mark.parametrize(
    ("query", "remaining"),
    [("", 3), ("&labelSelector=page", None), ("&fieldSelector=metadata.name!=x", None)],
)
def test_remaining_items_are_counted_without_a_selector(
    sim_cluster: RunningSim, query: str, remaining: int | None
) -> None:
    path = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles"
    for n in range(5):
        raw(sim_cluster, "POST", path, body={"metadata": {"name": f"r{n}", "labels": {"page": ""}}})
    _, page = raw(sim_cluster, "GET", f"{path}?limit=2{query}")
    assert len(page["items"]) == 2
    assert page["metadata"].get("remainingItemCount") == remaining


def test_a_write_without_a_manager_or_user_agent(sim_cluster: RunningSim) -> None:
    body = {"metadata": {"name": "anonymous"}, "data": {"a": "1"}}
    _, created = raw(sim_cluster, "POST", CONFIG_MAPS, body=body)
    assert [e["manager"] for e in created["metadata"]["managedFields"]] == ["unknown"]


def test_endpoint_slice_table(sim_cluster: RunningSim) -> None:
    path = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"
    slices = {
        "many": ([{"port": 80 + n, "protocol": "TCP"} for n in range(4)], 5),
        "none": ([], 0),
        "unnumbered": ([{"name": "named"}, {"name": ""}], 1),
    }
    for name, (ports, count) in slices.items():
        endpoints = [{"addresses": [f"10.0.0.{n + 1}"]} for n in range(count)]
        doc = {"metadata": {"name": name}, "addressType": "IPv4", "ports": ports}
        assert raw(sim_cluster, "POST", path, body={**doc, "endpoints": endpoints})[0] == 201
    accept = "application/json;as=Table;g=meta.k8s.io;v=v1"
    _, table = raw(sim_cluster, "GET", path, headers={"Accept": accept})
    names = [c["name"] for c in table["columnDefinitions"]]
    assert names == ["Name", "AddressType", "Ports", "Endpoints", "Age"]
    assert [row["cells"][:4] for row in table["rows"]] == [
        ["many", "IPv4", "80,81,82 + 1 more...", "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more..."],
        ["none", "IPv4", "<unset>", "<unset>"],
        ["unnumbered", "IPv4", "named,", "10.0.0.1"],
    ]
