"""Writes the Go types of corev1.PodTemplateSpec, as Karmada's vendored k8s.io/api defines them,
to gitfleet/interpreter/lua/podtemplatespec.json (bench/karmada_types.go reads them by
reflection), for `interpreter.lua._gotypes` to check a Lua table passed to the kube library as
Karmada's encoding/json decoding of it would. Run again for another Karmada:

    python -m bench.karmada_types --karmada PATH [--go GO] [--commit SHA]
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from bench import karmada_harness

TARGET = Path(__file__).resolve().parents[1] / "gitfleet/interpreter/lua/podtemplatespec.json"


def main() -> None:
    checkout = karmada_harness.checkout_from_command_line(__doc__.splitlines()[0])
    harness = Path(__file__).resolve().with_name("karmada_types.go")
    with tempfile.TemporaryDirectory() as tmp:
        binary = karmada_harness.build(harness, checkout.path, checkout.go, Path(tmp))
        found = json.loads(subprocess.run([str(binary)], capture_output=True, check=True).stdout)
    found["karmada"] = checkout.commit
    TARGET.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    print(f"wrote {TARGET}: {len(found['structs'])} types of Karmada {checkout.commit}")


if __name__ == "__main__":
    main()
