"""`python -m gitfleet.validation.schemas [DIRECTORY]`: write the JSON Schemas (see the package)."""

from __future__ import annotations

import sys

from gitfleet.validation import schemas

sys.exit(schemas.main(sys.argv[1:]))
