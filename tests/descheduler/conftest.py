"""Descheduler tests: this folder goes on the import path, last (so that `conftest` still names
the shared tests/conftest.py), so that `descheduler_kit` imports by name in importlib mode too."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.append(HERE)
