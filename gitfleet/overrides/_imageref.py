"""Container image references as Karmada's imageOverrider sees them
(Karmada: pkg/util/imageparser/{parser,lifted}.go over github.com/distribution/reference).

An image is `[host[:port]/]repository[:tag][@digest]`. Parsing follows distribution's grammar
and errors (no normalisation: `nginx` has no registry, never `docker.io/library`); the host is
the first path segment only when it contains `.` or `:` or is `localhost`. A reference with
both a tag and a digest keeps only the tag. Setting a tag or digest accepts the new value only
when it is a valid tag (and drops the digest) or a valid digest (and drops the tag); anything
else leaves the reference unchanged.
"""

from __future__ import annotations

import dataclasses
import re

_ALPHANUMERIC = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN_NAME = _DOMAIN_COMPONENT + r"(?:\." + _DOMAIN_COMPONENT + r")*"
_HOST = r"(?:" + _DOMAIN_NAME + r"|\[(?:[a-fA-F0-9:]+)\])"
_DOMAIN_AND_PORT = _HOST + r"(?::[0-9]+)?"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}"
_PATH_COMPONENT = _ALPHANUMERIC + r"(?:" + _SEPARATOR + _ALPHANUMERIC + r")*"
_REMOTE_NAME = _PATH_COMPONENT + r"(?:/" + _PATH_COMPONENT + r")*"
_NAME = r"(?:" + _DOMAIN_AND_PORT + r"/)?" + _REMOTE_NAME

REFERENCE = re.compile(r"(" + _NAME + r")(?::(" + _TAG + r"))?(?:@(" + _DIGEST + r"))?", re.ASCII)
_ANCHORED_NAME = re.compile(r"(?:(" + _DOMAIN_AND_PORT + r")/)?(" + _REMOTE_NAME + r")", re.ASCII)
TAG = re.compile(_TAG, re.ASCII)
DIGEST = re.compile(_DIGEST, re.ASCII)
_OCI_DIGEST = re.compile(r"[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+", re.ASCII)
_ENCODED_LENGTH = {"sha256": 64, "sha384": 96, "sha512": 128}
_HEX = re.compile(r"[a-f0-9]+", re.ASCII)
_NAME_MAX = 255


class InvalidReferenceError(ValueError):
    """The text is not an image reference distribution would accept."""


def _check_digest(digest: str) -> None:
    """opencontainers/go-digest `Digest.Validate` with sha256/384/512 registered."""
    algorithm, _, encoded = digest.partition(":")
    if algorithm not in _ENCODED_LENGTH:
        if not _OCI_DIGEST.fullmatch(digest):
            raise InvalidReferenceError("invalid checksum digest format")
        raise InvalidReferenceError("unsupported digest algorithm")
    if len(encoded) != _ENCODED_LENGTH[algorithm]:
        raise InvalidReferenceError("invalid checksum digest length")
    if not _HEX.fullmatch(encoded):
        raise InvalidReferenceError("invalid checksum digest format")


def split_hostname(name: str) -> tuple[str, str]:
    """Registry host and repository of a repository name."""
    head, slash, rest = name.partition("/")
    if not slash or ("." not in head and ":" not in head and head != "localhost"):
        return "", name
    return head, rest


@dataclasses.dataclass(slots=True)
class ImageRef:
    """The parts of an image reference; mutable while one overrider edits it."""

    hostname: str = ""
    repository: str = ""
    tag: str = ""
    digest: str = ""

    @classmethod
    def parse(cls, image: str) -> ImageRef:
        match = REFERENCE.fullmatch(image)
        if match is None:
            if image == "":
                raise InvalidReferenceError("repository name must have at least one component")
            if REFERENCE.fullmatch(image.lower()):
                raise InvalidReferenceError("repository name must be lowercase")
            raise InvalidReferenceError("invalid reference format")
        name, tag, digest = match.group(1), match.group(2) or "", match.group(3) or ""
        parts = _ANCHORED_NAME.fullmatch(name)
        domain, path = (parts.group(1) or "", parts.group(2)) if parts else ("", name)
        if len(path) > _NAME_MAX:
            raise InvalidReferenceError(
                f"repository name must not be more than {_NAME_MAX} characters"
            )
        if digest:
            _check_digest(digest)
        hostname, repository = split_hostname(f"{domain}/{path}" if domain else path)
        if tag:
            return cls(hostname, repository, tag=tag)
        return cls(hostname, repository, digest=digest)

    @property
    def tag_or_digest(self) -> str:
        return self.tag or self.digest

    def set_tag_or_digest(self, value: str) -> None:
        if TAG.fullmatch(value):
            self.tag, self.digest = value, ""
        elif DIGEST.fullmatch(value):
            self.tag, self.digest = "", value

    def remove_tag_or_digest(self) -> None:
        if self.tag:
            self.tag = ""
        else:
            self.digest = ""

    def __str__(self) -> str:
        full = f"{self.hostname}/{self.repository}" if self.hostname else self.repository
        if self.tag:
            return f"{full}:{self.tag}"
        if self.digest:
            return f"{full}@{self.digest}"
        return full
