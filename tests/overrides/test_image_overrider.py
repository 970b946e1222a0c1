"""imageOverrider: the replace operations it generates per container for each known workload
kind (none for other kinds, initContainers untouched), registry/repository/tag with add,
replace and remove, tag values that are neither tag nor digest ignored, predicates selecting
one image, and the failures (unparsable image, bad predicate) located at the overrider."""

from __future__ import annotations

from typing import Any

import pytest

from gitfleet import overrides
from gitfleet.errors import OverrideError
from gitfleet.model import policy
from gitfleet.overrides import _image, _patch

EXAMPLE = "fictional.registry.example/imagename:v1.0.0"
DIGEST = "sha256:dbcc1c35ac38df41fd2f5e4130b32ffdb93ebae8b3dbe638c23575912276fc9c"
TEMPLATE = "/spec/template/spec/containers"


def _overrider(component: str, operator: str, value: str = "", **rest: Any) -> dict[str, Any]:
    entry = {"component": component, "operator": operator, **rest}
    if value:
        entry["value"] = value
    return {"imageOverrider": [entry]}


def _replaces(*pairs: tuple[str, str]) -> list[dict[str, Any]]:
    return [{"op": "replace", "path": path, "value": value} for path, value in pairs]


@pytest.mark.parametrize(
    ("kind", "images", "overriders", "expected"),
    [
        # ported from Karmada's imageoverride tests
        pytest.param(
            "Job",
            ["perl:5.34.0"],
            _overrider("Registry", "add", "registry.k8s.io"),
            _replaces((f"{TEMPLATE}/0/image", "registry.k8s.io/perl:5.34.0")),
            id="registry add without a registry",
        ),
        pytest.param(
            "Deployment",
            [EXAMPLE],
            _overrider("Registry", "add", ".test"),
            _replaces((f"{TEMPLATE}/0/image", "fictional.registry.example.test/imagename:v1.0.0")),
            id="registry add appends text",
        ),
        pytest.param(
            "Deployment",
            [EXAMPLE],
            _overrider("Registry", "replace", "fictional.registry.us"),
            _replaces((f"{TEMPLATE}/0/image", "fictional.registry.us/imagename:v1.0.0")),
            id="registry replace",
        ),
        pytest.param(
            "Deployment",
            [EXAMPLE],
            _overrider("Registry", "remove", "fictional.registry.us"),
            _replaces((f"{TEMPLATE}/0/image", "imagename:v1.0.0")),
            id="registry remove",
        ),
        pytest.param(
            "Deployment",
            [EXAMPLE],
            _overrider("Repository", "add", "/nginx"),
            _replaces((f"{TEMPLATE}/0/image", "fictional.registry.example/imagename/nginx:v1.0.0")),
            id="repository add appends text",
        ),
        pytest.param(
            "Deployment",
            [EXAMPLE],
            _overrider("Repository", "remove", "nginx"),
            _replaces((f"{TEMPLATE}/0/image", "fictional.registry.example/:v1.0.0")),
            id="repository remove keeps the host separator",
        ),
        pytest.param(
            "Deployment",
            [EXAMPLE],
            _overrider("Tag", "replace", DIGEST),
            _replaces((f"{TEMPLATE}/0/image", f"fictional.registry.example/imagename@{DIGEST}")),
            id="tag replaced by a digest",
        ),
        pytest.param(
            "Deployment",
            [EXAMPLE],
            _overrider("Tag", "add", DIGEST),
            _replaces((f"{TEMPLATE}/0/image", EXAMPLE)),
            id="tag add giving neither tag nor digest leaves the image",
        ),
        pytest.param(
            "Deployment",
            [EXAMPLE],
            _overrider("Tag", "remove"),
            _replaces((f"{TEMPLATE}/0/image", "fictional.registry.example/imagename")),
            id="tag remove",
        ),
        pytest.param(
            "Deployment",
            [EXAMPLE, "registry.k8s.io/nginx-slim:0.8"],
            _overrider("Repository", "replace", "nginx"),
            _replaces(
                (f"{TEMPLATE}/0/image", "fictional.registry.example/nginx:v1.0.0"),
                (f"{TEMPLATE}/1/image", "registry.k8s.io/nginx:0.8"),
            ),
            id="every container without a predicate",
        ),
        pytest.param(
            "Deployment",
            [EXAMPLE, "registry.k8s.io/nginx-slim:0.8"],
            _overrider("Repository", "replace", "nginx", predicate={"path": f"{TEMPLATE}/1/image"}),
            _replaces((f"{TEMPLATE}/1/image", "registry.k8s.io/nginx:0.8")),
            id="predicate selects one container",
        ),
        # gitfleet's own cases
        pytest.param(
            "Pod",
            ["nginx"],
            _overrider("Tag", "replace", "1.25"),
            _replaces(("/spec/containers/0/image", "nginx:1.25")),
            id="pod containers",
        ),
        pytest.param(
            "StatefulSet",
            ["nginx:1"],
            _overrider("Registry", "replace", "mirror.local:5000"),
            _replaces((f"{TEMPLATE}/0/image", "mirror.local:5000/nginx:1")),
            id="statefulset, registry with a port",
        ),
        pytest.param(
            "DaemonSet",
            ["localhost/agent:2"],
            _overrider("Registry", "remove"),
            _replaces((f"{TEMPLATE}/0/image", "agent:2")),
            id="daemonset, localhost is a registry",
        ),
        pytest.param(
            "ReplicaSet",
            ["library/nginx:1"],
            _overrider("Registry", "add", "docker.io"),
            _replaces((f"{TEMPLATE}/0/image", "docker.io/library/nginx:1")),
            id="replicaset, first segment without a dot is no registry",
        ),
        pytest.param(
            "CronJob",
            ["busybox"],
            _overrider("Tag", "replace", "1.36"),
            [],
            id="cronjob has no default container path",
        ),
        pytest.param(
            "ConfigMap",
            [],
            _overrider("Tag", "replace", "1.36"),
            [],
            id="other kinds get nothing",
        ),
        pytest.param(
            "Deployment",
            ["nginx:1.25"],
            _overrider("Tag", "replace", "1.25"),
            _replaces((f"{TEMPLATE}/0/image", "nginx:1.25")),
            id="unchanged image still gets an operation",
        ),
        pytest.param(
            "Deployment",
            ["nginx:v1"],
            _overrider("Tag", "add", "-rc1"),
            _replaces((f"{TEMPLATE}/0/image", "nginx:v1-rc1")),
            id="tag add giving a valid tag",
        ),
        pytest.param(
            "Deployment",
            [f"nginx@{DIGEST}"],
            _overrider("Tag", "replace", "1.25"),
            _replaces((f"{TEMPLATE}/0/image", "nginx:1.25")),
            id="tag replaces a digest",
        ),
        pytest.param(
            "Deployment",
            [f"nginx@{DIGEST}"],
            _overrider("Tag", "remove"),
            _replaces((f"{TEMPLATE}/0/image", "nginx")),
            id="remove drops the digest when there is no tag",
        ),
        pytest.param(
            "Deployment",
            [f"nginx:1.25@{DIGEST}"],
            _overrider("Registry", "add", "r.example"),
            _replaces((f"{TEMPLATE}/0/image", "r.example/nginx:1.25")),
            id="tag and digest: the digest is dropped",
        ),
        pytest.param(
            "Deployment",
            ["nginx:1"],
            _overrider("Tag", "replace", "not a tag"),
            _replaces((f"{TEMPLATE}/0/image", "nginx:1")),
            id="invalid tag value is ignored",
        ),
    ],
)
def test_image_operations(
    kind: str,
    images: list[str],
    overriders: dict[str, Any],
    expected: list[dict[str, Any]],
    workload: Any,
    block_ops: Any,
) -> None:
    manifest = workload(kind, *images) if images else {"kind": kind, "metadata": {"name": "x"}}
    assert block_ops(manifest, overriders) == expected


def test_init_containers_are_untouched(workload: Any, apply_block: Any) -> None:
    manifest = workload("Deployment", "nginx:1")
    manifest["spec"]["template"]["spec"]["initContainers"] = [{"name": "i", "image": "busybox"}]
    result = apply_block(manifest, _overrider("Registry", "replace", "r.example"))
    pod = result["spec"]["template"]["spec"]
    assert pod["containers"][0]["image"] == "r.example/nginx:1"
    assert pod["initContainers"][0]["image"] == "busybox"


def test_predicate_reaches_init_containers(workload: Any, apply_block: Any) -> None:
    manifest = workload("Pod", "nginx:1")
    manifest["spec"]["initContainers"] = [{"name": "i", "image": "busybox"}]
    overriders = _overrider(
        "Tag", "replace", "1.36", predicate={"path": "/spec/initContainers/0/image"}
    )
    assert apply_block(manifest, overriders)["spec"]["initContainers"][0]["image"] == "busybox:1.36"


@pytest.mark.parametrize(
    ("images", "predicate", "keys", "message"),
    [
        pytest.param(["Nginx:1"], None, (), "must be lowercase", id="uppercase image"),
        pytest.param(
            [{"name": "c0"}], None, (), "at least one component", id="container without image"
        ),
        pytest.param(
            [{"name": "Web", "image": "nginx"}],
            "/spec/template/spec/containers/0/name",
            (),
            'image "Web"',
            id="predicate on a name is parsed as an image",
        ),
        pytest.param(
            ["nginx"],
            "/spec/template/spec/containers/0/ports",
            ("predicate", "path"),
            "is not a string",
            id="predicate to a missing field",
        ),
        pytest.param(
            ["nginx"],
            "/spec/template/spec/containers/x/image",
            ("predicate", "path"),
            "is not a number",
            id="predicate with a non-numeric index",
        ),
        pytest.param(
            ["nginx"],
            "spec/template/spec/containers/0/image",
            ("predicate", "path"),
            'must start with "/"',
            id="predicate without a leading slash",
        ),
        pytest.param([f"nginx@sha256:{'0' * 63}"], None, (), "digest length", id="short digest"),
    ],
)
def test_image_failures(
    images: list[Any], predicate: str | None, keys: tuple[Any, ...], message: str, workload: Any
) -> None:
    overrider = policy.ImageOverrider(
        component=policy.ImageComponent.TAG,
        operator=policy.OverriderOperator.REPLACE,
        value="1",
        predicate=policy.ImagePredicate(path=predicate) if predicate else None,
    )
    with pytest.raises(_patch.Failure) as caught:
        _image.ops(workload("Deployment", *images), overrider)
    assert caught.value.keys == keys
    assert message in caught.value.message


@pytest.mark.parametrize(
    ("kind", "path", "value"),
    [
        pytest.param("Job", "/metadata/annotations/a~1b", 5, id="number annotation"),
        pytest.param("Pod", "/metadata/labels/app", True, id="boolean label"),
        pytest.param("Deployment", "/metadata/labels", "x", id="labels not a map"),
        pytest.param("Deployment", "/spec/template/metadata/labels/app", 1.5, id="template label"),
    ],
)
def test_image_refused_on_mistyped_metadata(
    kind: str, path: str, value: Any, workload: Any, make_policy: Any, make_cluster: Any
) -> None:
    """An earlier rule making a label, annotation or finalizer a non-string (or the metadata
    a non-object) fails a later imageOverrider without predicate, as Karmada's does: it reads
    the workload into its typed Go form first ("failed to convert Job from unstructured
    object: cannot convert int64 to string")."""
    manifest = workload(kind, "nginx", namespace="ns", labels={"app": "w"})
    manifest["metadata"]["annotations"] = {"a/b": "c"}
    if kind == "Deployment":
        manifest["spec"]["template"]["metadata"] = {"labels": {"app": "w"}}
    plaintext = {"plaintext": [{"path": path, "operator": "add", "value": value}]}
    first = make_policy("a", {"overrideRules": [{"overriders": plaintext}]}, namespace="ns")
    image = _overrider("Tag", "replace", "v2")
    second = make_policy("b", {"overrideRules": [{"overriders": image}]}, namespace="ns")
    with pytest.raises(OverrideError, match="not a"):
        overrides.apply(manifest, make_cluster("member1"), [first, second], [])


def test_image_with_predicate_ignores_mistyped_annotations(workload: Any) -> None:
    """With a predicate Karmada edits the image without reading the typed workload, so a
    number annotation does not stop it."""
    manifest = workload("Deployment", "nginx")
    manifest["metadata"]["annotations"] = {"a": 5}
    overrider = policy.ImageOverrider(
        component=policy.ImageComponent.TAG,
        operator=policy.OverriderOperator.REPLACE,
        value="v2",
        predicate=policy.ImagePredicate(path=f"{TEMPLATE}/0/image"),
    )
    assert _image.ops(manifest, overrider)[0].value == "nginx:v2"
