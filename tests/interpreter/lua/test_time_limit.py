"""The wall-clock limit of a Lua call holds whatever the script spends its time in.

The count hook and the watchdog act between VM instructions, so each case loops over one family
of library functions (or VM operations) whose single calls do work in C, with arguments that make
each call as long as the sandbox lets it be. Every run must end within the limit plus a margin,
as a `LuaError` located at the script's `luaScript` field and naming the script's line.

Aspects covered:
- string functions: upper/lower/reverse, sub/byte/char/len, format, find (plain and with
  patterns), match, gmatch, string methods on a string value (string.rep, gsub and dump raise
  at once, as Karmada's do: the scripts build long strings with `..`);
- VM operations: `..` of large strings, comparison of long strings, string interning into one
  hash chain, tostring/tonumber of long strings, arithmetic on numeric strings;
- table functions: insert and remove at the front of a large array, sort with and without a
  comparison function, concat, maxn, getn, unpack and select over thousands of values,
  pairs/next/ipairs over large tables;
- math functions with thousands of arguments; os.date with long formats; os.time;
- the kube library on long quantities and large pod templates; encoding large results, and
  cleaning results of invalid UTF-8;
- a shorter limit while a longer call runs in another sandbox;
- pcall/error loops, and the limit under the defaults (one second) through `gitfleet interpret`
  and `gitfleet validate` (whose check runs a script's top level), as a user types them.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from click.testing import Result

from gitfleet.errors import LuaError
from gitfleet.interpreter import lua
from tests.conftest import Invoke
from tests.interpreter.lua.conftest import (
    HEALTHY,
    LUA_SCRIPT_LINE,
    REP,
    assert_still_works,
    customization_yaml,
    health_layer,
)

LIMITS = lua.Limits(seconds=0.5, instructions=10**12)
"""Time is the only limit these scripts reach."""
MARGIN = 1.5
"""Seconds a stopped call may take beyond its limit: the watchdog's wake-up, the last library call
or VM instruction, and a test machine loaded by other suites (0.5 s was not always enough there).
Still far below what the calls take unstopped: forever, or, for the large results below, about
ten times their 0.4 s limit before memory runs out."""

BIG = REP + "local s = rep('x', 1000000)\n"
"""A string at the library's size cap."""
ARRAY = REP + "local t = {string.byte(rep('abcdefg', 1000), 1, 7000)}\n"
"""7000 numbers: about as many values as a C function takes or returns at once."""
LARGE_ARRAY = "local t = {} for i = 1, 100000 do t[i] = (i * 7919) % 1000003 end\n"
POD = (
    "local kube = require('kube')\n"
    "local containers = {}\n"
    "for i = 1, 300 do\n"
    "  containers[i] = {name = 'c' .. i, image = 'nginx',\n"
    "    resources = {requests = {cpu = '100m', memory = '1Gi'}},\n"
    "    env = {{name = 'A', valueFrom = {configMapKeyRef = {name = 'cm' .. i, key = 'k'}}}}}\n"
    "end\n"
    "local pod = {spec = {containers = containers}}\n"
)

FAMILIES = [
    pytest.param(BIG + "while true do local u = s:upper() .. s:lower() end", id="upper lower"),
    pytest.param(BIG + "while true do local r = string.reverse(s) end", id="reverse"),
    pytest.param(
        BIG + ARRAY + "while true do local a = s:sub(2) .. string.char(unpack(t)) end",
        id="sub char",
    ),
    pytest.param(BIG + "while true do local n = select('#', s:byte(1, 7000)) end", id="byte"),
    pytest.param(BIG + "while true do local f = string.format('%s%s', s, s) end", id="format"),
    pytest.param(
        BIG + "local p = rep('x', 5000) .. 'y'\n"
        "while true do local i = string.find(s, p, 1, true) end",
        id="find plain",
    ),
    pytest.param(
        REP + "local s = rep('a', 40)\n"
        "while true do local i = string.find(s, rep('a*', 30) .. 'b') end",
        id="find pattern",
    ),
    pytest.param(
        REP + "local s = rep('a', 2000)\nwhile true do local m = string.match(s, '(a-)(a-)%d') end",
        id="match",
    ),
    pytest.param(
        REP + "local s = rep('a', 3000)\n"
        "while true do for m in string.gmatch(s, '(a-)(a-)(a-)b') do end end",
        id="gmatch",
    ),
    pytest.param(
        BIG + "while true do local r = #(s .. s .. s .. s .. s .. s .. s .. s) end",
        id="concatenation",
    ),
    pytest.param(
        BIG + "local u = s .. 'a' local v = s .. 'b'\nwhile true do local c = u < v end",
        id="comparison",
    ),
    pytest.param(
        "local keep, c = {}, {}\n"
        "for i = 0, 15 do c[i] = string.char(65 + i) end\n"
        "for n = 0, 1e7 do\n"
        "  -- 32 bytes that differ only where PUC 5.1's string hash does not look\n"
        "  keep[#keep + 1] = 'xxxxxxxxxxxxxxxxxxxxxx' .. c[math.floor(n / 65536) % 16] .. 'x' ..\n"
        "    c[math.floor(n / 4096) % 16] .. 'x' .. c[math.floor(n / 256) % 16] .. 'x' ..\n"
        "    c[math.floor(n / 16) % 16] .. 'x' .. c[n % 16] .. 'x'\n"
        "end",
        id="colliding string hashes",
    ),
    pytest.param(
        REP + "local d = '0.' .. rep('1', 999998)\n"
        "while true do local n = tonumber(d) + tonumber(d, 2) + #tostring(n) + d * 1 end",
        id="tonumber tostring",
    ),
    pytest.param(ARRAY + "while true do table.insert(t, 1, 0) end", id="table.insert"),
    pytest.param(
        ARRAY + "while true do table.remove(t, 1) table.insert(t, 0) end", id="table.remove"
    ),
    pytest.param(LARGE_ARRAY + "while true do table.sort(t) end", id="table.sort"),
    pytest.param(
        LARGE_ARRAY + "while true do table.sort(t, function(a, b) return a > b end) end",
        id="table.sort with a function",
    ),
    pytest.param(
        ARRAY + "while true do local r = table.concat(t, rep('-', 100)) end",
        id="table.concat",
    ),
    pytest.param(
        "local t = {} for i = 1, 20000 do t[i + 0.5] = i end\n"
        "while true do local n = table.maxn(t) + table.getn(t) end",
        id="table.maxn",
    ),
    pytest.param(
        ARRAY + "while true do local n = select('#', unpack(t, 1, 7000)) end",
        id="unpack select",
    ),
    pytest.param(ARRAY + "while true do for k, v in pairs(t) do end end", id="pairs"),
    pytest.param(
        "local t = {} for i = 1, 5000 do t['k' .. i] = i end\n"
        "while true do local k = next(t) while k do k = next(t, k) end end",
        id="next",
    ),
    pytest.param(ARRAY + "while true do for i, v in ipairs(t) do end end", id="ipairs"),
    pytest.param(ARRAY + "while true do local m = math.max(unpack(t, 1, 7000)) end", id="math"),
    pytest.param(
        REP + "local f = rep('%c', 50000)\nwhile true do local d = os.date(f) end",
        id="os.date",
    ),
    pytest.param(
        "while true do local n = os.time({year = 2024, month = 1, day = 1}) end", id="os.time"
    ),
    pytest.param(
        REP + "local kube = require('kube')\nlocal q = rep('1', 30000)\n"
        "while true do pcall(kube.resourceAdd, q, q) pcall(kube.getResourceQuantity, q) end",
        id="kube quantities",
    ),
    pytest.param(
        POD + "while true do local r = kube.accuratePodRequirements(pod) end",
        id="kube.accuratePodRequirements",
    ),
    pytest.param(
        POD + "while true do local r = kube.getPodDependencies(pod, 'default') end",
        id="kube.getPodDependencies",
    ),
    pytest.param(
        BIG + "while true do pcall(error, s .. s) end",
        id="pcall error",
    ),
]


@pytest.mark.parametrize("body", FAMILIES)
def test_a_call_ends_in_time_whatever_it_calls(body: str) -> None:
    sandbox = lua.Sandbox(LIMITS)
    started = time.monotonic()
    with pytest.raises(LuaError) as caught:
        health_layer(sandbox, body).interpret_health(HEALTHY)
    elapsed = time.monotonic() - started
    assert elapsed < LIMITS.seconds + MARGIN
    error = caught.value
    assert "time limit exceeded" in error.message
    assert str(error).startswith(f"ric.yaml:{LUA_SCRIPT_LINE}:")
    assert "InterpretHealth: Deployment default/web: lua line " in error.message
    assert_still_works(sandbox)


def test_a_shorter_limit_holds_while_a_longer_call_runs() -> None:
    """The watchdog sleeps until the deadline of the call it knows of: a call of a sandbox with a
    shorter limit, starting while a longer call runs in another thread, must wake it."""
    longer = health_layer(
        lua.Sandbox(lua.Limits(seconds=3.0, instructions=10**12)), "while 1 do end"
    )
    failed: list[LuaError] = []

    def run_longer() -> None:
        try:
            longer.interpret_health(HEALTHY)
        except LuaError as e:
            failed.append(e)

    background = threading.Thread(target=run_longer)
    background.start()
    try:
        time.sleep(0.2)  # the longer call runs, and the watchdog sleeps until its deadline
        test_a_call_ends_in_time_whatever_it_calls("while true do end")
        assert background.is_alive()
    finally:
        background.join()
    assert "time limit exceeded" in failed[0].message


def _assert_result_handling_ends_in_time(body: str) -> None:
    """`body` returns a result whose handling after the script's function returned runs out of
    time (so the error names no Lua line)."""
    seconds = 0.4
    sandbox = lua.Sandbox(
        lua.Limits(seconds=seconds, instructions=10**12, max_values=10**9, memory=256 * 1024 * 1024)
    )
    started = time.monotonic()
    with pytest.raises(LuaError) as caught:
        health_layer(sandbox, body).interpret_health(HEALTHY)
    assert time.monotonic() - started < seconds + MARGIN
    assert caught.value.message.endswith("Deployment default/web: time limit exceeded")
    assert_still_works(sandbox)


def test_encoding_a_large_result_ends_in_time() -> None:
    """Results are encoded inside the call. Strings that need escaping make encoding them far
    longer than building them (these are long: the encoder keeps the escaped text of short
    strings it met before; and few, so that building the table costs little of the limit on
    a loaded machine)."""
    _assert_result_handling_ends_in_time(
        REP + "local q = rep('\\\\\"', 500)\n"
        "local t = {} for i = 1, 60000 do t[i] = q end\nreturn t"
    )


def test_cleaning_a_large_invalid_utf8_result_ends_in_time() -> None:
    """A result Python cannot read is cleaned of invalid UTF-8 on what is left of its call's
    time: megabytes of invalid bytes, each replaced in Lua."""
    _assert_result_handling_ends_in_time(
        REP + "local s = rep('\\255', 1000000)\nreturn {s, s, s, s, s, s}"
    )


HOSTILE = f"""
  {REP}local s = rep('x', 1000000)
  while true do local u = s:upper() .. s:lower() end
"""
"""Three lines of Lua that loop over C calls until stopped."""


def _write_customization(path: Path, body: str = "  return true\n", top_level: str = "") -> None:
    """A health customization whose function runs `body` (from the script's line 2) and whose
    top level ends with `top_level` (from line 4 with the default body)."""
    script = "function InterpretHealth(obj)\n" + body + "end\n" + top_level
    path.write_text(customization_yaml(healthInterpretation=script))


def _timed(cli: Invoke, *args: str) -> tuple[float, Result]:
    started = time.monotonic()
    result = cli(*args)
    return time.monotonic() - started, result


def test_interpret_stops_a_hostile_script_within_the_default_limit(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Measured against the same command on a harmless script: what the command does besides
    running the script is not the script's time."""
    folder = tmp_path / "input"
    folder.mkdir()
    _write_customization(folder / "harmless.yaml")
    _write_customization(folder / "hostile.yaml", body=HOSTILE.lstrip("\n"))
    (folder / "web.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n"
    )
    monkeypatch.chdir(tmp_path)
    run = ("--operation", "InterpretHealth", "--observed-file", "input/web.yaml")
    usual, harmless = _timed(cli, "interpret", "-f", "input/harmless.yaml", *run)
    assert harmless.exit_code == 0
    elapsed, result = _timed(cli, "interpret", "-f", "input/hostile.yaml", *run)
    assert elapsed < usual + lua.Limits().seconds + MARGIN
    assert result.exit_code == 1
    assert f"input/hostile.yaml:{LUA_SCRIPT_LINE}:" in result.output
    assert "lua line 3: time limit exceeded" in result.output


def test_validate_stops_a_hostile_top_level_within_the_default_limit(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, top_level in (("harmless", ""), ("hostile", HOSTILE.lstrip("\n"))):
        (tmp_path / name).mkdir()
        _write_customization(tmp_path / name / "ric.yaml", top_level=top_level)
    monkeypatch.chdir(tmp_path)
    usual, harmless = _timed(cli, "validate", "--repo", "harmless")
    assert harmless.exit_code == 0
    elapsed, result = _timed(cli, "validate", "--repo", "hostile")
    assert elapsed < usual + lua.Limits().seconds + MARGIN
    assert result.exit_code == 0, "Karmada takes the script: each call of it fails"
    assert f"hostile/ric.yaml:{LUA_SCRIPT_LINE}:" in result.output
    assert "lua line 5: time limit exceeded" in result.output
    assert "warning" in result.output
