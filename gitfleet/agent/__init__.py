"""Agents: apply rendered Work directories to member clusters and report back through Git
(Karmada's execution controller, karmada-agent and status controllers).

- `apply`: the applier, `sync(client, work_set)`: ordered server-side apply, content-hash
  skipping, drift repair, inventory-based pruning behind a guard, health and status;
  with its parts `workdir` (the desired set), `stamp` (labels, annotations, hash),
  `inventory`, `prune` (the guard), `drift`, `takeover` (from `kubectl apply`), `order`,
  `health`, `identity` and `kube` (the only HTTP: the official client, errors mapped, retries);
- `clusterinfo`: what a cluster reports about itself (version, APIs, capacity, Ready);
- `report`: the status ref's files, written when they change or the heartbeat is due;
- `worker`: one cluster's loop: sync, report, again (with backoff after failures);
- `fleet` and `push`: the push agent, one worker thread per Push cluster.

Git is read and written through `gitfleet.gitstore` only.
"""
