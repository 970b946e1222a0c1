"""Writes gitfleet/sim/protobuf_fields.json, the field table the simulator decodes protocol
buffer request bodies with (`gitfleet.sim._protobuf`), from the Kubernetes source that
`tests/realk8s.py build` unpacks: every message of k8s.io/api and of apimachinery's meta/v1,
runtime, resource and intstr packages (their generated.proto files), and for each scalar field
whether its Go field is a pointer (the types.go files), since a zero there is a value and
elsewhere is the field left out, and which message fields Go embeds inline (their fields are
the parent's in JSON).

    python tests/protobuf_fields.py

Field numbers never change between releases; fields newer than the source are not in the
table, and the decoder skips them.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import realk8s

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "gitfleet" / "sim" / "protobuf_fields.json"
_PACKAGE = re.compile(r"^package ([\w.-]+);", re.M)
_MESSAGE = re.compile(r"^message (\w+) \{(.*?)^\}", re.M | re.S)
_FIELD = re.compile(r"^\s*(optional|repeated) ([\w.]+) (\w+) = (\d+);", re.M)
_MAP = re.compile(r"^\s*map<(\w+), ([\w.]+)> (\w+) = (\d+);", re.M)
_STRUCT = re.compile(r"^type (\w+) struct \{(.*?)^\}", re.M | re.S)
_GO_FIELD = re.compile(r"^\s*\w+\s+(\*?)\S+\s+`[^`]*protobuf:\"[^\"]*name=(\w+)", re.M)
_GO_INLINE = re.compile(r"^\s*\*?[\w.]+\s+`json:\",inline[^`]*protobuf:\"[^\"]*name=(\w+)", re.M)
_SUPPLEMENT = {
    "k8s.io.api.authentication.v1.SelfSubjectReview": {
        "1": ["metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", ""]
    },
}
"""Kinds newer than the source that typed clients create with no more than metadata
(`kubectl auth whoami`, Kubernetes 1.28's generated.proto): their other fields are status."""
_SCALARS = {
    "string": "string",
    "bytes": "bytes",
    "bool": "bool",
    "int32": "int",
    "int64": "int",
    "uint32": "int",
    "uint64": "int",
    "double": "double",
    "float": "float",
}


def _type(name: str, package: str, known: set[str]) -> str:
    if name in _SCALARS:
        return _SCALARS[name]
    local = f"{package}.{name}"
    return local if local in known else name


def _package(proto: str) -> str:
    found = _PACKAGE.search(proto)
    if found is None:
        raise ValueError("a generated.proto without a package line")
    return found.group(1)


def _folders(staging: Path) -> list[Path]:
    return [
        *sorted(p.parent for p in (staging / "api").glob("*/*/generated.proto")),
        *(
            staging / "apimachinery" / "pkg" / sub
            for sub in ("apis/meta/v1", "runtime", "api/resource", "util/intstr")
        ),
    ]


def table(staging: Path) -> dict[str, dict[str, list[str]]]:
    sources = [(folder, (folder / "generated.proto").read_text()) for folder in _folders(staging)]
    packages = {folder: _package(text) for folder, text in sources}
    known = {
        f"{packages[folder]}.{m.group(1)}"
        for folder, text in sources
        for m in _MESSAGE.finditer(text)
    }
    pointers: set[tuple[str, str]] = set()
    inline: set[tuple[str, str]] = set()
    for folder, _ in sources:
        for go_file in folder.glob("types*.go"):
            for struct in _STRUCT.finditer(go_file.read_text()):
                message = f"{packages[folder]}.{struct.group(1)}"
                for field in _GO_FIELD.finditer(struct.group(2)):
                    if field.group(1):
                        pointers.add((message, field.group(2)))
                for field in _GO_INLINE.finditer(struct.group(2)):
                    inline.add((message, field.group(1)))
    messages: dict[str, dict[str, list[str]]] = {}
    for folder, text in sources:
        package = packages[folder]
        for message in _MESSAGE.finditer(text):
            name = f"{package}.{message.group(1)}"
            fields: dict[str, list[str]] = {}
            for found in _FIELD.finditer(message.group(2)):
                label, kind, field, number = found.groups()
                flags = (
                    ("r" if label == "repeated" else "")
                    + ("p" if (name, field) in pointers else "")
                    + ("i" if (name, field) in inline else "")
                )
                fields[number] = [field, _type(kind, package, known), flags]
            for found in _MAP.finditer(message.group(2)):
                key, value, field, number = found.groups()
                fields[number] = [
                    field,
                    f"map:{_type(key, package, known)}:{_type(value, package, known)}",
                    "",
                ]
            messages[name] = fields
    return {**messages, **_SUPPLEMENT}


def main() -> int:
    staging = realk8s.cache_dir() / "src" / "kubernetes-v1.20.2" / "staging" / "src" / "k8s.io"
    if not staging.is_dir():
        print(
            f"no Kubernetes source at {staging}: run tests/realk8s.py build first", file=sys.stderr
        )
        return 1
    TARGET.write_text(json.dumps(table(staging), sort_keys=True, separators=(",", ":")) + "\n")
    print(TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main())
