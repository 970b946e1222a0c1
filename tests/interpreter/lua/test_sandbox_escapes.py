"""Scripts that try to leave the sandbox or exhaust it.

Aspects covered:
- every capability Karmada's runtime withholds is out of reach: io, os beyond date/time,
  package/require of other modules, load/loadstring (also with bytecode), dofile/loadfile,
  string.dump (it raises Karmada's error), debug, getfenv/setfenv, the `python` global of
  lupa, metatables (of strings and tables), raw*, coroutines, newproxy, collectgarbage/gcinfo,
  module;
- runaway scripts stop with their Lua line: infinite loops (also inside pcall), table growth,
  string doubling, deep recursion, catastrophic patterns (the time limit against every library
  function: test_time_limit.py);
- every failure is a `LuaError` located at the script's `luaScript` field, and the sandbox
  serves the next call as if nothing happened.
"""

from __future__ import annotations

import pytest

from gitfleet.errors import LuaError
from gitfleet.interpreter import lua
from tests.interpreter.lua.conftest import (
    HEALTHY,
    LUA_SCRIPT_LINE,
    REP,
    TIGHT,
    assert_still_works,
    health_layer,
)

ESCAPES = [  # (script body, what the error says)
    ("return io.open('/etc/passwd')", "global 'io'", "io"),
    ("return os.execute('true')", "field 'execute'", "os.execute"),
    ("return os.getenv('HOME')", "field 'getenv'", "os.getenv"),
    ("return os.remove('/tmp/x')", "field 'remove'", "os.remove"),
    ("local m = require('io')\nreturn m", "module 'io' not found", "require io"),
    ("local m = require('debug')\nreturn m", "module 'debug' not found", "require debug"),
    ("local p = package.loadlib('x', 'y')\nreturn p", "global 'package'", "package"),
    ("local f = load(function() end)\nreturn f", "load is not supported", "load"),
    ("local f = loadstring('return true')\nreturn f()", "loadstring is not", "loadstring"),
    ("local f = loadstring('\\27Lua\\81\\0')\nreturn f()", "loadstring is not", "bytecode"),
    ("local f = dofile('/etc/passwd')\nreturn f", "dofile is not supported", "dofile"),
    ("local f = loadfile('/etc/passwd')\nreturn f", "loadfile is not supported", "loadfile"),
    ("local d = string.dump(function() end)\nreturn d", "string.dump is not", "string.dump"),
    ("local d = ('').dump\nreturn d(print)", "string.dump is not", "string method dump"),
    ("return debug.getinfo(1)", "global 'debug'", "debug"),
    ("local e = getfenv(1)\nreturn e", "getfenv is not supported", "getfenv"),
    ("setfenv(1, {})\nreturn true", "setfenv is not supported", "setfenv"),
    ("return python.eval('1')", "global 'python'", "python global"),
    ("return _G.python.builtins", "field 'python'", "python via _G"),
    ("local mt = getmetatable('')\nreturn mt", "getmetatable is not", "string metatable"),
    (
        "local t = setmetatable({}, {__index = function() return io end})\nreturn t.x",
        "setmetatable is not supported",
        "setmetatable",
    ),
    ("rawset(_G, 'x', 1)\nreturn true", "rawset is not supported", "rawset"),
    ("local v = rawget(_G, 'io')\nreturn v", "rawget is not supported", "rawget"),
    ("local f = coroutine.wrap(function() end)\nreturn f()", "global 'coroutine'", "coroutine"),
    ("local p = newproxy(true)\nreturn p", "newproxy is not supported", "newproxy"),
    ("local n = collectgarbage('count')\nreturn n", "collectgarbage is not", "gc"),
    ("return gcinfo()", "global 'gcinfo'", "gcinfo"),
    ("module('x')\nreturn true", "module is not supported", "module"),
    ("string.rep = function() return io end\nreturn true", "read-only table 'string'", "patch"),
    (
        "local k = require('kube')\nk.resourceAdd = nil\nreturn true",
        "read-only table 'kube'",
        "kube",
    ),
]


@pytest.mark.parametrize(("body", "message"), [pytest.param(b, m, id=i) for b, m, i in ESCAPES])
def test_capability_out_of_reach(tight_sandbox: lua.Sandbox, body: str, message: str) -> None:
    with pytest.raises(LuaError) as caught:
        health_layer(tight_sandbox, body).interpret_health(HEALTHY)
    assert message in caught.value.message
    assert str(caught.value).startswith(f"ric.yaml:{LUA_SCRIPT_LINE}:")
    assert_still_works(tight_sandbox)


RUNAWAYS = [  # (body, message, script line: the function's body starts on line 2)
    pytest.param("while true do end", "instruction limit exceeded", 2, id="infinite loop"),
    pytest.param(
        "while true do pcall(function() while true do end end) end",
        "instruction limit exceeded",
        2,
        id="loop inside pcall",
    ),
    pytest.param(
        "local ok = xpcall(function() while true do end end, function() return 1 end)\n"
        "while not ok do end",
        "instruction limit exceeded",
        2,
        id="loop inside xpcall",
    ),
    pytest.param(
        "local t = {}\nfor i = 1, 1e9 do\nt[i] = {" + ", ".join(["i"] * 64) + "}\nend",
        "memory limit exceeded",
        4,
        id="table growth",
    ),
    pytest.param(
        "local s = 'x'\nwhile true do s = s .. s end",
        "not enough memory",
        None,
        id="string doubling",
    ),
    pytest.param(
        "local function f(n) return 1 + f(n + 1) end\nreturn f(1)",
        "stack overflow",
        2,
        id="deep recursion",
    ),
    pytest.param(
        REP + "local s = rep('a', 40)\nlocal i = string.find(s, rep('a*', 30) .. 'b')\nreturn i",
        "instruction limit exceeded",
        3,
        id="catastrophic find",
    ),
    pytest.param(
        REP + "local s = rep('a', 3000)\nlocal n = 0\n"
        "for m in string.gmatch(s, '(a-)(a-)(a-)b') do n = n + 1 end\nreturn n",
        "instruction limit exceeded",
        4,
        id="catastrophic gmatch",
    ),
]


@pytest.mark.parametrize(("body", "message", "line"), RUNAWAYS)
def test_runaway_script_stops(
    tight_sandbox: lua.Sandbox, body: str, message: str, line: int | None
) -> None:
    with pytest.raises(LuaError) as caught:
        health_layer(tight_sandbox, body).interpret_health(HEALTHY)
    error = caught.value
    assert message in error.message
    assert str(error).startswith(f"ric.yaml:{LUA_SCRIPT_LINE}:")
    if line is not None:
        assert f"lua line {line}:" in error.message
    assert "InterpretHealth: Deployment default/web" in error.message
    assert_still_works(tight_sandbox)


def test_default_limits_stop_an_infinite_loop() -> None:
    sandbox = lua.Sandbox()
    with pytest.raises(LuaError, match="instruction limit exceeded"):
        health_layer(sandbox, "while true do end").interpret_health(HEALTHY)
    assert_still_works(sandbox)


def test_memory_is_given_back_after_a_bomb() -> None:
    sandbox = lua.Sandbox(TIGHT)
    before = sandbox.memory_in_use()
    with pytest.raises(LuaError):
        doubling = "local s = 'x'\nwhile true do s = s .. s end"
        health_layer(sandbox, doubling).interpret_health(HEALTHY)
    assert sandbox.memory_in_use() < before + 1024 * 1024
    assert_still_works(sandbox)


def test_globals_do_not_leak_between_calls(tight_sandbox: lua.Sandbox) -> None:
    counting = health_layer(tight_sandbox, "calls = (calls or 0) + 1\nreturn calls == 1")
    assert counting.interpret_health(HEALTHY) == (True, True)
    assert counting.interpret_health(HEALTHY) == (True, True)


def test_python_objects_are_never_reachable(tight_sandbox: lua.Sandbox) -> None:
    """Every global and library value is a Lua value: no userdata (a wrapped Python object)."""
    body = """
    local seen, bad = {}, {}
    local function walk(v, path)
      if type(v) == "userdata" then bad[#bad + 1] = path end
      if type(v) ~= "table" or seen[v] then return end
      seen[v] = true
      for k, x in pairs(v) do walk(x, path .. "." .. tostring(k)) end
    end
    for _, name in ipairs({"string", "table", "math", "os"}) do walk(_G[name], name) end
    walk(require("kube"), "kube")
    return #bad == 0 and type(python) == "nil"
    """
    assert health_layer(tight_sandbox, body).interpret_health(HEALTHY) == (True, True)
