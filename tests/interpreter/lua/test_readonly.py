"""Which scripts cannot change a table (`_readonly`), read from their tokens.

Aspects covered:
- scripts that only read: their assignments target plain names (locals, globals, several at
  once, a numeric for), table constructors with fields, `require("kube")` in its spellings,
  comparisons, and code-like text in strings and comments;
- scripts that can change a table: an assignment to a field or index (alone, among several
  targets, in a function inside a constructor or an argument, after a call), a function
  defined as a field or method, the table library by any name, `_G`, `require` of anything but
  "kube" or by another name, the functions the rewritten constructors call;
- what cannot be read counts as changing tables (an unfinished string, unbalanced blocks or
  brackets).
"""

from __future__ import annotations

import pytest

from gitfleet.interpreter.lua import _readonly, _rewrite

READS_ONLY = [
    pytest.param(
        """
        function InterpretHealth(observedObj)
          local status = observedObj.status
          if status == nil or status.observedGeneration ~= observedObj.metadata.generation then
            return false
          end
          return (status.updatedReplicas or 0) >= (observedObj.spec.replicas or 1)
        end
        """,
        id="health rule",
    ),
    pytest.param(
        """
        local kube = require("kube")
        function GetReplicas(desiredObj)
          return desiredObj.spec.replicas, kube.accuratePodRequirements(desiredObj.spec.template)
        end
        """,
        id="kube required",
    ),
    pytest.param("local kube = require 'kube'", id="require without parentheses"),
    pytest.param("local k = require('kube') local s = require \"kube\"", id="either quote"),
    pytest.param("local a, b = 1, 2 x = 1 y, z = a, b", id="plain names"),
    pytest.param("for i = 1, 10 do local j = i end", id="numeric for"),
    pytest.param("local t = {a = 1, [k] = 2, b = {c = 3, d = {}}}", id="constructor fields"),
    pytest.param("local f = function(o) local x = o.a return x end", id="function value"),
    pytest.param("print(obj.x) x = 1", id="assignment after a call"),
    pytest.param("local r = obj.table, obj:require()", id="fields with library names"),
    pytest.param("if a == b or a ~= c or a <= d or a >= e then end", id="comparisons"),
    pytest.param(
        "local s = 'a.b = 1' -- t.x = 1\nlocal l = [[ t[1] = 2 table.insert ]] --[[ _G ]]",
        id="code in strings and comments",
    ),
    pytest.param("local function helper(t) return t.x end", id="local function"),
    pytest.param("repeat local n = 1 until true while false do end", id="loops"),
]


@pytest.mark.parametrize("source", READS_ONLY)
def test_scripts_that_only_read(source: str) -> None:
    assert _readonly.cannot_change_tables(source)


CHANGES = [
    pytest.param("function F(obj) obj.spec.replicas = 3 end", id="field"),
    pytest.param("obj['x'] = 1", id="index by string"),
    pytest.param("t[1] = 2", id="index"),
    pytest.param("local a a, t.x = 1, 2", id="field among targets"),
    pytest.param("t.x, a = 1, 2", id="field first among targets"),
    pytest.param("t[1], a = 1, 2", id="index among targets"),
    pytest.param("f(a)[1] = 2", id="index of a call"),
    pytest.param("f().x = 1", id="field of a call"),
    pytest.param("x = y ; t.z = 1", id="after a semicolon"),
    pytest.param("function obj.f() end", id="function as a field"),
    pytest.param("function obj:m() end", id="method"),
    pytest.param("local t = {f = function() obj.x = 1 end}", id="in a function in a constructor"),
    pytest.param("f(function() t.x = 1 end)", id="in a function argument"),
    pytest.param("table.insert(t, 1)", id="table.insert"),
    pytest.param("local tinsert = table.insert", id="table library by another name"),
    pytest.param("local t = table", id="table library itself"),
    pytest.param("local g = _G", id="globals"),
    pytest.param("local t = require('table')", id="require of table"),
    pytest.param('local t = require "table"', id="require of table without parentheses"),
    pytest.param("local t = require(name)", id="require of a variable"),
    pytest.param("local r = require", id="require by another name"),
    pytest.param("local t = require('kube' .. x)", id="require of an expression"),
    pytest.param(f"{_rewrite.TRACK}(obj, 'a')", id="constructor tracking"),
    pytest.param(f"local f = {_rewrite.TRACK_DYNAMIC}", id="dynamic constructor tracking"),
    pytest.param("local s = 'unfinished", id="unfinished string"),
    pytest.param("if a then", id="unfinished block"),
    pytest.param("end", id="unopened block"),
    pytest.param("local t = {a = (1}", id="unbalanced brackets"),
]


@pytest.mark.parametrize("source", CHANGES)
def test_scripts_that_can_change_a_table(source: str) -> None:
    assert not _readonly.cannot_change_tables(source)
