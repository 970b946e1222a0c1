"""gitfleet: Karmada's multi-cluster placement model, run as GitOps.

The package is laid out by pipeline stage (load, validate, detect, schedule, interpret,
override, render, commit); see docs/design.md for the contracts between them.
"""

__version__ = "0.1.0"
