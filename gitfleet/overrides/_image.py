"""imageOverrider: change the registry, repository or tag of container images
(Karmada: pkg/util/overridemanager/imageoverride.go).

Without a predicate, every container image of a known workload kind (see `_podspec`) gets one
`replace` operation, even when the image does not change; other kinds get none. With a
predicate, the single string at `predicate.path` is changed. Registry and repository: `add`
appends the value as text, `replace` sets it, `remove` empties it. Tag: `add` appends to the
tag (or digest), `replace` sets it, each kept only when the result is a valid tag or digest
(see `_imageref`); `remove` drops the tag, else the digest. An image that does not parse makes
the overrider fail, as in Karmada.
"""

from __future__ import annotations

from typing import Any

from gitfleet.model import policy
from gitfleet.overrides import _imageref, _patch, _podspec

_ADD = policy.OverriderOperator.ADD
_REPLACE = policy.OverriderOperator.REPLACE
_INT32 = 1 << 31


def _edit(current: str, overrider: policy.ImageOverrider) -> str:
    if overrider.operator is _ADD:
        return current + overrider.value
    if overrider.operator is _REPLACE:
        return overrider.value
    return ""


def override_image(image: str, overrider: policy.ImageOverrider) -> str:
    """The image after one overrider; raises `InvalidReferenceError` if it does not parse."""
    ref = _imageref.ImageRef.parse(image)
    if overrider.component is policy.ImageComponent.REGISTRY:
        ref.hostname = _edit(ref.hostname, overrider)
    elif overrider.component is policy.ImageComponent.REPOSITORY:
        ref.repository = _edit(ref.repository, overrider)
    elif overrider.operator is _ADD:
        ref.set_tag_or_digest(ref.tag_or_digest + overrider.value)
    elif overrider.operator is _REPLACE:
        ref.set_tag_or_digest(overrider.value)
    else:
        ref.remove_tag_or_digest()
    return str(ref)


def _replace(path: str, image: Any, overrider: policy.ImageOverrider) -> _patch.Op:
    if not isinstance(image, str):
        raise _patch.Failure((), f"the image at {path} is not a string")
    try:
        return _patch.Op("replace", path, override_image(image, overrider))
    except _imageref.InvalidReferenceError as error:
        raise _patch.Failure((), f'image "{image}" at {path} does not parse: {error}') from error


def _predicate_image(manifest: dict[str, Any], path: str) -> Any:
    """The value at a predicate path, read as Karmada's obtainImageValue reads it: segments
    split on "/" without unescaping, list indices taken from the following segment."""
    segments = path.strip("/").split("/")
    node = manifest
    index = 0
    while index < len(segments) - 1:
        child = node.get(segments[index])
        if isinstance(child, dict):
            node = child
        elif isinstance(child, list):
            position = _patch.go_atoi(segments[index + 1])
            if position is None or not -_INT32 <= position < _INT32:
                raise _patch.Failure(
                    ("predicate", "path"), f'"{segments[index + 1]}" in {path} is not a number'
                )
            if not 0 <= position < len(child) or not isinstance(child[position], dict):
                raise _patch.Failure(
                    ("predicate", "path"), f"{path}: no object at index {position}"
                )
            node = child[position]
            index += 1
        else:
            raise _patch.Failure(
                ("predicate", "path"), f'{path}: "{segments[index]}" is not an object or a list'
            )
        index += 1
    image = node.get(segments[-1])
    if not isinstance(image, str):
        raise _patch.Failure(("predicate", "path"), f"{path} is not a string in the manifest")
    return image


def ops(manifest: dict[str, Any], overrider: policy.ImageOverrider) -> list[_patch.Op]:
    """The patch one imageOverrider makes on `manifest`."""
    if overrider.predicate is not None:
        path = overrider.predicate.path
        image = _predicate_image(manifest, path)
        if not path.startswith("/"):
            raise _patch.Failure(("predicate", "path"), f'"{path}" must start with "/"')
        return [_replace(path, image, overrider)]
    _podspec.check_metadata_types(manifest)
    pointer, containers = _podspec.containers(manifest)
    return [
        _replace(f"{pointer}/{index}/image", container.get("image", ""), overrider)
        for index, container in enumerate(containers)
    ]
