"""Image reference parsing as Karmada's imageparser over distribution/reference: host only when
the first segment has `.` or `:` or is localhost, ports and IPv6 hosts, digests checked for
algorithm and length, no docker.io defaults, round trip to the same text, and the errors."""

from __future__ import annotations

import pytest

from gitfleet.overrides import _imageref

SHA = "50d858e0985ecc7f60418aaf0cc5ab587f42c2570a884095a9e8ccacd0f6545c"


@pytest.mark.parametrize(
    ("image", "hostname", "repository", "tag", "digest"),
    [
        pytest.param("pause", "", "pause", "", "", id="bare name"),
        pytest.param("subpath/imagename:v1.0.0", "", "subpath/imagename", "v1.0.0", "", id="path"),
        pytest.param(
            "fictional.registry.example/imagename:v1.0.0",
            "fictional.registry.example",
            "imagename",
            "v1.0.0",
            "",
            id="registry",
        ),
        pytest.param(
            "fictional.registry.example:10443/subpath/imagename:v1.0.0",
            "fictional.registry.example:10443",
            "subpath/imagename",
            "v1.0.0",
            "",
            id="registry with port",
        ),
        pytest.param(
            f"fictional.registry.example:10443/subpath/imagename@sha256:{SHA}",
            "fictional.registry.example:10443",
            "subpath/imagename",
            "",
            f"sha256:{SHA}",
            id="digest",
        ),
        pytest.param("10.10.10.10:10443/a/b", "10.10.10.10:10443", "a/b", "", "", id="ip host"),
        pytest.param("[::1]:5000/app:1", "[::1]:5000", "app", "1", "", id="ipv6 host"),
        pytest.param("localhost/app", "localhost", "app", "", "", id="localhost"),
        pytest.param("library/nginx", "", "library/nginx", "", "", id="no docker.io default"),
        pytest.param(f"app@sha512:{'a' * 128}", "", "app", "", f"sha512:{'a' * 128}", id="sha512"),
    ],
)
def test_parse(image: str, hostname: str, repository: str, tag: str, digest: str) -> None:
    ref = _imageref.ImageRef.parse(image)
    assert (ref.hostname, ref.repository, ref.tag, ref.digest) == (
        hostname,
        repository,
        tag,
        digest,
    )
    assert str(ref) == image


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param("", ("", ""), id="empty"),
        pytest.param("imagename", ("", "imagename"), id="simple"),
        pytest.param("subpath/imagename", ("", "subpath/imagename"), id="sub-path"),
        pytest.param(
            "fictional.registry.example/subpath/imagename",
            ("fictional.registry.example", "subpath/imagename"),
            id="canonical",
        ),
        pytest.param("host:5000/x", ("host:5000", "x"), id="port makes a host"),
    ],
)
def test_split_hostname(name: str, expected: tuple[str, str]) -> None:
    assert _imageref.split_hostname(name) == expected


@pytest.mark.parametrize(
    ("image", "message"),
    [
        pytest.param("", "at least one component", id="empty"),
        pytest.param("Nginx", "must be lowercase", id="uppercase"),
        pytest.param("nginx:", "invalid reference format", id="empty tag"),
        pytest.param(f"nginx@sha256:{SHA[:-1]}", "digest length", id="digest too short"),
        pytest.param(f"nginx@md5:{SHA}", "unsupported digest algorithm", id="unknown algorithm"),
        pytest.param(f"nginx@sha256:{SHA.upper()}", "digest format", id="uppercase hex"),
        pytest.param("b" * 256, "not be more than 255", id="name too long"),
    ],
)
def test_parse_errors(image: str, message: str) -> None:
    with pytest.raises(_imageref.InvalidReferenceError, match=message):
        _imageref.ImageRef.parse(image)


def test_tag_or_digest_editing() -> None:
    ref = _imageref.ImageRef.parse("imagename:v1.0.0")
    ref.set_tag_or_digest(f"sha256:{SHA}")
    assert str(ref) == f"imagename@sha256:{SHA}"
    ref.set_tag_or_digest("v2")
    assert str(ref) == "imagename:v2"
    ref.set_tag_or_digest("-bad")
    assert str(ref) == "imagename:v2"
    ref.remove_tag_or_digest()
    assert str(ref) == "imagename"
