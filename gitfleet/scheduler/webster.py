"""Dividing replicas by weight with the Webster (Sainte-Laguë) method, exactly as Karmada does
(Karmada: pkg/util/helper/webstermethod.go AllocateWebsterSeats, pkg/util/helper/binding.go
Dispenser, tieBreakerByUID, SpreadReplicasByTargetClusters).

Seats are handed out one at a time to the party with the largest `votes / (2*seats + 1)`,
compared as float64. Ties go to the party with fewer seats, then by name: ascending, or
descending when the binding's resource UID hashes (FNV-1a, 32 bit) to an odd number, so that
many small workloads do not all favour the same cluster. Every party of the result is listed,
zeros included, sorted by name. Parties given only as initial seats keep them and get 0 votes.

Names are plain strings compared by code point, which is the byte order of their UTF-8 text
that Go compares.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence

Allocation = list[tuple[str, int]]
"""(party, seats) pairs sorted by party name."""

_FNV_OFFSET = 0x811C9DC5
_FNV_PRIME = 0x01000193


def fnv1a32(data: bytes) -> int:
    """The 32-bit FNV-1a hash (Go hash/fnv New32a)."""
    h = _FNV_OFFSET
    for byte in data:
        h = ((h ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return h


def names_descending(uid: str) -> bool:
    """Whether ties go to the larger name for a binding with this resource UID."""
    return bool(uid) and fnv1a32(uid.encode()) & 1 == 1


def allocate_seats(
    new_seats: int,
    votes: Mapping[str, int],
    initial: Mapping[str, int],
    *,
    descending: bool = False,
) -> Allocation:
    """Give `new_seats` more seats to the parties, on top of `initial` (AllocateWebsterSeats)."""
    seats = {name: 0 for name in votes}
    seats.update(initial)
    if not seats:
        return []
    new_seats = _award_sure_seats(new_seats, votes, seats)
    ranked = sorted(seats)
    rank = {name: (-i if descending else i) for i, name in enumerate(ranked)}
    # heap order = Karmada's Less: larger priority, then fewer seats, then the name order
    heap = [
        (-(float(votes.get(name, 0)) / float(2 * s + 1)), s, rank[name], name)
        for name, s in seats.items()
    ]
    heapq.heapify(heap)
    for _ in range(new_seats):
        _, s, key, name = heap[0]
        s += 1
        heapq.heapreplace(heap, (-(float(votes.get(name, 0)) / float(2 * s + 1)), s, key, name))
    return sorted((name, s) for _, s, _, name in heap)


_HANDED_ONE_BY_ONE = 4096
"""Below this many seats (plus four a party) the seats are handed out one at a time."""


def _award_sure_seats(new_seats: int, votes: Mapping[str, int], seats: dict[str, int]) -> int:
    """Give each party, in `seats`, the seats it is sure to win, and return how many are left
    to hand out one at a time; without this, two billion replicas (int32 allows them) would
    take an hour. The greedy method gives every seat whose quotient `votes / (2*k + 1)` beats
    the last one given, and a party's quotients fall as k grows: so with a threshold `t`
    that fewer than `new_seats` quotients exceed, every seat whose quotient is above `t` is
    won. Those are awarded now, two fewer a party than the real bound allows, so that float
    rounding cannot award one too many; the ties at the last seat are then decided as ever."""
    if not any(v > 0 for v in votes.values()):
        return new_seats
    while new_seats > _HANDED_ONE_BY_ONE + 4 * len(seats):
        t = _threshold(new_seats, votes, seats)
        given = 0
        for name, v in votes.items():
            if v > 0:
                won = max(0, math.ceil((v / t - 1) / 2) - seats[name] - 2)
                seats[name] += won
                given += won
        if given == 0:
            break
        new_seats -= given
    return new_seats


def _threshold(new_seats: int, votes: Mapping[str, int], seats: Mapping[str, int]) -> float:
    """A quotient that at most `new_seats - 1` quotients of seats not yet held exceed (each
    party has at most `(v/t + 1)/2 - held` of them), close to the lowest such."""

    def exceeding(t: float) -> float:
        return sum(max(0.0, (v / t + 1) / 2 - seats[n]) for n, v in votes.items() if v > 0)

    low, high = 0.0, float(max(votes.values()))
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if exceeding(middle) <= new_seats - 1:
            high = middle
        else:
            low = middle
    return high


def weight_sum(weights: Sequence[tuple[str, int]]) -> int:
    """The weights' total as Karmada adds them, in int64 (ClusterWeightInfoList.GetWeightSum):
    static weights near 2**63 wrap, and a total that wraps to 0 counts as no weight at all."""
    return (sum(w for _, w in weights) + 2**63) % 2**64 - 2**63


def dispense(
    replicas: int,
    weights: Sequence[tuple[str, int]],
    initial: Sequence[tuple[str, int]] = (),
    uid: str = "",
) -> Allocation:
    """Karmada's Dispenser(replicas, initial, uid).AllocateByWeight(weights).

    Nothing is dispensed when the weights sum to 0 (`weight_sum`), or when there is nothing to
    dispense and an initial result exists; the initial result is returned as is then.
    """
    if (replicas == 0 and initial) or weight_sum(weights) == 0:
        return list(initial)
    return allocate_seats(
        replicas,
        dict(weights),
        dict(initial),
        descending=names_descending(uid),
    )
