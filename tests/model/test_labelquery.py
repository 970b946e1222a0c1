"""kubectl's `-l` selector text read into a LabelSelector (`model.labelquery`).

Aspects covered:
- every requirement form (`=`, `==`, `!=`, `in`, `notin`, bare key, `!key`, `>`, `<`), with
  spaces and prefixed keys, matched through the one matcher YAML selectors use;
- the empty text selects everything;
- text that does not parse is a ValueError saying where;
- a YAML selector written as text (`labelquery.text`, the API's labelSelector query) reads
  back to a selector that matches what the YAML one matches.
"""

from __future__ import annotations

import pytest

from gitfleet.model import labelquery, selectors

LABELS = {"app": "web", "tier": "front", "example.com/team": "shop", "weight": "5"}


@pytest.mark.parametrize(
    ("text", "matches"),
    [
        pytest.param("app=web", True, id="equals"),
        pytest.param("app==web", True, id="double equals"),
        pytest.param("app!=web", False, id="not equals"),
        pytest.param("missing!=x", True, id="not equals an absent label"),
        pytest.param("tier in (front, back)", True, id="in"),
        pytest.param("tier notin (front)", False, id="notin"),
        pytest.param("app", True, id="exists"),
        pytest.param("!canary", True, id="does not exist"),
        pytest.param("!app", False, id="does not exist, present"),
        pytest.param("weight>3,weight<9", True, id="greater and less"),
        pytest.param("example.com/team=shop", True, id="prefixed key"),
        pytest.param(" app = web , !canary ", True, id="spaces"),
        pytest.param("app=web,tier=back", False, id="every requirement must hold"),
        pytest.param("", True, id="empty: everything"),
    ],
)
def test_requirements(text: str, matches: bool) -> None:
    assert selectors.label_selector_matches(labelquery.parse(text), LABELS) is matches


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("=web", "unable to parse requirement at '=web'", id="no key"),
        pytest.param("app=web,", "missing after the last ','", id="trailing comma"),
        pytest.param("tier in front", "unable to parse", id="set without parentheses"),
        pytest.param("tier in ()", "empty", id="empty set"),
        pytest.param("weight>x", "needs an integer", id="not a number"),
        pytest.param("!app=web", "unable to parse", id="negated equality"),
        pytest.param("a b", "unable to parse", id="two words"),
    ],
)
def test_bad_text(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        labelquery.parse(text)


def test_a_yaml_selector_as_text_reads_back() -> None:
    selector = {
        "matchLabels": {"tier": "front", "app": "web"},
        "matchExpressions": [
            {"key": "example.com/team", "operator": "In", "values": ["shop", "ops"]},
            {"key": "weight", "operator": "NotIn", "values": ["1"]},
            {"key": "app", "operator": "Exists"},
            {"key": "canary", "operator": "DoesNotExist"},
        ],
    }
    text = labelquery.text(selector)
    assert text == (
        "app=web,tier=front,example.com/team in (shop,ops),weight notin (1),app,!canary"
    )
    parsed = labelquery.parse(text)
    assert selectors.label_selector_matches(parsed, LABELS)
    assert not selectors.label_selector_matches(parsed, {**LABELS, "canary": "yes"})
    assert labelquery.text({}) == ""
