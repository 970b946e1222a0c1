"""Webster (Sainte-Laguë) division as Karmada's dispenser does it.

Aspects covered:
- seats go to the largest votes/(2*seats+1), ties to fewer seats, then to the name order;
- initial seats are kept and compete; parties with initial seats only get 0 votes;
- the dispenser: weights, initial result, nothing dispensed when weights sum to 0;
- the tie order from the resource UID: FNV-1a 32 odd => descending names, even or empty =>
  ascending (cases from Karmada's webstermethod_test.go and binding_test.go).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitfleet.scheduler import webster

ASC, DESC = False, True


@pytest.mark.parametrize(
    ("seats", "votes", "initial", "descending", "expected"),
    [
        pytest.param(
            4,
            {"Alpha": 1200, "Beta": 900, "Gamma": 400},
            {},
            ASC,
            {"Alpha": 2, "Beta": 1, "Gamma": 1},
            id="webster-example",
        ),
        pytest.param(
            5,
            {"PartyA": 100000, "PartyB": 80000, "PartyC": 30000, "PartyD": 20000},
            {},
            ASC,
            {"PartyA": 2, "PartyB": 2, "PartyC": 1, "PartyD": 0},
            id="webster-classic-round5",
        ),
        pytest.param(
            8,
            {"PartyA": 100000, "PartyB": 80000, "PartyC": 30000, "PartyD": 20000},
            {},
            ASC,
            {"PartyA": 3, "PartyB": 3, "PartyC": 1, "PartyD": 1},
            id="webster-classic-round8",
        ),
        pytest.param(
            1,
            {"PartyA": 3, "PartyB": 1},
            {"PartyA": 1, "PartyB": 0},
            ASC,
            {"PartyA": 1, "PartyB": 1},
            id="webster-tie-fewer-seats",
        ),
        pytest.param(
            1,
            {"PartyA": 1, "PartyB": 1},
            {},
            ASC,
            {"PartyA": 1, "PartyB": 0},
            id="webster-tie-name",
        ),
        pytest.param(
            1,
            {"PartyA": 1, "PartyB": 1},
            {},
            DESC,
            {"PartyA": 0, "PartyB": 1},
            id="webster-tie-name-desc",
        ),
        pytest.param(
            2,
            {"OldParty": 1, "NewParty": 1},
            {"OldParty": 1},
            ASC,
            {"NewParty": 2, "OldParty": 1},
            id="webster-old-and-new-compete",
        ),
        pytest.param(
            2,
            {"PartyA": 100},
            {"PartyB": 3},
            ASC,
            {"PartyA": 2, "PartyB": 3},
            id="webster-initial-without-votes",
        ),
        pytest.param(
            0, {"a": 5, "b": 1}, {}, ASC, {"a": 0, "b": 0}, id="no seats: every party listed with 0"
        ),
        pytest.param(3, {}, {}, ASC, {}, id="no parties: nothing"),
        pytest.param(
            3,
            {"a": 1, "b": 1, "c": 1},
            {},
            DESC,
            {"a": 1, "b": 1, "c": 1},
            id="even split ignores order",
        ),
        pytest.param(
            2,
            {"a": 1, "b": 1, "c": 1},
            {},
            DESC,
            {"a": 0, "b": 1, "c": 1},
            id="descending ties favour c then b",
        ),
    ],
)
def test_allocate_seats(
    seats: int,
    votes: dict[str, int],
    initial: dict[str, int],
    descending: bool,
    expected: dict[str, int],
) -> None:
    result = webster.allocate_seats(seats, votes, initial, descending=descending)
    assert dict(result) == expected
    assert [name for name, _ in result] == sorted(expected), "sorted by name"


ODD_UID = "d43fdeeb-d750-4e2b-bee3-64eb94534f4c"
EVEN_UID = "4858ca61-3ff8-4095-8267-f3d059d8074c"


@pytest.mark.parametrize(
    ("replicas", "weights", "initial", "uid", "expected"),
    [
        pytest.param(
            6,
            {"A": 1, "B": 2, "C": 3},
            {"A": 1, "B": 2, "C": 3},
            "",
            {"A": 2, "B": 4, "C": 6},
            id="dispense-scaleup-6",
        ),
        pytest.param(
            3,
            {"A": 1, "B": 2, "C": 3},
            {"A": 1, "B": 2, "C": 3},
            "",
            {"A": 2, "B": 3, "C": 4},
            id="dispense-scaleup-3",
        ),
        pytest.param(
            2,
            {"A": 1, "B": 2, "C": 3},
            {"A": 1, "B": 2, "C": 3},
            "",
            {"A": 1, "B": 3, "C": 4},
            id="dispense-scaleup-2",
        ),
        pytest.param(1, {"A": 2, "B": 1}, {}, "", {"A": 1, "B": 0}, id="dispense-ha-2to1-one"),
        pytest.param(2, {"A": 2, "B": 1}, {}, "", {"A": 1, "B": 1}, id="dispense-ha-2to1-two"),
        pytest.param(3, {"A": 2, "B": 1}, {}, "", {"A": 2, "B": 1}, id="dispense-ha-2to1-three"),
        pytest.param(
            5,
            {"A": 170, "B": 110, "C": 60},
            {},
            "",
            {"A": 2, "B": 2, "C": 1},
            id="dispense-new-5-170-110-60",
        ),
        pytest.param(
            6,
            {"A": 170, "B": 110, "C": 60},
            {},
            "",
            {"A": 3, "B": 2, "C": 1},
            id="dispense-new-6-170-110-60",
        ),
        pytest.param(5, {"A": 1, "B": 1}, {}, ODD_UID, {"A": 2, "B": 3}, id="dispense-odd-uid"),
        pytest.param(5, {"A": 1, "B": 1}, {}, EVEN_UID, {"A": 3, "B": 2}, id="dispense-even-uid"),
        pytest.param(10, {"member1": 5}, {}, "", {"member1": 10}, id="spread-tc-1-cluster"),
        pytest.param(
            10,
            {"member1": 5, "member2": 5, "member3": 5},
            {},
            "",
            {"member1": 4, "member2": 3, "member3": 3},
            id="spread-tc-111-sum10",
        ),
        pytest.param(
            13,
            {"member1": 1, "member2": 2, "member3": 3},
            {},
            "",
            {"member1": 2, "member2": 4, "member3": 7},
            id="spread-tc-123-sum13",
        ),
        pytest.param(
            4, {"A": 0, "B": 0}, {"A": 1}, "", {"A": 1}, id="zero weights: initial result unchanged"
        ),
        pytest.param(
            0, {"A": 1}, {"A": 2}, "", {"A": 2}, id="nothing to dispense: initial result unchanged"
        ),
        pytest.param(
            0,
            {"A": 1, "B": 3},
            {},
            "",
            {"A": 0, "B": 0},
            id="nothing to dispense, no initial: all 0",
        ),
    ],
)
def test_dispense(
    replicas: int,
    weights: dict[str, int],
    initial: dict[str, int],
    uid: str,
    expected: dict[str, int],
) -> None:
    result = webster.dispense(replicas, list(weights.items()), list(initial.items()), uid)
    assert dict(result) == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        pytest.param(b"", 0x811C9DC5, id="empty"),
        pytest.param(b"a", 0xE40C292C, id="a"),
        pytest.param(b"foobar", 0xBF9CF968, id="foobar"),
    ],
)
def test_fnv1a32_matches_reference_vectors(data: bytes, expected: int) -> None:
    assert webster.fnv1a32(data) == expected


@pytest.mark.parametrize(
    ("uid", "descending"),
    [
        pytest.param("", False, id="no uid: ascending"),
        pytest.param(ODD_UID, True, id="odd hash: descending"),
        pytest.param(EVEN_UID, False, id="even hash: ascending"),
    ],
)
def test_tie_order_follows_uid_hash_parity(uid: str, descending: bool) -> None:
    assert webster.names_descending(uid) is descending


def _one_by_one(
    new_seats: int, votes: dict[str, int], initial: dict[str, int], descending: bool
) -> dict[str, int]:
    """The greedy method as Karmada runs it, a seat at a time."""
    seats = {name: 0 for name in votes} | initial
    order = sorted(seats, reverse=descending)
    for _ in range(new_seats):
        best = max(
            order,
            key=lambda n: (float(votes.get(n, 0)) / float(2 * seats[n] + 1), -seats[n]),
        )
        seats[best] += 1
    return seats


@settings(max_examples=40, deadline=None)
@given(
    new_seats=st.integers(4_000, 20_000),
    votes=st.dictionaries(
        st.sampled_from("abcdef"),
        st.one_of(st.integers(0, 12), st.integers(0, 2**63 - 1)),
        min_size=1,
    ),
    initial=st.dictionaries(st.sampled_from("abcdefg"), st.integers(0, 30_000)),
    descending=st.booleans(),
)
def test_many_seats_go_as_one_at_a_time(
    new_seats: int, votes: dict[str, int], initial: dict[str, int], descending: bool
) -> None:
    result = webster.allocate_seats(new_seats, votes, initial, descending=descending)
    assert dict(result) == _one_by_one(new_seats, votes, initial, descending)


def test_two_billion_replicas_are_divided_without_handing_out_each() -> None:
    result = webster.dispense(2**31 - 1, [("a", 3), ("b", 2), ("c", 1), ("d", 0)], uid=ODD_UID)
    assert result == [("a", 1073741824), ("b", 715827882), ("c", 357913941), ("d", 0)]
