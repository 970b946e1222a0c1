-- The sandbox every customization script runs in (loaded once per runtime by _sandbox.py).
--
-- This chunk runs with PUC Lua 5.1's full standard library, keeps private references to what it
-- needs, and builds the environment scripts see: base functions, string, table, math, a clock-free
-- os.date/os.time and `require("kube")`, as Karmada's runtime offers
-- (pkg/resourceinterpreter/customized/declarative/luavm/lua.go, pkg/util/lifted/lua/*). Nothing
-- else is reachable from a script: no io, os.execute, package, load*, dofile, string.dump, debug,
-- coroutine, getfenv/setfenv, raw* or metatables; the Python side strips the globals afterwards.
--
-- Bounds: a count hook stops a call after its instruction budget (wrapped pcall/xpcall cannot
-- swallow that stop); pattern functions and string.rep come from patterns.lua, which keeps them
-- within the hook's reach; memory is capped by the runtime's allocator. Values go back to Python
-- as JSON text (json.lua).
--
-- gopher-lua (Karmada's VM) iterates `pairs` in array order, then in first-insertion order of the
-- other keys. Script sources are rewritten (_rewrite.py) so that every table constructor goes
-- through `track`/`track_dynamic` below, which record key order; `pairs` and `next` follow it.

local cfg = ...

local type, select, error, tostring, tonumber = type, select, error, tostring, tonumber
local raw_next, rawget, rawset, rawequal = next, rawget, rawset, rawequal
local setmetatable, getmetatable = setmetatable, getmetatable
local raw_pcall, raw_xpcall, unpack = pcall, xpcall, unpack
local setfenv, loadstring, collectgarbage = setfenv, loadstring, collectgarbage
local sethook, getinfo = debug.sethook, debug.getinfo
local floor, huge = math.floor, math.huge
local byte, sub, format = string.byte, string.sub, string.format
local c_match = string.match
local sort = table.sort

local SCRIPT_SOURCE = "=" .. cfg.chunkname
local HOOK_EVERY = cfg.hook_every

---------------------------------------------------------------------------------------------
-- Where in the script we are: the innermost frame of a customization chunk.

local function script_line(level)
  while true do
    local info = getinfo(level, "Sl")
    if info == nil then return nil end
    if info.source == SCRIPT_SOURCE then return info.currentline end
    level = level + 1
  end
end

---------------------------------------------------------------------------------------------
-- Instruction budget.

local remaining = huge
local stop_message = nil
local SOFT_MEMORY_KB = cfg.soft_memory_kb

-- Stops the call for good: the message is raised again by every pcall/xpcall it passes through.
local function stop(message)
  if stop_message == nil then
    local line = script_line(3)
    stop_message = message
    if line then stop_message = cfg.chunkname .. ":" .. line .. ": " .. message end
  end
  error(stop_message, 0)
end

-- Every HOOK_EVERY instructions: spend the budget; watch memory, so that a script growing it
-- slowly is stopped with its line (the allocator's hard cap stops fast growth, without one); and
-- every few calls watch the processor time, for work the instruction count does not see (string
-- interning is quadratic when many strings share a hash: PUC 5.1 hashes only some characters of
-- a long string). Past the soft memory limit a full collection tells garbage from live data; a
-- script whose live data stays above the floor is stopped, so collections cannot pile up.
local SOFT_MEMORY_FLOOR_KB = cfg.soft_memory_floor_kb
local SECONDS = cfg.seconds
local cpu_clock = os.clock
local deadline, hooks = nil, 0  -- the deadline is set by a call's first hook: short calls need none

local function count_hook()
  remaining = remaining - 1
  if remaining < 0 then stop(cfg.limit_message) end
  hooks = hooks + 1
  if deadline == nil then
    deadline = cpu_clock() + SECONDS
  elseif hooks % 8 == 0 and cpu_clock() > deadline then
    stop(cfg.time_message)
  end
  if collectgarbage("count") > SOFT_MEMORY_KB then
    collectgarbage("collect")
    if collectgarbage("count") > SOFT_MEMORY_FLOOR_KB then stop(cfg.memory_message) end
  end
end

local function after_protected(...)
  if stop_message ~= nil then error(stop_message, 0) end
  return ...
end

local function safe_pcall(f, ...)
  return after_protected(raw_pcall(f, ...))
end

local function safe_xpcall(f, handler)
  return after_protected(raw_xpcall(f, handler))
end

---------------------------------------------------------------------------------------------
-- Tables that remember the order their keys were first inserted in (gopher-lua's order).

local MAX_ARRAY_INDEX = 67108864
local ORDER = setmetatable({}, {__mode = "k"})
local SEEN = setmetatable({}, {__mode = "k"})

local function is_array_key(k)
  return type(k) == "number" and k >= 1 and k < MAX_ARRAY_INDEX and k == floor(k)
end

-- ORDER[t] lists t's keys in first-insertion order. A constructor's list is kept as it was
-- made (it may repeat a key, or name one since removed; iteration skips those), so building a
-- table costs one list; SEEN[t], the set of listed keys, is made on t's first new key.
local TRACKED = {}
TRACKED.__newindex = function(t, k, v)
  if k == nil then error("table index is nil", 2) end
  if k ~= k then error("table index is NaN", 2) end
  rawset(t, k, v)
  if v ~= nil and not is_array_key(k) then
    local seen, order = SEEN[t], ORDER[t]
    if seen == nil then
      seen = {}
      if order == nil then
        order = {}
        ORDER[t] = order
      else
        for i = 1, #order do seen[order[i]] = true end
      end
      SEEN[t] = seen
    end
    if not seen[k] then
      seen[k] = true
      order[#order + 1] = k
    end
  end
end

-- `{a = 1, b = 2}` becomes `track({a = 1, b = 2}, "a", "b")`.
local function track(t, ...)
  if select("#", ...) > 0 then ORDER[t] = {...} end
  return setmetatable(t, TRACKED)
end

-- Constructors with computed keys: `track_dynamic(frame(), {[key(k)] = v, [key("a")] = 1})`.
local frames, top = {}, 0

local function frame()
  top = top + 1
  local f = {}
  frames[top] = f
  return f
end

local function key(k)
  local f = frames[top]
  if f then f[#f + 1] = k end
  return k
end

local function track_dynamic(f, t)
  for i = top, 1, -1 do
    if frames[i] == f then
      for j = i, top do frames[j] = nil end
      top = i - 1
      break
    end
  end
  if #f > 0 then ORDER[t] = f end
  return setmetatable(t, TRACKED)
end

-- Positive integer keys ascending, then listed keys in order, then any other key.
local function ordered_keys(t)
  local keys, n = {}, 0
  local listed, named, nnamed = {}, {}, 0
  local order = ORDER[t]
  if order then
    for i = 1, #order do
      local k = order[i]
      if not listed[k] and not is_array_key(k) and rawget(t, k) ~= nil then
        listed[k] = true
        nnamed = nnamed + 1
        named[nnamed] = k
      end
    end
  end
  local k = raw_next(t)
  while k ~= nil do
    if is_array_key(k) then
      n = n + 1
      keys[n] = k
    elseif not listed[k] then
      nnamed = nnamed + 1
      named[nnamed] = k
    end
    k = raw_next(t, k)
  end
  sort(keys)
  for i = 1, nnamed do keys[n + i] = named[i] end
  return keys, n + nnamed
end

local function check_table(t, fname)
  if type(t) ~= "table" then
    error(format("bad argument #1 to '%s' (table expected, got %s)", fname, type(t)), 3)
  end
end

local function ordered_pairs(t)
  check_table(t, "pairs")
  local keys, n = ordered_keys(t)
  local i = 0
  return function()
    while i < n do
      i = i + 1
      local k = keys[i]
      local v = rawget(t, k)
      if v ~= nil then return k, v end
    end
    return nil
  end, t, nil
end

local function ordered_next(t, k)
  check_table(t, "next")
  if raw_next(t) == nil then return nil end
  local keys, n = ordered_keys(t)
  local start = 1
  if k ~= nil then
    start = nil
    for i = 1, n do
      if rawequal(keys[i], k) then
        start = i + 1
        break
      end
    end
    if start == nil then error("invalid key to 'next'", 2) end
  end
  for i = start, n do
    local v = rawget(t, keys[i])
    if v ~= nil then return keys[i], v end
  end
  return nil
end

---------------------------------------------------------------------------------------------
-- Libraries scripts see.

local patterns = cfg.patterns(cfg, function() return stop_message end)
local json = cfg.json(cfg.max_depth)
local encode, valid_utf8 = json.encode, json.valid_utf8

-- A string Python cannot read (invalid UTF-8, which scripts can make) fails lupa's conversion;
-- the sandbox then hands over the same values cleaned, as Go's encoder would have written them.
local function cleaned(...)
  local out = {n = select("#", ...), ...}
  for i = 1, out.n do
    if type(out[i]) == "string" then out[i] = valid_utf8(out[i]) end
  end
  return unpack(out, 1, out.n)
end

local function string_arg(v, n, fname)
  local t = type(v)
  if t == "string" or t == "number" then return tostring(v) end
  error(format("bad argument #%d to '%s' (string expected, got %s)", n, fname, t), 3)
end

local function readonly(t, name)
  return setmetatable({}, {
    __index = t,
    __newindex = function() error("attempt to modify read-only table '" .. name .. "'", 2) end,
    __metatable = false,
  })
end

local safe_string = {
  byte = string.byte, char = string.char, find = patterns.find, format = string.format,
  gmatch = patterns.gmatch, gfind = patterns.gmatch, gsub = patterns.gsub, len = string.len,
  lower = string.lower, match = patterns.match, rep = patterns.rep, reverse = string.reverse,
  sub = string.sub, upper = string.upper,
}
getmetatable("").__index = safe_string

local safe_table = {
  concat = table.concat, getn = table.getn, insert = table.insert, maxn = table.maxn,
  remove = table.remove, sort = table.sort,
}

-- math.random is made deterministic (Park-Miller, reseeded for every call) so that a render is a
-- pure function of its inputs.
local seed = 1
local function random(m, n)
  seed = (seed * 16807) % 2147483647
  local r = (seed - 1) / 2147483646
  if m == nil then return r end
  m = tonumber(m) or error("bad argument #1 to 'random' (number expected)", 2)
  if n == nil then
    if m < 1 then error("bad argument #1 to 'random' (interval is empty)", 2) end
    return floor(r * m) + 1
  end
  n = tonumber(n) or error("bad argument #2 to 'random' (number expected)", 2)
  if m > n then error("bad argument #2 to 'random' (interval is empty)", 2) end
  return floor(r * (n - m + 1)) + m
end
local function randomseed(x)
  seed = floor(tonumber(x) or 0) % 2147483646 + 1
end

local safe_math = {}
for k, v in raw_next, math do safe_math[k] = v end
safe_math.random, safe_math.randomseed = random, randomseed

local py = cfg.python
local clock = 0

-- Python helpers answer (true, value) or (false, message); the message is raised at the
-- script's call.
local function call_python(f, ...)
  local called, ok, value = raw_pcall(f, ...)
  if not called then called, ok, value = raw_pcall(f, cleaned(...)) end
  if not called then error("internal error: " .. tostring(ok), 3) end
  if not ok then error(value, 3) end
  return value
end

local safe_os = {
  time = function(t)
    if t == nil then return clock end
    if type(t) ~= "table" then error("bad argument #1 to 'time' (table expected, got " .. type(t) .. ")", 2) end
    return call_python(py.os_time, t.year, t.month, t.day, t.hour, t.min, t.sec)
  end,
  date = function(fmt, t)
    if fmt ~= nil then fmt = string_arg(fmt, 1, "date") end
    if t ~= nil and type(t) ~= "number" then error("bad argument #2 to 'date' (number expected, got " .. type(t) .. ")", 2) end
    return call_python(py.os_date, fmt, t or clock)
  end,
}

-- A kube function's table argument, as Karmada converts it to a Go type first.
local function encode_argument(t, target)
  local ok, text = raw_pcall(encode, t)
  if not ok then error("fail to convert lua value to " .. target .. ": " .. tostring(text), 3) end
  return text
end

local kube = {
  resourceAdd = function(...)
    local n = select("#", ...)
    local args = {...}
    for i = 1, n do
      local v = args[i]
      if v ~= nil and type(v) ~= "string" then
        error(format("bad argument #%d to resourceAdd (string expected, got %s)", i, type(v)), 2)
      end
    end
    return call_python(py.resource_add, n, ...)
  end,
  getResourceQuantity = function(...)
    if select("#", ...) ~= 1 then error("getResourceQuantity only accepts one argument", 2) end
    local v = ...
    if v ~= nil and type(v) ~= "string" then
      error("bad argument #1 to getResourceQuantity (string expected, got " .. type(v) .. ")", 2)
    end
    return call_python(py.resource_quantity, v)
  end,
  accuratePodRequirements = function(...)
    if select("#", ...) ~= 1 then error("getPodRequirements only accepts one argument", 2) end
    local t = ...
    if type(t) ~= "table" then error("bad argument #1 to accuratePodRequirements (table expected, got " .. type(t) .. ")", 2) end
    return call_python(py.pod_requirements, encode_argument(t, "PodTemplateSpec"))
  end,
  getPodDependencies = function(...)
    if select("#", ...) ~= 2 then error("getPodDependencies only accepts two argument", 2) end
    local t, ns = ...
    if type(t) ~= "table" then error("bad argument #1 to getPodDependencies (table expected, got " .. type(t) .. ")", 2) end
    if ns == nil then ns = "default"
    elseif type(ns) == "number" then ns = tostring(ns)
    elseif type(ns) ~= "string" then error("bad argument #2 to getPodDependencies (string expected, got " .. type(ns) .. ")", 2) end
    return call_python(py.pod_dependencies, encode_argument(t, "corev1.PodTemplateSpec"), ns)
  end,
}

local function unsupported(name)
  return function()
    error("call function " .. name .. " is not supported in karmada customized resourceinterpreter.", 2)
  end
end

local SAFE = {
  _VERSION = _VERSION,
  assert = assert, error = error, ipairs = ipairs, next = ordered_next, pairs = ordered_pairs,
  pcall = safe_pcall, xpcall = safe_xpcall, print = function() end, select = select,
  tonumber = tonumber, tostring = tostring, type = type, unpack = unpack,
  string = readonly(safe_string, "string"), table = readonly(safe_table, "table"),
  math = readonly(safe_math, "math"), os = readonly(safe_os, "os"),
}
for _, name in ipairs({"collectgarbage", "dofile", "getfenv", "getmetatable", "load", "loadfile",
    "loadstring", "rawequal", "rawget", "rawset", "setfenv", "setmetatable", "module", "newproxy"}) do
  SAFE[name] = unsupported(name)
end

local MODULES = {kube = readonly(kube, "kube"), string = SAFE.string, table = SAFE.table,
  math = SAFE.math, os = SAFE.os}
SAFE.require = function(name)
  name = string_arg(name, 1, "require")
  local m = MODULES[name]
  if m == nil then error("module '" .. name .. "' not found:\n\tno field package.preload['" .. name .. "']", 2) end
  return m
end

-- The names the rewritten constructors call; a script cannot assign them (they live in SAFE).
SAFE[cfg.track] = track
SAFE[cfg.track_dynamic] = track_dynamic
SAFE[cfg.frame] = frame
SAFE[cfg.key] = key

-- A call's globals: reads fall through to SAFE until the script assigns a name SAFE has; then the
-- environment becomes a full copy, so that `error = nil` hides `error` as it would in Karmada,
-- where scripts run in the real globals table.
local ENV = {__index = SAFE}
ENV.__newindex = function(env, k, v)
  if SAFE[k] ~= nil then
    setmetatable(env, nil)
    for name, value in raw_next, SAFE do
      if rawget(env, name) == nil then rawset(env, name, value) end
    end
  end
  rawset(env, k, v)
end

---------------------------------------------------------------------------------------------
-- Entry points for Python.

local function on_error(err)
  if type(err) ~= "string" then
    err = "(error object is a " .. type(err) .. " value)"
  end
  local line = nil
  local head = cfg.chunkname .. ":"
  if sub(err, 1, #head) == head then
    local n, rest = c_match(sub(err, #head + 1), "^(%d+): (.*)$")
    if n then return {message = rest, line = tonumber(n)} end
  end
  line = script_line(2)
  return {message = err, line = line}
end

local last

local function keep(...)
  last = {n = select("#", ...), ...}
  return ...
end

local function finish(ok, ...)
  remaining = huge
  deadline = huge
  if not ok then
    local e = ...
    if type(e) == "table" then return keep(false, e.message, e.line) end
    return keep(false, tostring(e), nil)
  end
  return keep(true, ...)
end

-- Results go back as (count, type1, json1, type2, json2, ...); values JSON cannot hold (functions)
-- go back as their type only, for Python to report.
local ENCODABLE = {table = true, string = true, number = true, boolean = true}

local function encode_results(...)
  local n = select("#", ...)
  local out = {n}
  for i = 1, n do
    local v = select(i, ...)
    local t = type(v)
    out[2 * i] = t
    out[2 * i + 1] = ENCODABLE[t] and encode(v) or false
  end
  return unpack(out, 1, 2 * n + 1)
end

local api = {}

function api.compile(source)
  if byte(source, 1) == 27 then return nil, "binary chunks are not accepted" end
  return loadstring(source, SCRIPT_SOURCE)
end

-- A document's table constructor (_inputs.py writes the source; it uses no globals).
function api.constructor(source)
  return loadstring(source, "=input")
end

local function prepare(chunk, budget, now)
  remaining = budget
  deadline = nil
  stop_message = nil
  top = 0
  seed = 1
  clock = now
  local env = setmetatable({}, ENV)
  rawset(env, "_G", env)
  setfenv(chunk, env)
  local ok, err = raw_xpcall(chunk, on_error)
  return ok, err, env
end

function api.invoke(chunk, fname, budget, now, nargs, ...)
  local ok, err, env = prepare(chunk, budget, now)
  if not ok then return finish(false, err) end
  local f = rawget(env, fname)
  if f == nil then return finish(false, {message = "not found function " .. fname}) end
  if type(f) ~= "function" then return finish(false, {message = fname .. " is not a function: " .. type(f)}) end
  local args = {...}
  return finish(raw_xpcall(function() return encode_results(f(unpack(args, 1, nargs))) end, on_error))
end

function api.probe(chunk, fname, budget)
  local ok, err, env = prepare(chunk, budget, 0)
  if not ok then return finish(false, err) end
  return finish(true, type(rawget(env, fname)))
end

-- What the last entry point returned, cleaned (see `cleaned`).
function api.cleaned()
  return cleaned(unpack(last, 1, last.n))
end

function api.collect()
  collectgarbage("collect")
  return collectgarbage("count")
end

sethook(count_hook, "", HOOK_EVERY)

return api
