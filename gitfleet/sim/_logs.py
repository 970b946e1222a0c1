"""`GET pods/<name>/log`: what `kubectl logs` reads. Simulated containers print nothing, so a
container that runs or ran has an empty log; the refusals are the API server's (kubelet's
answers relayed): a pod of several containers needs `?container=`, a container the pod does
not have is refused, and one that has not started yet is waiting.
"""

from __future__ import annotations

from gitfleet.sim import _errors, _json


def log(pod: _json.Obj, container: str) -> str:
    """The log of `container` (the pod's only one when ""), or 400 BadRequest."""
    name = pod["metadata"]["name"]
    names = [c.get("name", "") for c in _json.dig(pod, "spec", "containers") or []]
    if not container:
        if len(names) != 1:
            raise _errors.bad_request(
                f"a container name must be specified for pod {name}, choose one of: "
                f"[{' '.join(names)}]"
            )
        container = names[0]
    if container not in names:
        raise _errors.bad_request(f"container {container} is not valid for pod {name}")
    statuses = {s.get("name"): s for s in _json.dig(pod, "status", "containerStatuses") or []}
    state = (statuses.get(container) or {}).get("state") or {}
    if "running" in state or "terminated" in state:
        return ""
    reason = (state.get("waiting") or {}).get("reason") or "ContainerCreating"
    raise _errors.bad_request(
        f'container "{container}" in pod "{name}" is waiting to start: {reason}'
    )
