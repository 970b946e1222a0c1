"""The API model: one frozen dataclass per Karmada kind, one module per API group.

`policy` (policy.karmada.io), `cluster` (cluster.karmada.io), `config` (config.karmada.io),
`work` (work.karmada.io), `meta` (embedded Kubernetes types), `template` (raw resource
templates), `origin` (file/line/column). Everything here is a value: no I/O, no mutation.
"""
