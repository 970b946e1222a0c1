"""ResourceInterpreterCustomizations: scripts compile, operations are not defined twice.

Aspects covered:
- a script that does not compile is an error located at its luaScript;
- two customizations of one kind defining the same operation: the later (by name) is an
  error naming the earlier; dependency interpretation may be defined by several;
- customizations of different kinds do not conflict.
"""

from __future__ import annotations

from collections.abc import Callable

from validation.documents import CUSTOMIZATION, FLEET

Check = Callable[[dict[str, str]], list[str]]


def test_a_script_that_does_not_compile(check: Check) -> None:
    broken = CUSTOMIZATION.replace("return obj.spec.replicas, nil", "return obj.spec.replicas,")
    [found] = check({**FLEET, "interpreter/widgets.yaml": broken})
    assert found.startswith(
        "interpreter/widgets.yaml:11:7: error: ResourceInterpreterCustomization widgets: "
    ), found
    assert "replicaResource" in found


def test_the_same_operation_twice(check: Check) -> None:
    other = CUSTOMIZATION.replace("name: widgets", "name: widgets-extra")
    found = check({**FLEET, "interpreter/extra.yaml": other})
    assert found == [
        "interpreter/extra.yaml:10:5: error: ResourceInterpreterCustomization widgets-extra: "
        "spec.customizations.replicaResource: example.io/v1 Widget already has this operation "
        "from ResourceInterpreterCustomization widgets (interpreter/widgets.yaml:1:1)",
        "interpreter/extra.yaml:15:5: error: ResourceInterpreterCustomization widgets-extra: "
        "spec.customizations.healthInterpretation: example.io/v1 Widget already has this "
        "operation from ResourceInterpreterCustomization widgets (interpreter/widgets.yaml:1:1)",
    ]


def test_dependencies_and_other_kinds_do_not_conflict(check: Check) -> None:
    script = "function GetDependencies(obj)\n  return {}\nend\n"
    dependencies = CUSTOMIZATION.split("    replicaResource:")[0] + (
        "    dependencyInterpretation:\n      luaScript: |\n"
        + "".join(f"        {line}\n" for line in script.splitlines())
    )
    first = dependencies.replace("name: widgets", "name: deps-a")
    second = dependencies.replace("name: widgets", "name: deps-b")
    gadgets = CUSTOMIZATION.replace("kind: Widget", "kind: Gadget").replace("widgets", "gadgets")
    files = {"i/a.yaml": first, "i/b.yaml": second, "i/gadgets.yaml": gadgets}
    assert check({**FLEET, **files}) == []
