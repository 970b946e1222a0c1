"""What operators watch: Prometheus metrics, liveness and readiness, and JSON logs.

`metrics` declares every metric of the reconciler and the agents (docs/design.md lists them),
in a registry of each process's own; `health` keeps the loops' heartbeats (alive) and what
readiness still waits for; `endpoint` serves both over HTTP on the address `--metrics-address`
names (`/metrics`, `/healthz`, `/readyz`); `logs` writes log records as one JSON object per
line. Recording what a render or a sync did is for the service and the agents, which know what
their results mean; this package knows no gitfleet type.
"""
