"""Random Lua interpreter scenarios, and Karmada's answers to them.

Each scenario is made from its seed alone (`scenario`): one operation (every hook of a
ResourceInterpreterCustomization), one or two customizations targeting the object's kind
(scripts of this module: returning numbers, integral floats, strings, nested, empty, holed and
mixed tables, nil fields and booleans, changing and returning the object, calling the `kube`
library and the string, table, math and os functions, arithmetic on strings, failing), and
plausible objects (Deployments with pod templates that reference ConfigMaps, Secrets, PVCs and
a service account; custom resources with odd fields: unicode, big and fractional numbers, empty
maps and lists, nulls, one object in two places), with the operation's inputs (an observed
object, status items or nil, items with a health or none, an empty one too, a replica count).
The answers in testdata/karmada_lua_answers.json are what Karmada's own ConfigurableInterpreter
gave for each (bench/karmada_lua.go): a digest of the result, keyed as Karmada's interpreter
test data, or that it failed. To make them again (after a change to this generator, or for
another Karmada), from the repository root:

    python tests/interpreter/lua/lua_oracle_scenarios.py --karmada PATH [--go GO] [--commit SHA]

PATH is a checkout of karmada-io/karmada with its vendored packages. The generator must not
change without making the answers again: a seed stands for the scenario it made when they were
made.

Left out on purpose, so that every answer is Karmada's one answer: scripts whose result depends
on the order `pairs` visits an input object's keys (Karmada fills those tables from Go maps, in
random order) or on the order of `kube.getPodDependencies`' list (built from Go sets); results
where Karmada deletes an empty table from an array and something more from a later element of
the same array (it deletes paths one after the other in Go's set order, and the first deletion
moves the later elements); the clock (`os.time()`, `os.clock()`), local time and
`math.random`; replica counts outside int32 (Go's conversion of such a float is undefined); and
what gitfleet does differently on purpose (docs/karmada-compatibility.md): negative replica
counts, and `ReviseReplica` or `Retain` results naming another object.
"""

from __future__ import annotations

import copy
import decimal
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

Doc = dict[str, Any]

ANSWERS = Path(__file__).resolve().parent / "testdata" / "karmada_lua_answers.json"
SEEDS = 2000
KUBE = 'local kube = require("kube")\n'

FIELDS = {
    "InterpretReplica": "replicaResource",
    "InterpretComponent": "componentResource",
    "ReviseReplica": "replicaRevision",
    "Retain": "retention",
    "AggregateStatus": "statusAggregation",
    "InterpretHealth": "healthInterpretation",
    "InterpretStatus": "statusReflection",
    "InterpretDependency": "dependencyInterpretation",
}
"""Each operation's rule field in a customization."""

SCRIPTS: dict[str, list[str]] = {
    "InterpretReplica": [
        KUBE
        + """function GetReplicas(obj)
  return obj.spec.replicas, kube.accuratePodRequirements(obj.spec.template)
end""",
        "function GetReplicas(obj) return obj.spec.replicas end",
        "function GetReplicas(obj) return (obj.spec.replicas or 0) / 2, nil end",
        """function GetReplicas(obj)
  local a = obj.metadata.annotations
  return tonumber(a and a["replicas"]) or 1
end""",
        """function GetReplicas(obj)
  local requires = {resourceRequest = {}, nodeClaim = {}}
  local spec = obj.spec.template and obj.spec.template.spec or {}
  requires.nodeClaim.nodeSelector = spec.nodeSelector
  requires.nodeClaim.tolerations = spec.tolerations
  requires.resourceRequest.cpu = "250m"
  requires.resourceRequest.memory = 1024
  requires.resourceRequest["example.com/gpu"] = 0.5
  requires.namespace = obj.metadata.namespace
  requires.priorityClassName = spec.priorityClassName
  return obj.spec.replicas or 1, requires
end""",
        'function GetReplicas(obj) return "3" end',
        "function GetReplicas(obj) return true, nil end",
        "function GetReplicas(obj) return nil, {} end",
        'function GetReplicas(obj) return 1, "requirements" end',
        "function GetReplicas(obj) return 2, {} end",
        "function GetReplicas(obj) return 2, {resourceRequest = {}, nodeClaim = {}} end",
        KUBE
        + """function GetReplicas(obj)
  local c = obj.spec.template.spec.containers[1]
  local cpu = c.resources and c.resources.requests and c.resources.requests.cpu
  local total = kube.resourceAdd(cpu, "100m", nil)
  local q = kube.getResourceQuantity(total)
  return math.floor(q * 10), {resourceRequest = {cpu = total, memory = "64Mi"}}
end""",
        """function GetReplicas(obj)
  local n = obj.spec.replicas or 0
  return math.max(math.floor(n * 1.5), 1) + 0.0
end""",
        KUBE
        + """function GetReplicas(obj)
  local req = kube.accuratePodRequirements(obj.spec.template)
  req.nodeClaim = nil
  req.resourceRequest = req.resourceRequest or {}
  req.resourceRequest.pods = "1"
  return #obj.spec.template.spec.containers, req
end""",
        "function GetReplicas(obj) return obj.spec.size end",
        "function GetReplicas(obj) return 3, {resourceRequest = {cpu = {}}} end",
        'function GetReplicas(obj) return 3, {resourceRequest = {cpu = "lots"}} end',
        "function GetReplicas(obj) return 3, {nodeClaim = {tolerations = {{key = 1}}}} end",
        "function GetReplicas(obj)\n  return 2, {resourceRequest = {cpu = 2.048, memory = '+1Gi', "
        "pods = '1.5', storage = '2.048k'}, nodeClaim = {nodeSelector = {zone = {}}}}\nend",
    ],
    "InterpretComponent": [
        KUBE
        + """function GetComponents(obj)
  local comps = {}
  table.insert(comps, {name = "main", replicas = obj.spec.replicas or 0,
    replicaRequirements = kube.accuratePodRequirements(obj.spec.template)})
  return comps
end""",
        "function GetComponents(obj) return {} end",
        "function GetComponents(obj) return nil end",
        'function GetComponents(obj) return {{replicas = 2.5, name = "x"}} end',
        'function GetComponents(obj) return {{replicas = 2.0}, {name = "b"}} end',
        """function GetComponents(obj)
  local out = {}
  for i, c in ipairs(obj.spec.template.spec.containers) do
    out[i] = {name = c.name, replicas = i, replicaRequirements = {
      resourceRequest = c.resources and c.resources.requests or {}}}
  end
  return out
end""",
        'function GetComponents(obj) return {name = "main", replicas = 1} end',
        "function GetComponents(obj) return 7 end",
    ],
    "ReviseReplica": [
        "function ReviseReplica(obj, desiredReplica)\n"
        "  obj.spec.replicas = desiredReplica\n  return obj\nend",
        """function ReviseReplica(obj, desiredReplica)
  obj.metadata.annotations = obj.metadata.annotations or {}
  obj.metadata.annotations["replicas"] = tostring(desiredReplica)
  obj.spec.replicas = desiredReplica
  return obj
end""",
        "function ReviseReplica(obj, desiredReplica)\n"
        "  obj.spec.replicas = desiredReplica / 2\n  return obj\nend",
        """function ReviseReplica(obj, desiredReplica)
  obj.spec.extra = {}
  obj.spec.more = {inner = {}, list = {{a = {}}, {}, {b = 1}}}
  obj.spec.replicas = desiredReplica
  return obj
end""",
        "function ReviseReplica(obj, r) obj.kind = nil return obj end",
        "function ReviseReplica(obj, r) return 5 end",
        """function ReviseReplica(obj, r)
  obj.metadata.labels["size"] = string.format("%d-%s", r, string.upper(obj.metadata.name))
  return obj
end""",
        "function ReviseReplica(obj, r) obj.spec.replicas = math.min(r, 3) return obj end",
        """function ReviseReplica(obj, r)
  if obj.spec.template ~= nil then
    obj.spec.template.spec.containers[1].env = {{name = "REPLICAS", value = tostring(r)}}
  end
  obj.spec.replicas = r
  return obj
end""",
        "function ReviseReplica(obj, r) obj.kind = 42 return obj end",
        "function ReviseReplica(obj, r) return {obj} end",
    ],
    "Retain": [
        "function Retain(desiredObj, observedObj)\n"
        "  desiredObj.status = observedObj.status\n  return desiredObj\nend",
        """function Retain(desiredObj, observedObj)
  if observedObj.spec.paused ~= nil then
    desiredObj.spec.paused = observedObj.spec.paused
  end
  return desiredObj
end""",
        """function Retain(desiredObj, observedObj)
  for k, v in pairs(observedObj.metadata.labels or {}) do
    if desiredObj.metadata.labels == nil then desiredObj.metadata.labels = {} end
    if desiredObj.metadata.labels[k] == nil then desiredObj.metadata.labels[k] = v end
  end
  return desiredObj
end""",
        "function Retain(desiredObj, observedObj)\n"
        "  desiredObj.spec.replicas = observedObj.spec.replicas\n  return desiredObj\nend",
        "function Retain(desiredObj, observedObj) return observedObj end",
        """function Retain(desiredObj, observedObj)
  desiredObj.spec.emptyMap = observedObj.spec.emptyMap
  desiredObj.spec.emptyList = observedObj.spec.emptyList
  desiredObj.spec.added = {}
  return desiredObj
end""",
        "function Retain(desiredObj, observedObj) return nil end",
        """function Retain(desiredObj, observedObj)
  desiredObj.metadata.annotations = observedObj.metadata.annotations
  desiredObj.spec.template = observedObj.spec.template
  return desiredObj
end""",
    ],
    "AggregateStatus": [
        """function AggregateStatus(desiredObj, statusItems)
  if statusItems == nil then return desiredObj end
  if desiredObj.status == nil then desiredObj.status = {} end
  local replicas, ready = 0, 0
  for i = 1, #statusItems do
    local s = statusItems[i].status
    if s ~= nil then
      replicas = replicas + (s.replicas or 0)
      ready = ready + (s.readyReplicas or 0)
    end
  end
  desiredObj.status.replicas = replicas
  desiredObj.status.readyReplicas = ready
  return desiredObj
end""",
        """function AggregateStatus(desiredObj, statusItems)
  local names = {}
  for _, item in ipairs(statusItems or {}) do
    names[#names + 1] = item.clusterName .. ":" .. tostring(item.applied) .. ":"
      .. tostring(item.health)
  end
  desiredObj.status = {clusters = table.concat(names, ","), list = names}
  return desiredObj
end""",
        """function AggregateStatus(desiredObj, statusItems)
  desiredObj.status = {conditions = {}}
  for _, item in ipairs(statusItems or {}) do
    if item.status and item.status.conditions then
      for _, c in ipairs(item.status.conditions) do
        table.insert(desiredObj.status.conditions, c)
      end
    end
  end
  return desiredObj
end""",
        """function AggregateStatus(desiredObj, statusItems)
  if statusItems ~= nil and statusItems[1] ~= nil then
    desiredObj.status = statusItems[1].status
  end
  return desiredObj
end""",
        "function AggregateStatus(desiredObj, statusItems) return nil end",
        """function AggregateStatus(desiredObj, statusItems)
  desiredObj.status = {observedGeneration = desiredObj.metadata.generation,
    clusters = #statusItems}
  return desiredObj
end""",
        """function AggregateStatus(desiredObj, statusItems)
  local s = {phase = "Pending", ratio = 0}
  local n = 0
  for _, item in ipairs(statusItems or {}) do
    n = n + 1
    if item.status and item.status.phase == "Running" then s.ratio = s.ratio + 1 end
  end
  if n > 0 then s.ratio = s.ratio / n end
  if s.ratio == 1 then s.phase = "Running" end
  desiredObj.status = s
  return desiredObj
end""",
    ],
    "InterpretHealth": [
        "function InterpretHealth(o)\n  return o.status ~= nil and "
        "o.status.readyReplicas == o.spec.replicas\nend",
        """function InterpretHealth(o)
  if o.status == nil then return false end
  return (o.status.readyReplicas or 0) >= (o.spec.replicas or 1)
end""",
        """function InterpretHealth(o)
  if o.status == nil or o.status.conditions == nil then return false end
  for _, c in ipairs(o.status.conditions) do
    if c.type == "Available" then return c.status == "True" end
  end
  return false
end""",
        "function InterpretHealth(o) return o.status end",
        'function InterpretHealth(o) return string.find(o.metadata.name, "^w") ~= nil end',
        'function InterpretHealth(o) return o.status.phase == "Running" end',
        "function InterpretHealth(o) return 1 end",
        "function InterpretHealth(o)\n"
        "  return o.metadata.generation == o.status.observedGeneration\nend",
    ],
    "InterpretStatus": [
        "function ReflectStatus(o) return o.status end",
        """function ReflectStatus(o)
  if o.status == nil then return {} end
  local s = {}
  s.replicas = o.status.replicas
  s.conditions = o.status.conditions
  s.ready = o.status.readyReplicas
  return s
end""",
        "function ReflectStatus(o) return {int = 3, float = 2.5, intfloat = 4.0, "
        "neg = -0.0, big = 2^53, bigger = 1e21, small = 1e-7, tiny = 5e-324} end",
        "function ReflectStatus(o) return {str = 'x', t = true, f = false, empty = {}, "
        "nested = {a = {b = {c = {}}}}, list = {1, 'two', {three = 3}}, lists = {{1, 2}, {}}} end",
        "function ReflectStatus(o) return {list = {1, nil, 3}} end",
        "function ReflectStatus(o) return {list = {1, 2, nil}} end",
        "function ReflectStatus(o) return {mixed = {1, a = 2}} end",
        "function ReflectStatus(o) return {nan = 0/0} end",
        "function ReflectStatus(o) return {inf = math.huge} end",
        "function ReflectStatus(o) return {f = print} end",
        "function ReflectStatus(o) local t = {1} return {a = t, b = t} end",
        "function ReflectStatus(o) local t = {} t.self = t return t end",
        "function ReflectStatus(o) return {[1] = 'a', [2] = 'b', [4] = 'd'} end",
        "function ReflectStatus(o) return {[2] = 'b', [1] = 'a'} end",
        "function ReflectStatus(o) return {[1.5] = 'x'} end",
        "function ReflectStatus(o) return {[true] = 'x'} end",
        "function ReflectStatus(o) return {'a', 'b'} end",
        "function ReflectStatus(o) return 'status' end",
        "function ReflectStatus(o) return nil end",
        """function ReflectStatus(o)
  local name = o.metadata.name or ""
  return {
    unicode = "ünïcödé 値 🚀", cut = string.sub("ünï", 1, 2), byte = string.char(255, 65),
    zero = "a\\0b", html = "<a href='x'>&</a>", len = #"ünï", upper = string.upper("abcü"),
    name = name, rev = string.reverse(name), lower = string.lower(name .. " ÀÉ İ ß"),
    bytes = {string.byte("AZ", 1, 2)}, quoted = string.format("%q", "a\\n\\"b\\0"),
  }
end""",
        """function ReflectStatus(o)
  return {
    f1 = string.format("%5.2f|%d|%s|%x|%g|%e", 3.14159, 3, "s", 255, 1e20, 12345.678),
    f2 = string.format("%d", 3.7), f3 = string.format("%5s|%-5s|%05d", "a", "b", 42),
    f4 = string.format("%g|%g|%g", 0.1, 1e15, 1e16), f5 = string.format("%c%c", 72, 105),
    f6 = string.format("%10.3s|", "abcdef"), f7 = string.format("%i|%u|%o|%X", 7, 8, 9, 255),
    f8 = string.format("%.0f|%.3g|%+d", 2.5, 2/3, 5),
  }
end""",
        """function ReflectStatus(o)
  return {
    t1 = tostring(1e15), t2 = tostring(1e16), t3 = tostring(0.1), t4 = tostring(-0.0),
    t5 = tostring(1/3), t6 = tostring(2^63), t7 = tostring(100), t8 = tostring(1e100),
    t9 = tostring(nil), t10 = tostring(true), t11 = 1 .. "", t12 = 1.5 .. "",
    t13 = tostring(0.1 + 0.2), t14 = tostring(-1e-10), t15 = tostring(123456789012),
  }
end""",
        """function ReflectStatus(o)
  local r = o.spec and o.spec.replicas
  local n = type(r) == "number" and r or 0
  local s = ""
  for i, c in ipairs(o.status and o.status.conditions or {}) do s = s .. i / 3 .. ";" end
  return {
    ratio = "ready " .. n / 3 .. " of " .. n, share = n * 0.1 .. "%", loop = s,
    big = 2^60 .. "|" .. 1e15 .. "|" .. 1234567.5 .. "|" .. -0.0, tiny = 1e-5 .. "|" .. 5e-324,
    mixed = #"ab" .. -n .. 0.5 ^ 2, back = ("1" .. 5) + 0.5, special = 1/0 .. -1/0 .. 0/0,
  }
end""",
        """function ReflectStatus(o)
  local sparse, holes, list = {}, {1, 2, 3, 4, 5, 6}, {}
  sparse[2] = "b"
  holes[4] = nil
  holes[6] = nil
  for i, c in ipairs(o.status and o.status.conditions or {}) do list[#list + 1] = c.type end
  table.insert(list, 1, "first")
  local gap = {1}
  gap[3] = 3
  local popped = {1, 2, 3, 4}
  popped[#popped] = nil
  table.remove(popped)
  popped[9] = nil
  table.insert(popped, 1, 0)
  table.insert(popped, "end")
  return {
    sparse = #sparse, holes = #holes, list = #list, gap = #gap, unpacked = select("#", unpack(gap)),
    joined = pcall(table.concat, gap), one = table.concat({7}), two = table.concat({7, 8}, "-"),
    lens = string.len(0.1 + 0.2) .. "|" .. string.sub(1/3, 1, 4) .. "|" .. string.reverse(2^60),
    caught = select(2, pcall(function() error("stop") end)),
    popped = popped, popped_length = #popped,
    mod = 1e300 % 0.1 .. "|" .. -7 % 3 .. "|" .. 2^63 % 3 .. "|" .. #list % 2 .. "|" .. 5.5 % -2,
  }
end""",
        """function ReflectStatus(o)
  return {
    n1 = tonumber("0x1A"), n2 = tonumber("  12  "), n3 = tonumber("1e2"),
    n4 = tonumber("12a"), n5 = tonumber("z", 36), n6 = tonumber("ff", 16),
    n7 = tonumber(""), n8 = tonumber("0x"), n9 = tonumber(" -3.5 "), n10 = tonumber("1e"),
    n11 = tonumber("10", 2), n12 = tonumber(".5"), n13 = tonumber("5."), n14 = tonumber("inf"),
  }
end""",
        """function ReflectStatus(o)
  return {
    m1 = 7 % 3, m2 = -7 % 3, m3 = 7 % -3, m4 = 2^0.5, m5 = 10 / 4, m6 = math.fmod(-7, 3),
    m7 = math.floor(-3.5), m8 = math.ceil(-3.5), m9 = math.abs(-2), m10 = math.max(1, 5, 3),
    m11 = math.min(2, -1), m12 = math.sqrt(16), m13 = 5.5 % 2, m14 = math.floor(2^40 + 0.5),
    m15 = math.modf(3.7), m16 = math.pi, m17 = math.log10(1000), m18 = math.exp(0),
  }
end""",
        """function ReflectStatus(o)
  local t = {}
  t.c = 1; t.a = 2; t.b = 3; t.a = nil; t.d = 4; t.a = 5
  local keys = {}
  for k, v in pairs(t) do keys[#keys + 1] = k .. "=" .. v end
  local arr = {10, 20, 30}
  arr.x = "y"
  local seen = {}
  for k, v in pairs(arr) do seen[#seen + 1] = tostring(k) .. ":" .. tostring(v) end
  return {keys = table.concat(keys, ","), seen = table.concat(seen, ",")}
end""",
        """function ReflectStatus(o)
  local s = "a,b,,c"
  local parts = {}
  for p in string.gmatch(s, "([^,]*)") do parts[#parts + 1] = "<" .. p .. ">" end
  local words = {}
  for w in string.gmatch("one two  three", "%a+") do table.insert(words, w) end
  table.sort(words)
  local nums = {5, 2, 8, 1}
  table.sort(nums, function(a, b) return a > b end)
  return {
    parts = table.concat(parts), words = words, nums = nums,
    m1 = string.match("key=value", "(%w+)=(%w+)"), m2 = string.match("v1.2.3", "%d+%.%d+"),
    f1 = string.find("a.b", ".", 1, true), f2 = string.find("abc", "b()"),
    sub = string.sub("hello", -3), sub2 = string.sub("hello", 2, 100),
    sub3 = string.sub("hello", 0),
    lower = string.lower("ÀBC"), fr = string.format("%s", 1.0),
  }
end""",
        """function ReflectStatus(o)
  local t = {1, 2, 3}
  table.insert(t, 1, 0)
  table.remove(t)
  local u = {unpack({1, 2, 3})}
  local function count(...) return select("#", ...) end
  local holes = {1, nil, 3}
  local ok, err = pcall(function() error("boom") end)
  local ok2, err2 = pcall(error, {code = 7})
  local ok3, err3 = pcall(function() local x = nil; return x.y end)
  return {
    t = t, u = u, c = count(1, nil, 3, nil), len = #holes, ok = ok,
    err = type(err), ok2 = ok2, code = err2.code, ok3 = ok3, err3type = type(err3),
    maxn = table.maxn({1, 2, [10] = 3}), cat = table.concat({1, 2.5, "x"}, "-"),
  }
end""",
        'function ReflectStatus(o) error("status is broken") end',
        """function ReflectStatus(o)
  local function all(s, p)
    local t = {}
    for w in string.gmatch(s, p) do t[#t + 1] = w end
    return table.concat(t, "|")
  end
  local name = o.metadata.name or ""
  return {
    f1 = {string.find(name, "", 2)}, f2 = {string.find(name, "r", 100)},
    f3 = {pcall(string.find, name, "r", 100, true)}, f4 = {string.find(name, "()", #name + 1)},
    m1 = select("#", string.match(name, "%d%d%d")), m2 = {string.match(name, "()", #name + 2)},
    m3 = {string.match(name, ".", -2)}, g1 = all("THE (quick) fox", "%f[%a]%a+"),
    g2 = all(name, "^."), g3 = all("héllo wörld", "%a+"), c1 = string.char(256, 72, -1),
    c2 = pcall(string.char, "65"), t1 = pcall(tostring), n1 = {string.find(12.5, ".", 1, true)},
  }
end""",
        """function ReflectStatus(o)
  local conditions = {}
  for i, c in ipairs(o.status and o.status.conditions or {}) do conditions[i] = c end
  for i = 1, 14 do conditions[#conditions + 1] = {type = "T" .. (i % 4), status = "x" .. i} end
  table.sort(conditions, function(a, b) return a.type < b.type end)
  local order = {}
  for i, c in ipairs(conditions) do order[i] = c.status end
  return {order = table.concat(order, ",")}
end""",
        "function ReflectStatus(o) error({code = 1}) end",
        "function ReflectStatus(o) local x = nil return x.field end",
        "function ReflectStatus(o) return o.spec end",
        """function ReflectStatus(o)
  return {
    d1 = os.date("!%Y-%m-%dT%H:%M:%SZ", 86400 * 365), d2 = os.date("!%j %a %b %p", 1e9),
    d3 = type(os.time), d4 = type(os.date("!*t", 0)), d5 = os.date("!*t", 3600).hour,
  }
end""",
        """function ReflectStatus(o)
  return {io = type(io), osx = type(os.execute), load = pcall(load, "return 1"),
    dofile = pcall(dofile, "x"), req = pcall(require, "os"), sm = pcall(setmetatable, {}, {}),
    rawget = pcall(rawget, {}, 1), debug = type(debug),
    coroutine = type(coroutine), gm = pcall(getmetatable, "")}
end""",
        """function ReflectStatus(o)
  local s = o.status or {}
  local out = {}
  for i, c in ipairs(s.conditions or {}) do
    out[i] = {type = c.type, ok = c.status == "True", reason = c.reason or ""}
  end
  return {conditions = out, count = #out, generation = o.metadata.generation}
end""",
        """function ReflectStatus(o)
  local g = {pcall(string.gsub, "abc", "b", "x")}
  local r = {pcall(function() local s = ("ab"):rep(2) return s end)}
  local d = {pcall(string.dump, ReflectStatus)}
  return {gsub = g, rep = r, dump = d, method = type(("x").gsub)}
end""",
        """function ReflectStatus(o)
  local n = (o.spec and o.spec.replicas) or 1
  local r = {octal = "010" + 0, under = "1_000" * 2, bin = "0b101" / 5, power = 2 ^ -3,
    pow = math.pow(n + 1.5, 3), floor = math.floor(" 010 "), mod = math.mod(-7, 3),
    log10 = math.log10(1e15), max = math.max(n, "7"), sub = ("abcdef"):sub(-3, 1 / 0)}
  local ok, err = pcall(function() return n + {} end)
  local ok2, err2 = pcall(function() local v = nil * n return v end)
  local ok3, err3 = pcall(function() local v = math.fmod("x", true) return v end)
  local ok4, err4 = pcall(function() local v = -o.metadata return v end)
  r.errors = {err, err2, err3, err4}
  r.negated = -"0x10" - -n
  return r
end""",
    ],
    "InterpretDependency": [
        KUBE
        + """function GetDependencies(desiredObj)
  return kube.getPodDependencies(desiredObj.spec.template, desiredObj.metadata.namespace)
end""",
        """function GetDependencies(desiredObj)
  local deps = {}
  local spec = desiredObj.spec.template.spec
  for _, v in ipairs(spec.volumes or {}) do
    if v.configMap ~= nil then
      table.insert(deps, {apiVersion = "v1", kind = "ConfigMap",
        namespace = desiredObj.metadata.namespace, name = v.configMap.name})
    end
  end
  return deps
end""",
        """function GetDependencies(desiredObj)
  local sel = {matchLabels = {app = "x"}}
  return {
    {apiVersion = "v1", kind = "Secret", namespace = "ns", labelSelector = sel},
    {apiVersion = "v1", kind = "Secret", namespace = "ns",
      labelSelector = {matchLabels = {app = "x"}}},
    {apiVersion = "v1", kind = "ConfigMap", namespace = "ns", name = "b"},
    {apiVersion = "v1", kind = "ConfigMap", namespace = "ns", name = "b"},
    {apiVersion = "v1", kind = "ConfigMap", namespace = "ns", name = "a"},
  }
end""",
        'function GetDependencies(o) return {{apiVersion = "v1", name = "x"}} end',
        'function GetDependencies(o) return {{apiVersion = "v1", kind = "Secret"}} end',
        """function GetDependencies(o)
  return {{apiVersion = "v1", kind = "Secret",
    labelSelector = {matchLabels = {app = "bad value!"}}}}
end""",
        "function GetDependencies(o) return {} end",
        "function GetDependencies(o) return nil end",
        KUBE
        + """function GetDependencies(o)
  return kube.getPodDependencies(o.spec.template, nil)
end""",
        KUBE
        + """function GetDependencies(o)
  return kube.getPodDependencies(o.spec.template, 5)
end""",
        """function GetDependencies(o)
  return {{apiVersion = "v1", kind = "ServiceAccount", namespace = o.metadata.namespace,
    name = o.spec.template.spec.serviceAccountName}}
end""",
        """function GetDependencies(o)
  return {{apiVersion = "v1", kind = "Secret", name = "s", labelSelector = {
    matchExpressions = {{key = "tier", operator = "In", values = {"a", "b"}}}}}}
end""",
        """function GetDependencies(o)
  return {{apiVersion = "v1", kind = "Secret", name = "s", labelSelector = {
    matchExpressions = {{key = "tier", operator = "Exists", values = {"a"}}}}}}
end""",
        'function GetDependencies(o) return {apiVersion = "v1", kind = "Secret", name = "s"} end',
    ],
}

CPU = ("100m", "1", "0.5", "250m", "2", 1, 0.5, "1500m", "1e3", "")
MEMORY = ("128Mi", "1Gi", "512M", "1e9", "64Ki", 1024, "0")
NAMES = ("web", "db", "api-1", "wörker", "a" * 40)
NAMESPACES = ("default", "prod", "team-ä", None)


def _quantity(r: random.Random, values: tuple[Any, ...]) -> Any:
    return r.choice(values)


def _container(r: random.Random, i: int) -> Doc:
    c: Doc = {"name": f"c{i}", "image": r.choice(["nginx", "busybox:1.36", "app@sha256:ab"])}
    if r.random() < 0.8:
        resources: Doc = {}
        if r.random() < 0.9:
            requests = {"cpu": _quantity(r, CPU), "memory": _quantity(r, MEMORY)}
            resources["requests"] = requests if r.random() < 0.9 else {}
        if r.random() < 0.4:
            resources["limits"] = {"cpu": _quantity(r, CPU), "memory": _quantity(r, MEMORY)}
        c["resources"] = resources
    if r.random() < 0.3:
        c["envFrom"] = [
            {"configMapRef": {"name": "env-cm"}},
            {"secretRef": {"name": r.choice(["env-secret", "s1"])}},
        ]
    if r.random() < 0.3:
        c["env"] = [
            {"name": "A", "valueFrom": {"secretKeyRef": {"name": "s1", "key": "k"}}},
            {"name": "B", "value": r.choice(["x", "", "ü"])},
        ]
    if r.random() < 0.2:
        c["ports"] = []
    return c


def _pod_spec(r: random.Random) -> Doc:
    spec: Doc = {"containers": [_container(r, i) for i in range(r.randint(1, 3))]}
    if r.random() < 0.3:
        spec["initContainers"] = [_container(r, 9)]
    if r.random() < 0.5:
        volumes = []
        for name in r.sample(["cm1", "cm2", "sec1", "pvc1", "empty"], r.randint(0, 4)):
            if name.startswith("cm"):
                volumes.append({"name": name, "configMap": {"name": name}})
            elif name.startswith("sec"):
                volumes.append({"name": name, "secret": {"secretName": name}})
            elif name.startswith("pvc"):
                volumes.append({"name": name, "persistentVolumeClaim": {"claimName": name}})
            else:
                volumes.append({"name": name, "emptyDir": {}})
        spec["volumes"] = volumes
    if r.random() < 0.3:
        spec["serviceAccountName"] = r.choice(["sa", "default", ""])
    if r.random() < 0.2:
        spec["imagePullSecrets"] = [{"name": "pull"}]
    if r.random() < 0.3:
        spec["nodeSelector"] = r.choice([{"disk": "ssd"}, {}, {"zone": "ü", "a/b": "c"}])
    if r.random() < 0.3:
        spec["tolerations"] = r.choice(
            [[], [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]]
        )
    if r.random() < 0.2:
        spec["priorityClassName"] = r.choice(["high", ""])
    if r.random() < 0.1:
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "z", "operator": "In", "values": ["a"]}]}
                    ]
                }
            }
        }
    return spec


def _metadata(r: random.Random) -> Doc:
    meta: Doc = {"name": r.choice(NAMES)}
    namespace = r.choice(NAMESPACES)
    if namespace is not None:
        meta["namespace"] = namespace
    if r.random() < 0.7:
        meta["labels"] = r.choice([{"app": "web"}, {}, {"app": "db", "tier": "ä"}])
    if r.random() < 0.5:
        meta["annotations"] = r.choice(
            [{"replicas": r.choice(["4", "x", "2.5", " 7 ", "0x10"])}, {}, {"note": "値"}]
        )
    if r.random() < 0.6:
        meta["generation"] = r.randint(1, 5)
    if r.random() < 0.1:
        meta["labels"] = None
    return meta


def _conditions(r: random.Random) -> list[Doc]:
    found = []
    for kind in r.sample(["Available", "Progressing", "Ready"], r.randint(0, 3)):
        c: Doc = {"type": kind, "status": r.choice(["True", "False", "Unknown"])}
        if r.random() < 0.5:
            c["reason"] = r.choice(["Done", "", "ÜberReason"])
        found.append(c)
    return found


def _status(r: random.Random, replicas: Any) -> Doc:
    ready = r.choice([replicas, 0, 1, None]) if isinstance(replicas, int) else r.randint(0, 3)
    status: Doc = {"replicas": replicas, "readyReplicas": ready}
    if r.random() < 0.5:
        status["conditions"] = _conditions(r)
    if r.random() < 0.4:
        status["observedGeneration"] = r.randint(1, 5)
    if r.random() < 0.2:
        status["phase"] = r.choice(["Running", "Pending", "Failed"])
    return status


def _deployment(r: random.Random) -> Doc:
    spec: Doc = {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": _pod_spec(r)},
    }
    if r.random() < 0.9:
        spec["replicas"] = r.choice([0, 1, 2, 3, 5, 10, 100])
    if r.random() < 0.3:
        spec["paused"] = r.choice([True, False])
    if r.random() < 0.2:
        spec["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}}
    obj: Doc = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": _metadata(r)}
    obj["spec"] = spec
    if r.random() < 0.6:
        obj["status"] = _status(r, spec.get("replicas", 1))
    return obj


ODD_VALUES: tuple[Any, ...] = (
    0,
    -1,
    1.5,
    2.0,
    2**53,
    2**53 + 1,
    2**62,
    1e21,
    1e-7,
    0.1,
    "",
    "ünïcödé 値 🚀",
    "line\nbreak\ttab",
    'quote"back\\slash',
    "<html>&amp;",
    True,
    False,
    None,
    {},
    [],
    [None],
    [1, None, 2],
    [{}, 1],
    [[1, 2], [3]],
    {"a": {}, "b": []},
    {"nested": {"deeper": {"deepest": []}}},
    [{"k": "v"}, {"k": []}],
)


ODD_KEYS = (
    *("weird.key", "colon:key", "", "ключ", "emptyMap", "emptyList", "items", "1", "nested"),
    *("wild*card", "back\\slash"),
)
"""Keys of a custom resource's spec: sjson reads `.`, `:`, `*` and backslashes in Karmada's
paths, and an empty key at the root has no path."""


def _custom(r: random.Random) -> Doc:
    spec: Doc = {"size": r.choice([1, 3, 2.0, 2.5, "3", None, 2**31 - 1, 0])}
    for key in r.sample(ODD_KEYS, r.randint(1, 6)):
        if key == "emptyMap":
            spec[key] = {}
        elif key == "emptyList":
            spec[key] = []
        else:
            spec[key] = copy.deepcopy(r.choice(ODD_VALUES))
    if r.random() < 0.2:  # one object in two places, as a YAML alias reads
        shared = {"k": r.choice(["v", "ü"]), "n": [1, {}]}
        spec["pair"] = [shared, shared]
    if r.random() < 0.5:
        spec["template"] = {"metadata": {"labels": {"app": "w"}}, "spec": _pod_spec(r)}
    if r.random() < 0.4:
        spec["replicas"] = r.choice([1, 4, 2.0])
    obj: Doc = {
        "apiVersion": "apps.example.io/v1alpha1",
        "kind": "Widget",
        "metadata": _metadata(r),
        "spec": spec,
    }
    if r.random() < 0.5:
        status = _status(r, r.choice([1, 2, 3]))
        if r.random() < 0.5:
            status["extra"] = copy.deepcopy(r.choice(ODD_VALUES))
        obj["status"] = status
    return obj


def _observed(r: random.Random, desired: Doc) -> Doc:
    """The desired object as a member cluster runs it: the same identity, status, defaults and
    fields other controllers set."""
    observed = copy.deepcopy(desired)
    observed["metadata"]["resourceVersion"] = str(r.randint(1, 999))
    if r.random() < 0.5:
        observed["metadata"]["labels"] = {"app": "web", "added-by": "member"}
    if r.random() < 0.5:
        observed["metadata"]["annotations"] = r.choice([{"m": "1"}, {}])
    observed["spec"]["paused"] = r.choice([True, False, None])
    if r.random() < 0.5:
        observed["spec"]["replicas"] = r.choice([1, 4, 7])
    if r.random() < 0.4:
        observed["spec"]["emptyMap"] = {}
        observed["spec"]["emptyList"] = []
    observed["status"] = _status(r, r.choice([1, 2, 3]))
    return observed


def _items(r: random.Random) -> list[Doc] | None:
    if r.random() < 0.15:
        return None
    items = []
    for name in r.sample(["member1", "member2", "member3"], r.randint(0, 3)):
        item: Doc = {"clusterName": name}
        if r.random() < 0.85:
            item["status"] = r.choice([_status(r, r.randint(0, 4)), {}])
        if r.random() < 0.7:
            item["applied"] = r.choice([True, False])
        if r.random() < 0.6:
            item["health"] = r.choice(["Healthy", "Unhealthy", "Unknown", ""])
        items.append(item)
    return items


def customization(name: str, target: Doc, operation: str, script: str) -> Doc:
    """A ResourceInterpreterCustomization holding one rule."""
    return {
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterCustomization",
        "metadata": {"name": name},
        "spec": {
            "target": {"apiVersion": target["apiVersion"], "kind": target["kind"]},
            "customizations": {FIELDS[operation]: {"luaScript": script}},
        },
    }


def scenario(seed: int) -> Doc:
    """The operation, the customizations and the inputs of one scenario, and `script`: which of
    the operation's SCRIPTS answers (the first by customization name; for dependencies, the
    main one of those that all run)."""
    r = random.Random(seed)
    operation = r.choice(sorted(SCRIPTS))
    obj = _deployment(r) if r.random() < 0.6 else _custom(r)
    index = r.randrange(len(SCRIPTS[operation]))
    customizations = [customization("main", obj, operation, SCRIPTS[operation][index])]
    if r.random() < 0.15:
        other = r.randrange(len(SCRIPTS[operation]))
        name = r.choice(["a-first", "z-last"])
        customizations.append(customization(name, obj, operation, SCRIPTS[operation][other]))
        if name == "a-first" and operation != "InterpretDependency":
            index = other
    if r.random() < 0.05:
        other_target = {"apiVersion": "apps/v1", "kind": "StatefulSet"}
        script = SCRIPTS[operation][0]
        customizations.append(customization("elsewhere", other_target, operation, script))
    case: Doc = {"operation": operation, "customizations": customizations, "object": obj}
    case["script"] = index
    if operation == "Retain":
        case["observed"] = _observed(r, obj)
    if operation == "AggregateStatus":
        case["items"] = _items(r)
    if operation == "ReviseReplica":
        case["replicas"] = r.choice([0, 1, 3, 7, 100, 2**31 - 1])
    return case


def normal(value: Any) -> Any:
    """`value` as Go's JSON prints it: a float holding an integer below 1e21 is the integer its
    shortest digits spell."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(decimal.Decimal(repr(value)))
    if isinstance(value, dict):
        return {k: normal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normal(v) for v in value]
    return value


def digest(answer: Doc) -> str:
    """A short digest of an answer; `components` and `dependencies` that Go leaves nil are
    empty lists."""
    if answer.get("error"):
        return "error"
    found = dict(answer)
    for key in ("components", "dependencies"):
        if key in found and found[key] is None:
            found[key] = []
    text = json.dumps(normal(found), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def karmada_input(case: Doc) -> Doc:
    """The harness's JSON line for a scenario."""
    return {k: v for k, v in case.items() if k != "script"}


def main() -> None:
    root = Path(__file__).resolve().parents[3]
    sys.path.insert(0, str(root))
    from bench import karmada_harness

    checkout = karmada_harness.checkout_from_command_line(__doc__.splitlines()[0])
    harness = root / "bench" / "karmada_lua.go"
    cases = [karmada_input(scenario(seed)) for seed in range(SEEDS)]
    given = karmada_harness.answers(harness, checkout.path, checkout.go, list(cases))
    karmada_harness.write_answers(ANSWERS, checkout.commit, [digest(a) for a in given])


if __name__ == "__main__":
    main()
