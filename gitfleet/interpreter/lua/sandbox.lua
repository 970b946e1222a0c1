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
-- swallow that stop); C pattern functions, which the hook cannot interrupt, run only when the
-- pattern's worst case is provably small, and otherwise through the Lua matcher below, which the
-- hook does bound; string.rep and pattern subjects have size caps; memory is capped by the
-- runtime's allocator.
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
local byte, char, sub, format = string.byte, string.char, string.sub, string.format
local c_find, c_match = string.find, string.match
local concat, sort = table.concat, table.sort

local SCRIPT_SOURCE = "=" .. cfg.chunkname
local MAX_STRING = cfg.max_string
local PATTERN_COST = cfg.pattern_cost
local HOOK_EVERY = cfg.hook_every
local MAX_DEPTH = cfg.max_depth

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

local function count_hook()
  remaining = remaining - 1
  if remaining < 0 then
    if stop_message == nil then
      local line = script_line(2)
      stop_message = cfg.limit_message
      if line then stop_message = cfg.chunkname .. ":" .. line .. ": " .. stop_message end
    end
    error(stop_message, 0)
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

local TRACKED = {}
TRACKED.__newindex = function(t, k, v)
  if k == nil then error("table index is nil", 2) end
  if k ~= k then error("table index is NaN", 2) end
  rawset(t, k, v)
  if v ~= nil and not is_array_key(k) then
    local seen = SEEN[t]
    if not seen[k] then
      seen[k] = true
      local order = ORDER[t]
      order[#order + 1] = k
    end
  end
end

local function adopt(t, keys, n)
  local order, seen = {}, {}
  for i = 1, n do
    local k = keys[i]
    if not seen[k] and rawget(t, k) ~= nil and not is_array_key(k) then
      seen[k] = true
      order[#order + 1] = k
    end
  end
  ORDER[t], SEEN[t] = order, seen
  return setmetatable(t, TRACKED)
end

-- `{a = 1, b = 2}` becomes `track({a = 1, b = 2}, "a", "b")`.
local function track(t, ...)
  return adopt(t, {...}, select("#", ...))
end

-- Constructors with computed keys: `track_dynamic(frame(), {[key(k)] = v, [key("a")] = 1})`.
local frames, top = {}, 0

local function frame()
  top = top + 1
  local f = {n = 0}
  frames[top] = f
  return f
end

local function key(k)
  local f = frames[top]
  if f then
    f.n = f.n + 1
    f[f.n] = k
  end
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
  return adopt(t, f, f.n)
end

local function ordered_keys(t)
  local keys, n = {}, 0
  local rest, nrest = nil, 0
  local seen = SEEN[t]
  local k = raw_next(t)
  while k ~= nil do
    if is_array_key(k) then
      n = n + 1
      keys[n] = k
    elseif not (seen and seen[k]) then
      nrest = nrest + 1
      rest = rest or {}
      rest[nrest] = k
    end
    k = raw_next(t, k)
  end
  sort(keys)
  local order = ORDER[t]
  if order then
    for i = 1, #order do
      local ok = order[i]
      if rawget(t, ok) ~= nil then
        n = n + 1
        keys[n] = ok
      end
    end
  end
  for i = 1, nrest do
    n = n + 1
    keys[n] = rest[i]
  end
  return keys, n
end

local function check_table(t, fname)
  if type(t) ~= "table" then
    error(format("bad argument #1 to '%s' (table expected, got %s)", fname, t == nil and "no value" or type(t)), 3)
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
-- Lua patterns, in Lua: the same matcher as lstrlib.c (5.1), so a run is bounded by the hook.

local L_ESC = 37 -- '%'
local SPECIALS = "^$*+?.([%-"
local MAXCAPTURES = 32
local CAP_UNFINISHED, CAP_POSITION = -1, -2

local function class_end(ms, p)
  local pat = ms.p
  local c = byte(pat, p)
  p = p + 1
  if c == L_ESC then
    if p > ms.plen then error("malformed pattern (ends with '%')", 0) end
    return p + 1
  elseif c == 91 then -- '['
    if byte(pat, p) == 94 then p = p + 1 end
    repeat
      if p > ms.plen then error("malformed pattern (missing ']')", 0) end
      c = byte(pat, p)
      p = p + 1
      if c == L_ESC and p <= ms.plen then p = p + 1 end
    until byte(pat, p) == 93
    return p + 1
  end
  return p
end

local function is_class(c, cl)
  local lower = cl
  if cl >= 65 and cl <= 90 then lower = cl + 32 end
  local res
  if lower == 97 then res = (c >= 65 and c <= 90) or (c >= 97 and c <= 122)
  elseif lower == 99 then res = c < 32 or c == 127
  elseif lower == 100 then res = c >= 48 and c <= 57
  elseif lower == 108 then res = c >= 97 and c <= 122
  elseif lower == 112 then res = (c >= 33 and c <= 47) or (c >= 58 and c <= 64) or (c >= 91 and c <= 96) or (c >= 123 and c <= 126)
  elseif lower == 115 then res = c == 32 or (c >= 9 and c <= 13)
  elseif lower == 117 then res = c >= 65 and c <= 90
  elseif lower == 119 then res = (c >= 48 and c <= 57) or (c >= 65 and c <= 90) or (c >= 97 and c <= 122)
  elseif lower == 120 then res = (c >= 48 and c <= 57) or (c >= 65 and c <= 70) or (c >= 97 and c <= 102)
  elseif lower == 122 then res = c == 0
  else return cl == c end
  if cl >= 65 and cl <= 90 then return not res end
  return res
end

local function match_bracket_class(ms, c, p, ec)
  local pat = ms.p
  local sig = true
  if byte(pat, p + 1) == 94 then
    sig = false
    p = p + 1
  end
  p = p + 1
  while p < ec do
    local pc = byte(pat, p)
    if pc == L_ESC then
      p = p + 1
      if is_class(c, byte(pat, p)) then return sig end
    elseif byte(pat, p + 1) == 45 and p + 2 < ec then -- range a-z
      p = p + 2
      if pc <= c and c <= byte(pat, p) then return sig end
    elseif pc == c then
      return sig
    end
    p = p + 1
  end
  return not sig
end

local function single_match(ms, c, p, ep)
  local pc = byte(ms.p, p)
  if pc == 46 then return true -- '.'
  elseif pc == L_ESC then return is_class(c, byte(ms.p, p + 1))
  elseif pc == 91 then return match_bracket_class(ms, c, p, ep - 1)
  else return pc == c end
end

local match

local function match_balance(ms, s, p)
  if p + 1 > ms.plen then error("unbalanced pattern", 0) end
  local src = ms.src
  if s > ms.slen or byte(src, s) ~= byte(ms.p, p) then return nil end
  local b, e = byte(ms.p, p), byte(ms.p, p + 1)
  local cont = 1
  s = s + 1
  while s <= ms.slen do
    local c = byte(src, s)
    if c == e then
      cont = cont - 1
      if cont == 0 then return s + 1 end
    elseif c == b then
      cont = cont + 1
    end
    s = s + 1
  end
  return nil
end

local function max_expand(ms, s, p, ep)
  local i = 0
  while s + i <= ms.slen and single_match(ms, byte(ms.src, s + i), p, ep) do i = i + 1 end
  while i >= 0 do
    local res = match(ms, s + i, ep + 1)
    if res then return res end
    i = i - 1
  end
  return nil
end

local function min_expand(ms, s, p, ep)
  while true do
    local res = match(ms, s, ep + 1)
    if res then return res end
    if s <= ms.slen and single_match(ms, byte(ms.src, s), p, ep) then
      s = s + 1
    else
      return nil
    end
  end
end

local function start_capture(ms, s, p, what)
  local level = ms.level + 1
  if level > MAXCAPTURES then error("too many captures", 0) end
  ms.cap_init[level] = s
  ms.cap_len[level] = what
  ms.level = level
  local res = match(ms, s, p)
  if res == nil then ms.level = ms.level - 1 end
  return res
end

local function capture_to_close(ms)
  for level = ms.level, 1, -1 do
    if ms.cap_len[level] == CAP_UNFINISHED then return level end
  end
  error("invalid pattern capture", 0)
end

local function end_capture(ms, s, p)
  local l = capture_to_close(ms)
  ms.cap_len[l] = s - ms.cap_init[l]
  local res = match(ms, s, p)
  if res == nil then ms.cap_len[l] = CAP_UNFINISHED end
  return res
end

local function check_capture(ms, l)
  l = l - 48 -- '0'
  if l < 1 or l > ms.level or ms.cap_len[l] == CAP_UNFINISHED then
    error("invalid capture index", 0)
  end
  return l
end

local function match_capture(ms, s, l)
  l = check_capture(ms, l)
  local len = ms.cap_len[l]
  local init = ms.cap_init[l]
  if len >= 0 and ms.slen - s + 1 >= len and sub(ms.src, init, init + len - 1) == sub(ms.src, s, s + len - 1) then
    return s + len
  end
  return nil
end

match = function(ms, s, p)
  local pat = ms.p
  while true do
    if p > ms.plen then return s end
    local pc = byte(pat, p)
    if pc == 40 then -- '('
      if byte(pat, p + 1) == 41 then return start_capture(ms, s, p + 2, CAP_POSITION) end
      return start_capture(ms, s, p + 1, CAP_UNFINISHED)
    elseif pc == 41 then -- ')'
      return end_capture(ms, s, p + 1)
    end
    local default = true
    if pc == L_ESC then
      local nc = byte(pat, p + 1)
      if nc == 98 then -- %b
        s = match_balance(ms, s, p + 2)
        if s == nil then return nil end
        p = p + 4
        default = false
      elseif nc == 102 then -- %f
        p = p + 2
        if byte(pat, p) ~= 91 then error("missing '[' after '%f' in pattern", 0) end
        local ep = class_end(ms, p)
        local previous = 0
        if s > 1 then previous = byte(ms.src, s - 1) end
        local current = 0
        if s <= ms.slen then current = byte(ms.src, s) end
        if match_bracket_class(ms, previous, p, ep - 1) or not match_bracket_class(ms, current, p, ep - 1) then
          return nil
        end
        p = ep
        default = false
      elseif nc and nc >= 48 and nc <= 57 then -- back reference
        s = match_capture(ms, s, nc)
        if s == nil then return nil end
        p = p + 2
        default = false
      end
    elseif pc == 36 and p == ms.plen then -- '$' at the end
      if s == ms.slen + 1 then return s end
      return nil
    end
    if default then
      local ep = class_end(ms, p)
      local m = s <= ms.slen and single_match(ms, byte(ms.src, s), p, ep)
      local epc = byte(pat, ep)
      if epc == 63 then -- '?'
        if m then
          local res = match(ms, s + 1, ep + 1)
          if res then return res end
        end
        p = ep + 1
      elseif epc == 42 then -- '*'
        return max_expand(ms, s, p, ep)
      elseif epc == 43 then -- '+'
        if m then return max_expand(ms, s + 1, p, ep) end
        return nil
      elseif epc == 45 then -- '-'
        return min_expand(ms, s, p, ep)
      else
        if not m then return nil end
        s = s + 1
        p = ep
      end
    end
  end
end

local function new_state(src, pat)
  local zero = c_find(pat, "\0", 1, true)
  if zero then pat = sub(pat, 1, zero - 1) end -- 5.1 patterns end at the first zero byte
  return {src = src, slen = #src, p = pat, plen = #pat, level = 0, cap_init = {}, cap_len = {}}
end

local function get_capture(ms, i, s, e)
  if i > ms.level then
    if i == 1 then return sub(ms.src, s, e - 1) end
    error("invalid capture index", 0)
  end
  local l = ms.cap_len[i]
  if l == CAP_UNFINISHED then error("unfinished capture", 0) end
  if l == CAP_POSITION then return ms.cap_init[i] end
  return sub(ms.src, ms.cap_init[i], ms.cap_init[i] + l - 1)
end

local function captures(ms, s, e, whole)
  local n = ms.level
  if n == 0 and whole then n = 1 end
  local out = {}
  for i = 1, n do out[i] = get_capture(ms, i, s, e) end
  return unpack(out, 1, n)
end

local function lua_find(s, pat, init, find)
  local anchor = byte(pat, 1) == 94
  local p = 1
  if anchor then p = 2 end
  local ms = new_state(s, pat)
  local s1 = init
  repeat
    ms.level = 0
    local e = match(ms, s1, p)
    if e then
      if find then return s1, e - 1, captures(ms, nil, nil, false) end
      return captures(ms, s1, e, true)
    end
    s1 = s1 + 1
  until s1 > ms.slen + 1 or anchor
  return nil
end

local function lua_gmatch(s, pat)
  local ms = new_state(s, pat)
  local pos = 1
  return function()
    while pos <= ms.slen + 1 do
      ms.level = 0
      local src = pos
      local e = match(ms, src, 1)
      if e then
        pos = e
        if e == src then pos = pos + 1 end
        return captures(ms, src, e, true)
      end
      pos = pos + 1
    end
    return nil
  end
end

local function add_value(ms, out, s, e, repl, rtype)
  local value
  if rtype == "function" then
    value = repl(captures(ms, s, e, true))
  elseif rtype == "table" then
    value = repl[get_capture(ms, 1, s, e)]
  else
    local text = tostring(repl)
    local parts, i, n = {}, 1, #text
    while i <= n do
      local c = byte(text, i)
      if c == L_ESC then
        i = i + 1
        local d = byte(text, i) or 0
        if d == 48 then parts[#parts + 1] = sub(ms.src, s, e - 1)
        elseif d >= 49 and d <= 57 then
          local cap = get_capture(ms, d - 48, s, e)
          parts[#parts + 1] = tostring(cap)
        else parts[#parts + 1] = char(d) end
      else
        parts[#parts + 1] = char(c)
      end
      i = i + 1
    end
    out[#out + 1] = concat(parts)
    return
  end
  if not value then
    value = sub(ms.src, s, e - 1)
  elseif type(value) ~= "string" and type(value) ~= "number" then
    error("invalid replacement value (a " .. type(value) .. ")", 0)
  end
  out[#out + 1] = tostring(value)
end

local function lua_gsub(s, pat, repl, max_n)
  local rtype = type(repl)
  local anchor = byte(pat, 1) == 94
  local p = 1
  if anchor then p = 2 end
  local ms = new_state(s, pat)
  local out, n, src = {}, 0, 1
  while n < max_n do
    ms.level = 0
    local e = match(ms, src, p)
    if e then
      n = n + 1
      add_value(ms, out, src, e, repl, rtype)
    end
    if e and e > src then
      src = e
    elseif src <= ms.slen then
      out[#out + 1] = sub(s, src, src)
      src = src + 1
    else
      break
    end
    if anchor then break end
  end
  out[#out + 1] = sub(s, src)
  return concat(out), n
end

-- Worst-case steps of the C matcher: starts * (len+1)^unbounded * 2^optional * pattern length.
local function pattern_cost(s_len, pat, anchored_ok)
  local unbounded, optional, i, n = 0, 0, 1, #pat
  local anchored = false
  if anchored_ok and byte(pat, 1) == 94 then
    anchored = true
    i = 2
  end
  while i <= n do
    local c = byte(pat, i)
    if c == L_ESC then
      local d = byte(pat, i + 1)
      if d == 98 then unbounded = unbounded + 1; i = i + 4
      elseif d == 102 then i = i + 2
      elseif d and d >= 48 and d <= 57 then unbounded = unbounded + 1; i = i + 2
      else i = i + 2 end
    elseif c == 91 then
      i = i + 1
      if byte(pat, i) == 94 then i = i + 1 end
      repeat
        if i > n then return huge end
        if byte(pat, i) == L_ESC then i = i + 1 end
        i = i + 1
      until byte(pat, i) == 93
      i = i + 1
    else
      i = i + 1
    end
    local q = byte(pat, i)
    if q == 42 or q == 43 or q == 45 then
      unbounded = unbounded + 1
      i = i + 1
    elseif q == 63 then
      optional = optional + 1
      i = i + 1
    end
  end
  local starts = 1
  if not anchored then starts = s_len + 1 end
  return starts * (s_len + 1) ^ unbounded * 2 ^ optional * (n + 1)
end

local function plain_find(s, pat, init)
  -- Knuth-Morris-Pratt: linear, for the rare plain searches too large for memchr+memcmp.
  local m = #pat
  if m == 0 then return init, init - 1 end
  local fail, k = {0}, 0
  for q = 2, m do
    local c = byte(pat, q)
    while k > 0 and byte(pat, k + 1) ~= c do k = fail[k] end
    if byte(pat, k + 1) == c then k = k + 1 end
    fail[q] = k
  end
  k = 0
  for i = init, #s do
    local c = byte(s, i)
    while k > 0 and byte(pat, k + 1) ~= c do k = fail[k] end
    if byte(pat, k + 1) == c then k = k + 1 end
    if k == m then return i - m + 1, i end
  end
  return nil
end

local C = {find = string.find, match = string.match, gmatch = string.gmatch, gsub = string.gsub, rep = string.rep}

local function is_stringish(v)
  local t = type(v)
  return t == "string" or t == "number"
end

local function is_numberish(v)
  return v == nil or tonumber(v) ~= nil
end

local function truncate(n)
  n = tonumber(n)
  if n >= 0 then return floor(n) end
  return -floor(-n)
end

local function check_size(s, fname)
  if #s > MAX_STRING then
    error(format("string length %d exceeds the maximum allowed input string length %d in '%s'", #s, MAX_STRING, fname), 3)
  end
end

local function start_index(init, len)
  if init == nil then return 1 end
  init = truncate(init)
  if init < 0 then init = len + init + 1 end
  if init < 1 then init = 1 end
  if init > len + 1 then init = len + 1 end
  return init
end

local function protect_result(ok, ...)
  if not ok then
    if stop_message ~= nil then error(stop_message, 0) end
    error(..., 3)
  end
  return ...
end

-- Runs the Lua matcher; its errors are reported at the script's call, as C errors would be.
local function protect(f, ...)
  return protect_result(raw_pcall(f, ...))
end

-- Bad arguments go to the C function, which rejects them before matching anything, with
-- Lua's own message.
local function find(s, pat, init, plain)
  if not (is_stringish(s) and is_stringish(pat) and is_numberish(init)) then return C.find(s, pat, init, plain) end
  s, pat = tostring(s), tostring(pat)
  check_size(s, "find")
  check_size(pat, "find")
  local first = start_index(init, #s)
  local zero = C.find(pat, "\0", 1, true)
  local head = zero and sub(pat, 1, zero - 1) or pat
  if plain or not C.find(head, "[%^%$%*%+%?%.%(%[%%%-]") then
    if (#s - first + 2) * (#pat + 1) <= PATTERN_COST then return C.find(s, pat, first, true) end
    return plain_find(s, pat, first)
  end
  if pattern_cost(#s - first + 1, head, true) <= PATTERN_COST then return C.find(s, pat, first) end
  return protect(lua_find, s, pat, first, true)
end

local function match_(s, pat, init)
  if not (is_stringish(s) and is_stringish(pat) and is_numberish(init)) then return C.match(s, pat, init) end
  s, pat = tostring(s), tostring(pat)
  check_size(s, "match")
  check_size(pat, "match")
  local first = start_index(init, #s)
  if pattern_cost(#s - first + 1, pat, true) <= PATTERN_COST then return C.match(s, pat, first) end
  return protect(lua_find, s, pat, first, false)
end

local function gmatch(s, pat)
  if not (is_stringish(s) and is_stringish(pat)) then return C.gmatch(s, pat) end
  s, pat = tostring(s), tostring(pat)
  check_size(s, "gmatch")
  check_size(pat, "gmatch")
  if pattern_cost(#s, pat, false) <= PATTERN_COST then return C.gmatch(s, pat) end
  local iter = lua_gmatch(s, pat)
  return function() return protect(iter) end
end

local function gsub(s, pat, repl, max_n)
  local rtype = type(repl)
  if not (is_stringish(s) and is_stringish(pat) and is_numberish(max_n))
      or not (rtype == "string" or rtype == "number" or rtype == "function" or rtype == "table") then
    return C.gsub(s, pat, repl, max_n)
  end
  s, pat = tostring(s), tostring(pat)
  check_size(s, "gsub")
  check_size(pat, "gsub")
  if max_n == nil then max_n = #s + 1 else max_n = truncate(max_n) end
  if pattern_cost(#s, pat, true) <= PATTERN_COST then return C.gsub(s, pat, repl, max_n) end
  return protect(lua_gsub, s, pat, repl, max_n)
end

local function rep(s, n)
  if not (is_stringish(s) and tonumber(n) ~= nil) then return C.rep(s, n) end
  s, n = tostring(s), truncate(n)
  if n <= 0 or #s == 0 then return "" end
  if #s * n > MAX_STRING then
    error(format("string.rep result of %.0f bytes exceeds the limit of %d bytes", #s * n, MAX_STRING), 2)
  end
  return C.rep(s, n)
end

local function string_arg(v, n, fname)
  if is_stringish(v) then return tostring(v) end
  error(format("bad argument #%d to '%s' (string expected, got %s)", n, fname, v == nil and "no value" or type(v)), 3)
end

---------------------------------------------------------------------------------------------
-- Libraries scripts see.

local function readonly(t, name)
  return setmetatable({}, {
    __index = t,
    __newindex = function() error("attempt to modify read-only table '" .. name .. "'", 2) end,
    __metatable = false,
  })
end

local safe_string = {
  byte = string.byte, char = string.char, find = find, format = string.format,
  gmatch = gmatch, gfind = gmatch, gsub = gsub, len = string.len, lower = string.lower,
  match = match_, rep = rep, reverse = string.reverse, sub = string.sub, upper = string.upper,
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
  local ok, value = f(...)
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

---------------------------------------------------------------------------------------------
-- Values handed to Python travel as JSON text, encoded with gopher-json's rules
-- (layeh.com/gopher-json): a table with string keys is an object, keys 1..n an array, an empty
-- table `[]`; mixed keys, holes, a table met twice, functions and NaN are errors. Invalid UTF-8
-- becomes U+FFFD, as Go's encoder writes it.

local ESCAPES = {['"'] = '\\"', ["\\"] = "\\\\"}
for i = 0, 31 do ESCAPES[char(i)] = format("\\u%04x", i) end
ESCAPES[char(127)] = "\\u007f"

local function valid_utf8(s)
  local out, i, n, changed = {}, 1, #s, false
  while i <= n do
    local c = byte(s, i)
    local len, low, high = 0, 128, 191
    if c < 128 then len = 1
    elseif c >= 194 and c <= 223 then len = 2
    elseif c >= 224 and c <= 239 then
      len = 3
      if c == 224 then low = 160 elseif c == 237 then high = 159 end
    elseif c >= 240 and c <= 244 then
      len = 4
      if c == 240 then low = 144 elseif c == 244 then high = 143 end
    end
    local ok = len > 0 and i + len - 1 <= n
    if ok and len > 1 then
      local c2 = byte(s, i + 1)
      ok = c2 >= low and c2 <= high
      for j = i + 2, i + len - 1 do
        local cj = byte(s, j)
        if cj < 128 or cj > 191 then ok = false end
      end
    end
    if ok then
      out[#out + 1] = sub(s, i, i + len - 1)
      i = i + len
    else
      out[#out + 1] = "\239\191\189"
      changed = true
      i = i + 1
    end
  end
  if changed then return concat(out) end
  return s
end

-- The encoder appends to one buffer; `seen` holds the tables met so far.
local buf, n, seen = {}, 0, {}

local function put_string(s)
  if C.find(s, '[%c"\\]') then s = C.gsub(s, '[%c"\\]', ESCAPES) end
  n = n + 1
  buf[n] = '"' .. s .. '"'
end

local function put(v, depth)
  local tv = type(v)
  if tv == "string" then
    put_string(v)
  elseif tv == "number" then
    if v ~= v or v == huge or v == -huge then error("json: unsupported value: " .. tostring(v), 0) end
    n = n + 1
    if v == floor(v) and v > -1e15 and v < 1e15 then buf[n] = format("%d", v) else buf[n] = format("%.17g", v) end
  elseif tv == "boolean" then
    n = n + 1
    buf[n] = v and "true" or "false"
  elseif tv == "table" then
    if seen[v] then error("cannot encode recursively nested tables to JSON", 0) end
    seen[v] = true
    if depth > MAX_DEPTH then error("cannot encode tables nested deeper than " .. MAX_DEPTH .. " levels", 0) end
    local k = raw_next(v)
    if k == nil then
      n = n + 1
      buf[n] = "[]"
    elseif type(k) == "number" then
      local count = 0
      while k ~= nil do
        if type(k) ~= "number" then error("cannot encode mixed or invalid key types", 0) end
        count = count + 1
        k = raw_next(v, k)
      end
      n = n + 1
      buf[n] = "["
      for i = 1, count do
        local item = rawget(v, i)
        if item == nil then error("cannot encode sparse array", 0) end
        if i > 1 then n = n + 1; buf[n] = "," end
        put(item, depth + 1)
      end
      n = n + 1
      buf[n] = "]"
    elseif type(k) == "string" then
      n = n + 1
      buf[n] = "{"
      local first = true
      while k ~= nil do
        if type(k) ~= "string" then error("cannot encode mixed or invalid key types", 0) end
        if first then first = false else n = n + 1; buf[n] = "," end
        put_string(k)
        n = n + 1
        buf[n] = ":"
        put(rawget(v, k), depth + 1)
        k = raw_next(v, k)
      end
      n = n + 1
      buf[n] = "}"
    else
      error("cannot encode mixed or invalid key types", 0)
    end
  else
    error("cannot encode " .. tv .. " to JSON", 0)
  end
end

local function encode(v)
  buf, n, seen = {}, 0, {}
  put(v, 1)
  local text = concat(buf, "", 1, n)
  buf, seen = {}, {}
  if C.find(text, "[\128-\255]") then text = valid_utf8(text) end
  return text
end

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

local function finish(ok, ...)
  remaining = huge
  if not ok then
    local e = ...
    if type(e) == "table" then return false, e.message, e.line end
    return false, tostring(e), nil
  end
  return true, ...
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

local function prepare(chunk, budget, now)
  remaining = budget
  stop_message = nil
  frames, top = {}, 0
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

function api.collect()
  collectgarbage("collect")
  return collectgarbage("count")
end

sethook(count_hook, "", HOOK_EVERY)

return api
