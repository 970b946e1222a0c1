-- The sandbox every customization script runs in (loaded once per runtime by _sandbox.py).
--
-- This chunk runs with PUC Lua 5.1's full standard library, keeps private references to what it
-- needs, and builds the environment scripts see: base functions, string, table, math, a clock-free
-- os.date/os.time and `require("kube")`, as Karmada's runtime offers
-- (pkg/resourceinterpreter/customized/declarative/luavm/lua.go, pkg/util/lifted/lua/*). Nothing
-- else is reachable from a script: no io, os.execute, package, load*, dofile, string.dump, debug,
-- coroutine, getfenv/setfenv, raw* or metatables; the Python side strips the globals afterwards.
--
-- Bounds: scripts run in one coroutine, the worker, whose count hook stops a call after its
-- instruction budget or when the watchdog (_watchdog.py) finds it past its deadline (wrapped
-- pcall/xpcall cannot swallow either stop); the string and table functions come from strings.lua
-- and tables.lua, which keep every single call short; memory is capped by the runtime's
-- allocator. Values go back to Python as JSON text (json.lua).
--
-- gopher-lua (Karmada's VM) iterates `pairs` in array order, then in first-insertion order of the
-- other keys. Script sources are rewritten (_rewrite.py) so that every table constructor goes
-- through `track`/`track_dynamic` below, which record key order; `pairs` and `next` follow it.

local cfg = ...

local type, select, error, tostring, tonumber = type, select, error, tostring, tonumber
local raw_next, rawget, rawset, rawequal, ipairs = next, rawget, rawset, rawequal, ipairs
local setmetatable, getmetatable = setmetatable, getmetatable
local raw_pcall, raw_xpcall, unpack = pcall, xpcall, unpack
local setfenv, loadstring, collectgarbage = setfenv, loadstring, collectgarbage
local sethook, getinfo = debug.sethook, debug.getinfo
local create, resume, yield = coroutine.create, coroutine.resume, coroutine.yield
local floor, huge, fmod = math.floor, math.huge, math.fmod
local byte, sub, format = string.byte, string.sub, string.format
local c_match, c_gsub, c_find = string.match, string.gsub, string.find
local c_sort = table.sort

local SCRIPT_SOURCE = "=" .. cfg.chunkname
local HOOK_EVERY = cfg.hook_every
local MAX_MESSAGE = cfg.max_message
local MAX_STRING = cfg.max_string

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

-- Stops the call for good: the message is raised again by every pcall/xpcall it passes through,
-- and the budget is spent only once the message is set (the count hook may run between any two
-- instructions, and would otherwise stop the call first, for the wrong reason).
local function stop(message)
  if stop_message == nil then
    local line = script_line(3)
    stop_message = message
    if line then stop_message = cfg.chunkname .. ":" .. line .. ": " .. message end
  end
  remaining = -1
  error(stop_message, 0)
end

-- Every HOOK_EVERY instructions: spend the budget, and watch memory, so that a script growing it
-- slowly is stopped with its line (the allocator's hard cap stops fast growth, without one). Past
-- the soft memory limit a full collection tells garbage from live data; a script whose live data
-- stays above the floor is stopped, so collections cannot pile up. A "line" event is the
-- watchdog's doing (the sandbox asks for counts only): the call is past its deadline, unless the
-- watchdog meant the previous call (the clock tells). No stop while the error handler runs (an
-- error there would replace the message with "error in error handling").
local SOFT_MEMORY_FLOOR_KB = cfg.soft_memory_floor_kb
local monotonic = cfg.monotonic
local in_handler, deadline = false, huge

local function count_hook(event)
  if event == "line" then
    sethook(count_hook, "", HOOK_EVERY)
    if not in_handler and monotonic() >= deadline then stop(cfg.time_message) end
    return
  end
  if in_handler then return end
  remaining = remaining - 1
  if remaining < 0 then stop(cfg.limit_message) end
  if collectgarbage("count") > SOFT_MEMORY_KB then
    collectgarbage("collect")
    if collectgarbage("count") > SOFT_MEMORY_FLOOR_KB then stop(cfg.memory_message) end
  end
end

local function after_protected(...)
  if stop_message ~= nil then error(stop_message, 0) end
  return ...
end

-- An error a script catches, worded as Karmada's VM words it where PUC Lua's differs in form
-- only: argument errors name the function unquoted, and calling what is no function says so
-- alike. (Where PUC names a variable and Karmada's VM a key or both operand types, or where the
-- two place a position differently, the words stay PUC's.) A script's own long message is left
-- as it is: the C pattern functions must not run long out of the hook's reach.
local MAX_WORDED = 400
local function gopher_words(err)
  if type(err) ~= "string" or #err > MAX_WORDED then return err end
  err = c_gsub(err, "bad argument #(%d+) to '([^']*)'", "bad argument #%1 to %2")
  err = c_gsub(err, "(expected, got )no value%)", "%1nil)")
  err = c_gsub(err, "attempt to call [^%(]*%(a %w+ value%)$", "attempt to call a non-function object")
  err = c_gsub(err, "attempt to call a %w+ value$", "attempt to call a non-function object")
  return (c_gsub(err, "(in table for )'concat'$", "%1concat"))
end

local function caught(ok, ...)
  if ok then return ok, ... end
  return ok, gopher_words((...))
end

local function safe_pcall(f, ...)
  return after_protected(caught(raw_pcall(f, ...)))
end

local function safe_xpcall(f, handler)
  return after_protected(raw_xpcall(f, function(err) return handler(gopher_words(err)) end))
end

-- `<string>:N: `, N the line of the innermost frame of the script, or nothing outside it.
local function script_position()
  local line = script_line(2)
  return line and (cfg.chunkname .. ":" .. line .. ": ") or ""
end

local guards = cfg.guards(function() return stop_message end, script_position)
local number_text = guards.number_text
local strings = cfg.strings(cfg, guards)
local tables -- loaded below, once guards.length is set

---------------------------------------------------------------------------------------------
-- Tables that remember the order their keys were first inserted in (gopher-lua's order).

local MAX_ARRAY_INDEX = 67108864
local ORDER = setmetatable({}, {__mode = "k"})
local SEEN = setmetatable({}, {__mode = "k"})

local function is_array_key(k)
  return type(k) == "number" and k >= 1 and k < MAX_ARRAY_INDEX and k == floor(k)
end

-- gopher-lua keeps a table's integer keys from 1 to 2^26 in an array whose length grows with any
-- such key assigned (nil too: the gap is padded with nils) and shrinks only when table.remove
-- takes its last slot; `#` is its last slot holding a value. For the tables scripts build
-- (TRACKED: every assignment to an absent key passes through __newindex, and table.insert and
-- remove are written below) that is kept: SLOTS[t], the array's length, and LAST[t], at or
-- above the last key holding a value (`length` walks down from it). Tables no script built
-- keep PUC Lua's table functions, with gopher-lua's length.
local SLOTS = setmetatable({}, {__mode = "k"})
local LAST = setmetatable({}, {__mode = "k"})

-- The array of a table first changed (or measured): its last integer key holding a value, as
-- its constructor made it (trailing nils in a constructor, which gopher-lua's array would
-- count, are not seen). Returns the array's length.
local function known(t)
  local n = guards.table_length(t)
  SLOTS[t], LAST[t] = n, n
  return n
end

-- ORDER[t] lists t's keys in first-insertion order. A constructor's list is kept as it was
-- made (it may repeat a key, or name one since removed; iteration skips those), so building a
-- table costs one list; SEEN[t], the set of listed keys, is made on t's first new key.
local TRACKED = {}
TRACKED.__newindex = function(t, k, v)
  if k == nil then error("table index is nil", 2) end
  if k ~= k then error("table index is NaN", 2) end
  if is_array_key(k) then
    local slots = SLOTS[t] or known(t)
    rawset(t, k, v)
    if k > slots then SLOTS[t] = k end
    if v ~= nil and k > LAST[t] then LAST[t] = k end
    return
  end
  rawset(t, k, v)
  if v ~= nil then
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

-- The length of a value as gopher-lua takes it (`#`, table.concat, unpack): a string's bytes, a
-- table's last array key holding a value (guards.lua `table_length`), for a table a script
-- built from LAST down (a key cleared since is passed over once).
local function length(v)
  local kind = type(v)
  if kind == "string" then return #v end
  if kind ~= "table" then error("__len undefined", 2) end -- gopher-lua's words
  if getmetatable(v) ~= TRACKED then return guards.table_length(v) end
  local last = LAST[v] or known(v)
  while last > 0 and rawget(v, last) == nil do last = last - 1 end
  LAST[v] = last
  return last
end

-- table.insert and table.remove on a table a script built, as gopher-lua's (table.go Append,
-- Insert and Remove, tablelib.go): nil if the table is another. `n` counts the arguments after
-- the table.
local function insert(t, n, pos, v)
  if getmetatable(t) ~= TRACKED then return nil end
  local slots = SLOTS[t] or known(t)
  if n == 1 then -- Append: after the last slot holding a value (nothing for nil)
    v = pos
    if v == nil then return true end
    local at = (slots == 0 or rawget(t, slots) ~= nil) and slots + 1 or length(t) + 1
    rawset(t, at, v)
    if at > slots then SLOTS[t] = at end
    if at > LAST[t] then LAST[t] = at end
    return true
  end
  if pos > slots or pos <= 0 then -- a key of its own: past the array (growing it) or below it
    t[pos] = v
    return true
  end
  for i = slots, pos, -1 do rawset(t, i + 1, rawget(t, i)) end
  rawset(t, pos, v)
  SLOTS[t] = slots + 1
  local last = LAST[t]
  if last >= pos then LAST[t] = last + 1 elseif v ~= nil then LAST[t] = pos end
  return true
end

local function remove(t, pos)
  if getmetatable(t) ~= TRACKED then return false end
  local slots = SLOTS[t] or known(t)
  if slots == 0 or pos > slots then return true, nil end
  local old
  if pos == slots or pos < 1 then
    old = rawget(t, slots)
  else
    old = rawget(t, pos)
    for i = pos, slots - 1 do rawset(t, i, rawget(t, i + 1)) end
  end
  rawset(t, slots, nil)
  SLOTS[t] = slots - 1
  if LAST[t] > slots - 1 then LAST[t] = slots - 1 end
  return true, old
end
guards.tracked_insert, guards.tracked_remove = insert, remove
guards.length = length
tables = cfg.tables(cfg, guards)

-- Whether every element of the list `keys` (of `n`) is a string.
local function all_strings(keys, n)
  for i = 1, n do
    if type(keys[i]) ~= "string" then return false end
  end
  return true
end

-- Positive integer keys ascending, then listed keys in order, then any other key. A table no
-- script built (a call's arguments, a helper's results) lists no keys: its string keys come
-- sorted, the same order however the table was built (Karmada's own order for them, a Go
-- map's, is random; the order of Lua's hash part depends on how the table grew, and a render
-- must not depend on which call built a document's tables first).
local function ordered_keys(t)
  local keys, n, last = {}, 0, 0
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
      if k > last then last = k end
    elseif not listed[k] then
      nnamed = nnamed + 1
      named[nnamed] = k
    end
    k = raw_next(t, k)
  end
  if last == n then
    for i = 1, n do keys[i] = i end  -- n distinct keys from 1 to n: all of them
  else
    tables.sort(keys)
  end
  if order == nil and nnamed > 1 and all_strings(named, nnamed) then c_sort(named) end
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

local json = cfg.json(cfg.max_depth, cfg.max_values)
local valid_utf8 = json.valid_utf8

-- In a call whose script cannot change a table (Python tells, _readonly.py: its arguments are
-- tables shared with earlier calls), a table's JSON text cannot change either: it is kept, so
-- that a pod template given to `kube` call after call is encoded once. Kept texts go with their
-- tables; in other calls nothing is kept or read.
local sharing = false
local texts = setmetatable({}, {__mode = "k"})

local function encode(v)
  if not sharing or type(v) ~= "table" then return json.encode(v) end
  local text = texts[v]
  if text == nil then
    text = json.encode(v)
    texts[v] = text
  end
  return text
end

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
  if t == "string" then return v end
  if t == "number" then return number_text(v) end
  error(format("bad argument #%d to '%s' (string expected, got %s)", n, fname, t), 3)
end

local function readonly(t, name)
  return setmetatable({}, {
    __index = t,
    __newindex = function() error("attempt to modify read-only table '" .. name .. "'", 2) end,
    __metatable = false,
  })
end

local safe_string = {gfind = strings.gmatch}
for name, f in raw_next, strings do safe_string[name] = f end
getmetatable("").__index = safe_string

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
-- gopher-lua's math.huge is the largest float, not infinity: JSON can hold it.
safe_math.huge = 1.7976931348623157e308

local py = cfg.python
local clock = 0

-- Python helpers answer (true, value) or (false, message); the message is raised at the
-- script's call. Every CLOCK_EVERY helper calls, a call past its deadline stops here too: a
-- script that calls helpers in a loop hands the GIL back and forth so fast that the watchdog
-- thread, which needs it to fire, can wait seconds for it.
local CLOCK_EVERY = 16
local helper_calls = 0

local function call_python(f, ...)
  helper_calls = helper_calls + 1
  if helper_calls >= CLOCK_EVERY then
    helper_calls = 0
    if not in_handler and monotonic() >= deadline then stop(cfg.time_message) end
  end
  local called, ok, value = raw_pcall(f, ...)
  if not called then called, ok, value = raw_pcall(f, cleaned(...)) end
  if not called then error("internal error: " .. tostring(ok), 3) end
  if not ok then error(value, 3) end
  return value
end

-- string.upper and string.lower map every Unicode letter, as Go's strings.ToUpper/ToLower do
-- (_gostrings.py); ASCII strings stay with the C functions, which agree on them.
local function go_case(fname, upper)
  local c_function = safe_string[fname]
  return function(s, ...)
    if type(s) == "number" then s = number_text(s) end
    if type(s) ~= "string" or not c_find(s, "[\128-\255]") or #s > MAX_STRING then
      return c_function(s, ...)
    end
    return call_python(py.change_case, s, upper)
  end
end
safe_string.upper, safe_string.lower = go_case("upper", true), go_case("lower", false)

-- string.format is Go's fmt.Sprintf on gopher-lua values (_goformat.py): each argument goes as
-- its type and value (no value for tables and functions, which print as addresses).
local PLAIN_TYPES = {number = true, string = true, boolean = true, ["nil"] = true}
local NEGATIVE_ZERO = cfg.negative_zero -- a type of its own: -0 reaches Python as the integer 0
local MAX_FORMATTED = 8 * MAX_STRING -- Go caps the format, not the result; Python's work stays small
safe_string.format = function(fmt, ...)
  if type(fmt) == "number" then fmt = number_text(fmt) end
  if type(fmt) ~= "string" then
    error("bad argument #1 to 'format' (string expected, got " .. (fmt == nil and "no value" or type(fmt)) .. ")", 2)
  end
  if #fmt > MAX_STRING then
    error(format("string length %d exceeds the maximum allowed input string length %d in 'format'", #fmt, MAX_STRING), 2)
  end
  local n = select("#", ...)
  local args = {...}
  local pairs_ = {}
  for i = 1, n do
    local v = args[i]
    local t = type(v)
    pairs_[2 * i - 1] = (t == "number" and v == 0 and 1 / v < 0) and NEGATIVE_ZERO or t
    if PLAIN_TYPES[t] then pairs_[2 * i] = v end
  end
  return call_python(py.format_values, fmt, MAX_FORMATTED, n, unpack(pairs_, 1, 2 * n))
end

-- A helper's table result comes as the source of a chunk that builds it (_inputs.py
-- `constructor_source`); the compiled chunk is kept, so that a result met again costs one run
-- of it, and every call gets tables of its own.
local MAX_BUILDERS = 256
local builders, nbuilders = {}, 0

local function built(source)
  if source == nil then return nil end
  local build = builders[source]
  if build == nil then
    build = loadstring(source, "=input") or error("internal error: a helper's result does not compile", 2)
    if nbuilders >= MAX_BUILDERS then builders, nbuilders = {}, 0 end
    builders[source], nbuilders = build, nbuilders + 1
  end
  return build()
end

-- os.date: Python gives a time's parts (the last time asked for is kept: a call mostly asks
-- for `now` again and again) and the format is applied here. Go's flag scanner (oslib_safe.go
-- strftime) reads `%` and the next byte, as `%%(.)` does, and leaves an unknown flag as written,
-- as gsub does when given nothing for it. Each flag is a Lua call the hook sees, and the result
-- is capped as string.rep's is (one `%c` prints 19 bytes).
local date_time, date_parts = nil, nil
local DATE_FIELDS = {"year", "month", "day", "hour", "min", "sec", "wday", "yday", "isdst"}

local function apply_date_format(fmt, flags)
  local size = #fmt
  return (c_gsub(fmt, "%%(.)", function(flag)
    local text = flags[flag]
    if text ~= nil then
      size = size + #text - 2
      if size > MAX_STRING then
        error(format("os.date result of more than %d bytes exceeds the limit", MAX_STRING), 0)
      end
    end
    return text
  end))
end

local function date(fmt, t)
  if fmt == nil then
    fmt = "%c"
  else
    fmt = string_arg(fmt, 1, "date")
    if #fmt > MAX_STRING then
      error(format("string length %d exceeds the maximum allowed input string length %d in 'date'", #fmt, MAX_STRING), 2)
    end
    if byte(fmt, 1) == 33 then fmt = c_gsub(fmt, "^!+", "") end -- Go's TrimLeft(fmt, "!")
  end
  if t ~= nil and type(t) ~= "number" then error("bad argument #2 to 'date' (number expected, got " .. type(t) .. ")", 2) end
  t = t or clock
  if t ~= date_time then
    date_parts = built(call_python(py.date_parts, t))
    date_time = t
  end
  if sub(fmt, 1, 2) == "*t" then
    local fields = setmetatable({}, TRACKED)
    for _, k in ipairs(DATE_FIELDS) do fields[k] = date_parts.fields[k] end
    return fields
  end
  return apply_date_format(fmt, date_parts.flags)
end

local safe_os = {
  time = function(t)
    if t == nil then return clock end
    if type(t) ~= "table" then error("bad argument #1 to 'time' (table expected, got " .. type(t) .. ")", 2) end
    return call_python(py.os_time, t.year, t.month, t.day, t.hour, t.min, t.sec)
  end,
  date = date,
}

-- A kube function's table argument, as Karmada converts it to a Go type first.
local function encode_argument(t, target)
  local ok, text = raw_pcall(encode, t)
  if not ok then
    if stop_message ~= nil then error(stop_message, 0) end
    error("fail to convert lua value to " .. target .. ": " .. tostring(text), 3)
  end
  return text
end

-- Quantity strings are parsed in Python, a byte at a time: their total length is capped.
local MAX_QUANTITIES = cfg.max_quantities

local function check_quantities(fname, size)
  if size > MAX_QUANTITIES then
    error(format("%s arguments of %d bytes exceed the limit of %d bytes", fname, size, MAX_QUANTITIES), 3)
  end
end

local kube = {
  resourceAdd = function(...)
    local n = select("#", ...)
    local args = {...}
    local size = 0
    for i = 1, n do
      local v = args[i]
      if v ~= nil and type(v) ~= "string" then
        error(format("bad argument #%d to resourceAdd (string expected, got %s)", i, type(v)), 2)
      end
      size = size + (v and #v or 0)
    end
    check_quantities("resourceAdd", size)
    return call_python(py.resource_add, n, ...)
  end,
  getResourceQuantity = function(...)
    if select("#", ...) ~= 1 then error("getResourceQuantity only accepts one argument", 2) end
    local v = ...
    if v ~= nil and type(v) ~= "string" then
      error("bad argument #1 to getResourceQuantity (string expected, got " .. type(v) .. ")", 2)
    end
    check_quantities("getResourceQuantity", v and #v or 0)
    return call_python(py.resource_quantity, v)
  end,
  accuratePodRequirements = function(...)
    if select("#", ...) ~= 1 then error("getPodRequirements only accepts one argument", 2) end
    local t = ...
    if type(t) ~= "table" then error("bad argument #1 to accuratePodRequirements (table expected, got " .. type(t) .. ")", 2) end
    return built(call_python(py.pod_requirements, encode_argument(t, "PodTemplateSpec")))
  end,
  getPodDependencies = function(...)
    if select("#", ...) ~= 2 then error("getPodDependencies only accepts two argument", 2) end
    local t, ns = ...
    if type(t) ~= "table" then error("bad argument #1 to getPodDependencies (table expected, got " .. type(t) .. ")", 2) end
    if ns == nil then ns = "default"
    elseif type(ns) == "number" then ns = number_text(ns)
    elseif type(ns) ~= "string" then error("bad argument #2 to getPodDependencies (string expected, got " .. type(ns) .. ")", 2) end
    return built(call_python(py.pod_dependencies, encode_argument(t, "corev1.PodTemplateSpec"), ns))
  end,
}

-- tonumber as gopher-lua's: a number as it is, a string read by Go's parsers (_tonumber.py), any
-- other value nil; the base must be a number.
local function go_tonumber(...)
  if select("#", ...) == 0 then error("bad argument #1 to 'tonumber' (value expected)", 2) end
  local v, base = ...
  if base ~= nil and type(base) ~= "number" then
    error("bad argument #2 to 'tonumber' (number expected, got " .. type(base) .. ")", 2)
  end
  if type(v) == "number" then return v end
  if type(v) ~= "string" then return nil end
  if #v > MAX_STRING then return nil end
  local b = base == nil and 10 or (base >= 0 and floor(base) or -floor(-base))
  return call_python(py.to_number, v, b, base ~= nil)
end

-- A value as gopher-lua reads it where arithmetic or the math library wants a number: a number
-- as it is, a string by Go's parsers (utils.go parseNumber, _tonumber.py parse_number: `010` is
-- 8, `0b101` and `1_000` are numbers, `1e400` is none); nil when it is none.
local function go_number(v)
  if type(v) == "number" then return v end
  if type(v) == "string" and #v <= MAX_STRING then return call_python(py.parse_number, v) end
  return nil
end

-- gopher-lua's `%` on numbers: Go's math.Mod given the divisor's sign, where PUC Lua computes
-- a - floor(a/b)*b (they differ for fractional or huge operands).
local function go_modulo(x, y)
  local v = fmod(x, y)
  if (y > 0 and v < 0) or (y < 0 and v > 0) then v = v + y end
  return v
end

-- Go's math.Pow (pow.go), which PUC Lua's C pow does not always match to the last digit: special
-- cases first, then x^yi by repeated squaring with the exponents kept apart, times e^(yf*ln x).
local abs, modf, frexp, sqrt, exp, c_log, c_ldexp = math.abs, math.modf, math.frexp, math.sqrt, math.exp, math.log, math.ldexp
local function is_odd_integer(x)
  if abs(x) >= 2 ^ 53 then return false end
  local whole, fraction = modf(x)
  return fraction == 0 and whole % 2 ~= 0
end
local function go_pow(x, y)
  if y == 0 or x == 1 then return 1 end
  if y == 1 then return x end
  if x ~= x or y ~= y then return 0 / 0 end
  if x == 0 then
    local odd = 1 / x < 0 and is_odd_integer(y)
    if y < 0 then return odd and -huge or huge end
    return odd and x or 0
  end
  if y == huge or y == -huge then
    if x == -1 then return 1 end
    if (abs(x) < 1) == (y == huge) then return 0 end
    return huge
  end
  if x == huge or x == -huge then
    if x == -huge then return go_pow(1 / x, -y) end
    return y < 0 and 0 or huge
  end
  if y == 0.5 then return sqrt(x) end
  if y == -0.5 then return 1 / sqrt(x) end
  local yi, yf = modf(abs(y))
  if yf ~= 0 and x < 0 then return 0 / 0 end
  if yi >= 2 ^ 63 then
    if x == -1 then return 1 end
    if (abs(x) < 1) == (y > 0) then return 0 end
    return huge
  end
  local a1, ae = 1.0, 0
  if yf ~= 0 then
    if yf > 0.5 then yf, yi = yf - 1, yi + 1 end
    a1 = exp(yf * c_log(x))
  end
  local x1, xe = frexp(x)
  local i = yi
  while i ~= 0 do
    if xe < -4096 or 4096 < xe then
      ae = ae + xe
      break
    end
    if i % 2 == 1 then a1, ae = a1 * x1, ae + xe end
    x1, xe = x1 * x1, xe * 2
    if x1 < 0.5 then x1, xe = x1 + x1, xe - 1 end
    i = floor(i / 2)
  end
  if y < 0 then a1, ae = 1 / a1, -ae end
  return c_ldexp(a1, ae)
end

-- The math library as gopher-lua's (mathlib.go): each argument is checked in order (PUC Lua's C
-- functions check the last first) and read as `go_number` reads it; deg and rad compute as Go
-- does, mod is `%`, and max and min want an argument.
local function math_argument(fname, i, v)
  local n = go_number(v)
  if n == nil then
    guards.raise(format("bad argument #%d to %s (number expected, got %s)", i, fname, type(v)))
  end
  return n
end

local ONE_ARGUMENT = {
  "abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "exp", "floor", "frexp", "log", "modf",
  "sin", "sinh", "sqrt", "tan", "tanh",
}
for _, name in ipairs(ONE_ARGUMENT) do
  local f = math[name]
  safe_math[name] = function(...) return f(math_argument(name, 1, (...))) end
end

local function two_arguments(name, f)
  safe_math[name] = function(...)
    local a, b = ...
    a = math_argument(name, 1, a)
    return f(a, math_argument(name, 2, b))
  end
end
two_arguments("atan2", math.atan2)
two_arguments("fmod", fmod)
two_arguments("pow", go_pow)
two_arguments("mod", go_modulo)

local PI = math.pi
local INV_LN10 = 0.43429448190325182765 -- Go's 1/Ln10, rounded once
safe_math.log10 = function(...) return c_log(math_argument("log10", 1, (...))) * INV_LN10 end
safe_math.deg = function(...) return math_argument("deg", 1, (...)) * 180 / PI end
safe_math.rad = function(...) return math_argument("rad", 1, (...)) * PI / 180 end
safe_math.ldexp = function(...)
  local x, e = ...
  x = math_argument("ldexp", 1, x)
  if type(e) ~= "number" then -- an int argument: gopher-lua reads no string there
    guards.raise(format("bad argument #2 to ldexp (number expected, got %s)", type(e)))
  end
  -- Go's int of the exponent (toward zero; NaN, the infinities and anything beyond int64 the
  -- smallest int64), kept within what C's int holds: past 2200 either way the result is 0 or
  -- infinite already.
  if e ~= e or e >= 2 ^ 63 or e < -2 ^ 63 then e = -2 ^ 63 end
  e = e >= 0 and floor(e) or -floor(-e)
  return c_ldexp(x, e < -2200 and -2200 or e > 2200 and 2200 or e)
end

local function extreme(name, better)
  safe_math[name] = function(...)
    local n = select("#", ...)
    if n == 0 then guards.raise("wrong number of arguments") end
    local given = {...}
    local best = math_argument(name, 1, given[1])
    for i = 2, n do
      local v = math_argument(name, i, given[i])
      if better(v, best) then best = v end
    end
    return best
  end
end
extreme("max", function(v, best) return v > best end)
extreme("min", function(v, best) return v < best end)

-- tostring prints numbers as gopher-lua does (guards.lua `number_text`).
local function go_tostring(...)
  if select("#", ...) == 0 then error("bad argument #1 to 'tostring' (value expected)", 2) end
  if type((...)) == "number" then return number_text((...)) end
  return tostring(...)
end

-- unpack ends where gopher-lua's length ends when not told where to.
local function gopher_unpack(t, i, j)
  if type(t) == "table" and j == nil then return unpack(t, i or 1, length(t)) end
  return unpack(t, i, j)
end

local function unsupported(name)
  return function()
    error("call function " .. name .. " is not supported in karmada customized resourceinterpreter.", 2)
  end
end

local SAFE = {
  _VERSION = _VERSION,
  assert = assert, error = error, ipairs = ipairs, next = ordered_next, pairs = ordered_pairs,
  pcall = safe_pcall, xpcall = safe_xpcall, print = function() end, select = select,
  tonumber = go_tonumber, tostring = go_tostring, type = type, unpack = gopher_unpack,
  string = readonly(safe_string, "string"), table = readonly(tables, "table"),
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
-- `..` operands (_operators.py): a number joins as gopher-lua prints it.
SAFE[cfg.text] = function(v)
  if type(v) == "number" then return number_text(v) end
  return v
end
-- `#` (_operators.py): gopher-lua's length.
SAFE[cfg.length] = length
-- The arithmetic operators (_operators.py) as gopher-lua's (vm.go objectArith): a string operand
-- read by Go's parsers (`go_number`), `%` as Go's math.Mod with the divisor's sign, `^` as Go's
-- math.Pow; an operand that is no number (after that reading) names both operands' types.
local function mixed(event, compute, a, b)
  local x, y = go_number(a), go_number(b)
  if x == nil or y == nil then
    local ta, tb = x and "number" or type(a), y and "number" or type(b)
    guards.raise("cannot perform " .. event .. " operation between " .. ta .. " and " .. tb)
  end
  return compute(x, y)
end
local function add(x, y) return x + y end
local function subtract(x, y) return x - y end
local function multiply(x, y) return x * y end
local function divide(x, y) return x / y end
local OPERATORS = {
  ["+"] = function(a, b)
    if type(a) == "number" and type(b) == "number" then return a + b end
    return mixed("add", add, a, b)
  end,
  ["-"] = function(a, b)
    if type(a) == "number" and type(b) == "number" then return a - b end
    return mixed("sub", subtract, a, b)
  end,
  ["*"] = function(a, b)
    if type(a) == "number" and type(b) == "number" then return a * b end
    return mixed("mul", multiply, a, b)
  end,
  ["/"] = function(a, b)
    if type(a) == "number" and type(b) == "number" then return a / b end
    return mixed("div", divide, a, b)
  end,
  ["%"] = function(a, b) return mixed("mod", go_modulo, a, b) end,
  ["^"] = function(a, b) return mixed("pow", go_pow, a, b) end,
}
for operator, name in raw_next, cfg.arithmetic do SAFE[name] = OPERATORS[operator] end
-- Unary minus (vm.go OP_UNM): a string read by Go's parsers; anything else that is no number,
-- gopher-lua's words.
SAFE[cfg.negate] = function(v)
  if type(v) == "number" then return -v end
  local n = type(v) == "string" and go_number(v) or nil
  if n == nil then guards.raise("__unm undefined") end
  return -n
end

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

-- Error messages are clipped: a script can raise a string of any length.
local function clipped(message)
  if #message <= MAX_MESSAGE then return message end
  return sub(message, 1, MAX_MESSAGE) .. format("... (%d more bytes)", #message - MAX_MESSAGE)
end

local function on_error(err)
  in_handler = true
  if type(err) ~= "string" then
    err = "(error object is a " .. type(err) .. " value)"
  end
  local head = cfg.chunkname .. ":"
  if sub(err, 1, #head) == head then
    local n = c_match(sub(err, #head + 1, #head + 12), "^(%d+): ")
    if n then return {message = clipped(sub(err, #head + #n + 3)), line = tonumber(n)} end
  end
  return {message = clipped(err), line = script_line(2)}
end

local last, left  -- what the last entry point returned, and the budget its call left

local function keep(...)
  last = {n = select("#", ...), ...}
  return ...
end

local function finish(ok, ...)
  left, remaining = remaining, huge
  if not ok then
    local e = ...
    if type(e) == "table" then return keep(false, e.message, e.line) end
    return keep(false, clipped(tostring(e)), nil)
  end
  return keep(true, ...)
end

-- Results go back as (count, type1, json1, type2, json2, ...): the first `wanted` values (nil
-- padded), or all of them when `wanted` is nil. Values JSON cannot hold (functions) go back as
-- their type only, for Python to report.
local ENCODABLE = {table = true, string = true, number = true, boolean = true}

local function encode_results(wanted, ...)
  local n = wanted or select("#", ...)
  local out = {n}
  for i = 1, n do
    local v = (select(i, ...))
    local t = type(v)
    out[2 * i] = t
    out[2 * i + 1] = ENCODABLE[t] and encode(v) or false
  end
  return unpack(out, 1, 2 * n + 1)
end

local function prepare(chunk, budget, now, ends, shares)
  sharing = shares
  remaining = budget
  deadline = ends
  stop_message = nil
  in_handler = false
  top = 0
  seed = 1
  clock = now
  local env = setmetatable({}, ENV)
  rawset(env, "_G", env)
  setfenv(chunk, env)
  local ok, err = raw_xpcall(chunk, on_error)
  return ok, err, env
end

-- The worker: the coroutine every script runs in, resumed with one job (a function and its
-- arguments) per call. Its count hook is the sandbox's; the watchdog knows it by its address
-- (`api.worker`).
local function serve(job, ...)
  return serve(yield(job(...))) -- a tail call: the worker's stack does not grow
end
local worker = create(serve)
sethook(worker, count_hook, "", HOOK_EVERY)

local function resumed(ok, ...)
  if not ok then error("the sandbox's worker failed: " .. tostring((...)), 0) end
  return ...
end

local function in_worker(job, ...)
  return resumed(resume(worker, job, ...))
end

local api = {}

function api.worker()
  return tostring(worker)
end

-- Lua names an unexpected byte by itself in its message, which can cut a UTF-8 character in two.
local function compiled(source, name)
  local chunk, message = loadstring(source, name)
  if chunk then return chunk end
  return nil, valid_utf8(message)
end

function api.compile(source)
  if byte(source, 1) == 27 then return nil, "binary chunks are not accepted" end
  return compiled(source, SCRIPT_SOURCE)
end

-- A document's table constructor (_inputs.py writes the source; it uses no globals).
function api.constructor(source)
  return compiled(source, "=input")
end

local function invoke(chunk, fname, budget, ends, now, wanted, shares, nargs, ...)
  local ok, err, env = prepare(chunk, budget, now, ends, shares)
  if not ok then return finish(false, err) end
  local f = rawget(env, fname)
  if f == nil then return finish(false, {message = "not found function " .. fname}) end
  if type(f) ~= "function" then return finish(false, {message = fname .. " is not a function: " .. type(f)}) end
  local args = {...}
  return finish(raw_xpcall(function() return encode_results(wanted, f(unpack(args, 1, nargs))) end, on_error))
end

local function probe(chunk, fname, budget, ends)
  local ok, err, env = prepare(chunk, budget, 0, ends, false)
  if not ok then return finish(false, err) end
  return finish(true, type(rawget(env, fname)))
end

function api.invoke(...)
  return in_worker(invoke, ...)
end

function api.probe(...)
  return in_worker(probe, ...)
end

-- What the last entry point returned, cleaned (see `cleaned`): in the worker, on what is left of
-- its call's budget and time (a script can return a long string of invalid bytes).
local function clean_last()
  local values = last
  remaining, in_handler = left, false
  local ok, err = raw_xpcall(function() return keep(cleaned(unpack(values, 1, values.n))) end, on_error)
  if not ok then return finish(false, err) end
  remaining = huge
  return unpack(last, 1, last.n)
end

function api.cleaned()
  return in_worker(clean_last)
end

function api.collect()
  collectgarbage("collect")
  return collectgarbage("count")
end

return api
