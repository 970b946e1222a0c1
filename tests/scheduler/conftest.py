"""Scheduler tests: this folder goes at the end of the import path (after tests/, so
`from conftest import ...` elsewhere still finds the shared conftest) so that its helper modules
(`scheduler_builders`, `karmada_case_ops`) import by name in pytest's importlib mode too."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.append(HERE)
