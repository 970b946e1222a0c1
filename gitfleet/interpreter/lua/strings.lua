-- The string library scripts see (loaded by sandbox.lua, which passes the limits and guards.lua).
--
-- Every function whose C implementation does work in proportion to its arguments is bounded, so
-- that no single call keeps the watchdog (_watchdog.py) waiting long:
-- - string arguments are capped at `max_string` bytes, as Karmada caps them (string_safe.go:
--   byte, find, gmatch, lower, match, reverse, sub, upper; string.format is Go's, built by
--   sandbox.lua); gsub, rep and dump raise Karmada's error;
-- - C pattern matching (lstrlib.c) backtracks up to (subject length)^(number of `*`, `+`, `-`
--   items) steps. So a call goes to the C functions only when that worst case, computed from
--   the pattern, stays under `pattern_cost`; otherwise it runs in the matcher below, a
--   transcription of lstrlib.c's 5.1 matcher in Lua, which the count hook bounds. Both give the same results and errors. Plain
--   searches too large for memchr+memcmp's quadratic worst case use Knuth-Morris-Pratt.
-- char, len and the rest take at most a few thousand values or none.

local limits, guards = ...

local type, error, select = type, error, select
local raw_pcall, unpack = pcall, unpack
local huge = math.huge
local byte, char, sub, format = string.byte, string.char, string.sub, string.format
local c_find = string.find
local c_call, protect, stopped = guards.c_call, guards.protect, guards.stopped
local is_stringish, is_numberish, truncate = guards.is_stringish, guards.is_numberish, guards.truncate
local number_text = guards.number_text

local MAX_STRING = limits.max_string

local function pack(...)
  return {n = select("#", ...), ...}
end
local PATTERN_COST = limits.pattern_cost

-- The matcher (lstrlib.c, 5.1): positions are 1-based byte indices.

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

local C = string

local function check_size(s, fname)
  if #s > MAX_STRING then
    error(format("string length %d exceeds the maximum allowed input string length %d in '%s'", #s, MAX_STRING, fname), 3)
  end
end

-- Where find and match start (1-based), as Karmada's string library computes it: past the end
-- is kept (nothing is found there), not clamped as PUC Lua clamps it; the position must be a
-- number.
local function start_index(init, len, fname)
  if init == nil then return 1 end
  if type(init) ~= "number" then
    error(format("bad argument #3 to '%s' (number expected, got %s)", fname, type(init)), 3)
  end
  local i = truncate(init)
  if i ~= 0 then i = i - 1 end
  if i < 0 then i = len + i + 1 end
  if i < 0 then i = 0 end
  return i + 1
end

-- A pattern as Karmada's matcher (gopher-lua's pm) reads it: it has no frontier item, so `%f`
-- is a plain `f`.
local function karmada_pattern(pat)
  if not C.find(pat, "%f", 1, true) then return pat end
  return (C.gsub(pat, "%%(.)", function(c)
    if c == "f" then return "f" end
  end))
end

-- A string argument as Karmada's functions read it: numbers as gopher-lua prints them.
local function text_of(v)
  if type(v) == "number" then return number_text(v) end
  return v
end

local function nothing_for_nil(...)
  if select("#", ...) == 1 and (...) == nil then return end
  return ...
end

-- Bad arguments go to the C function, which rejects them before matching anything, with
-- Lua's own message. Karmada's find answers 1, 0 for an empty pattern, fails a plain search
-- that starts past the end (Go's slice bounds), and takes a position that is a number.
local function find(s, pat, init, plain)
  if not (is_stringish(s) and is_stringish(pat) and is_numberish(init)) then return c_call("find", C.find, s, pat, init, plain) end
  s, pat = text_of(s), text_of(pat)
  check_size(s, "find")
  check_size(pat, "find")
  if #pat == 0 then return 1, 0 end
  if not plain then pat = karmada_pattern(pat) end
  local first = start_index(init, #s, "find")
  if first > #s + 1 then
    if plain then error(format("runtime error: slice bounds out of range [%d:%d]", first - 1, #s), 2) end
    return nil
  end
  local zero = C.find(pat, "\0", 1, true)
  local head = zero and sub(pat, 1, zero - 1) or pat
  if plain or not C.find(head, "[%^%$%*%+%?%.%(%[%%%-]") then
    if (#s - first + 2) * (#pat + 1) <= PATTERN_COST then return c_call("find", C.find, s, pat, first, true) end
    return plain_find(s, pat, first)
  end
  if pattern_cost(#s - first + 1, head, true) <= PATTERN_COST then return c_call("find", C.find, s, pat, first) end
  return protect(lua_find, s, pat, first, true)
end

-- Karmada's match returns no value at all when nothing matches (not nil), and nothing past the
-- end of the string.
local function match_(s, pat, init)
  if not (is_stringish(s) and is_stringish(pat) and is_numberish(init)) then return c_call("match", C.match, s, pat, init) end
  s, pat = text_of(s), text_of(pat)
  check_size(s, "match")
  check_size(pat, "match")
  pat = karmada_pattern(pat)
  local first = start_index(init, #s, "match")
  if first > #s + 1 then return end
  if pattern_cost(#s - first + 1, pat, true) <= PATTERN_COST then
    return nothing_for_nil(c_call("match", C.match, s, pat, first))
  end
  return nothing_for_nil(protect(lua_find, s, pat, first, false))
end

local function gmatch(s, pat)
  if not (is_stringish(s) and is_stringish(pat)) then return c_call("gmatch", C.gmatch, s, pat) end
  s, pat = text_of(s), text_of(pat)
  check_size(s, "gmatch")
  check_size(pat, "gmatch")
  pat = karmada_pattern(pat)
  if byte(pat, 1) == 94 then -- `^`: Karmada's gmatch anchors, and so matches once at most
    local done = false
    return function()
      if done then return end
      done = true
      return match_(s, pat)
    end
  end
  if pattern_cost(#s, pat, false) <= PATTERN_COST then return c_call("gmatch", C.gmatch, s, pat) end
  local iter = lua_gmatch(s, pat)
  -- The script's loop calls this iterator itself: its errors name the loop's line, as C's do.
  return function()
    local found = pack(raw_pcall(iter))
    if not found[1] then
      local stop = stopped()
      if stop ~= nil then error(stop, 0) end
      error(found[2], 2)
    end
    return unpack(found, 2, found.n)
  end
end

-- Karmada's string library refuses three functions whatever their arguments
-- (pkg/util/lifted/lua/string_safe.go; gsub and rep could build strings of any length), in these
-- words, at the script's line.
local function refused(fname)
  local message = "The Lua function string." .. fname .. " is not supported by Karmada. If you"
    .. " believe this function is essential for your use case, please submit an issue to let us"
    .. " know why you need it."
  return function() guards.raise(message) end
end

-- A C function whose work grows with its first argument, a string (a number is read as
-- gopher-lua prints it).
local function capped(fname)
  local f = C[fname]
  return function(s, ...)
    s = text_of(s)
    if type(s) == "string" then check_size(s, fname) end
    return c_call(fname, f, s, ...)
  end
end

-- A position (argument `n`) of string function `fname` must be a number: Karmada's functions
-- read positions as ints, which takes no string.
local function number_position(fname, n, v)
  if type(v) ~= "number" then
    guards.raise(format("bad argument #%d to %s (number expected, got %s)", n, fname, type(v)))
  end
end

-- string.byte as Karmada's (gopher-lua stringlib.go strByte): with no position, every byte;
-- with a position alone, that byte (none outside the string); with both, the bytes between.
-- Positions must be numbers.
local function byte_(...)
  local s, i, j = ...
  local nargs = select("#", ...)
  if not is_stringish(s) then return c_call("byte", C.byte, ...) end
  if i ~= nil then number_position("byte", 2, i) end
  if j ~= nil then number_position("byte", 3, j) end
  s = text_of(s)
  check_size(s, "byte")
  local l = #s
  local first = (i == nil and 1 or truncate(i)) - 1
  local stop = j == nil and -1 or truncate(j)
  if first < 0 then first = l + first + 1 end
  if stop < 0 then stop = l + stop + 1 end
  if nargs == 2 then
    if first < 0 or first >= l then return end
    return C.byte(s, first + 1)
  end
  if first < 0 then first = 0 end
  if stop > l then stop = l end
  if stop <= first or first >= l then return end
  return c_call("byte", C.byte, s, first + 1, stop)
end

-- A number as Go's int(float64) takes it on amd64: toward zero, and the smallest int64 for NaN,
-- the infinities and anything beyond int64.
local INT64_MIN = -2 ^ 63
local function go_int(n)
  if n ~= n or n >= 2 ^ 63 or n < INT64_MIN then return INT64_MIN end
  return truncate(n)
end

-- A position of string.sub as a 0-based index (Karmada's luaIndex2StringIndex): a start moves one
-- back (the smallest int64 wraps around to the largest, past any string), a negative one counts
-- from the end, none is below 0, and an end is at most the length.
local function sub_index(len, i, start)
  if start and i ~= 0 then
    if i == INT64_MIN then return huge end
    i = i - 1
  end
  if i < 0 then i = len + i + 1 end
  if i < 0 then i = 0 end
  if not start and i > len then i = len end
  return i
end

-- string.sub as Karmada's (string_safe.go strSub): positions must be numbers (a numeric string
-- is refused, where PUC Lua converts it), read as Go's int reads them.
local function sub_(s, i, j)
  if not is_stringish(s) then return c_call("sub", C.sub, s, i, j) end
  number_position("sub", 2, i)
  if j ~= nil then number_position("sub", 3, j) end
  s = text_of(s)
  check_size(s, "sub")
  local l = #s
  local first = sub_index(l, go_int(i), true)
  local stop = sub_index(l, j == nil and -1 or go_int(j), false)
  if first >= l or stop < first then return "" end
  return sub(s, first + 1, stop)
end

-- Karmada's char takes numbers only and keeps each one's low byte (Go's uint8), where PUC Lua
-- refuses values outside 0..255.
local function char(...)
  local n = select("#", ...)
  local codes = {...}
  for i = 1, n do
    local v = codes[i]
    if type(v) ~= "number" then
      error(format("bad argument #%d to 'char' (number expected, got %s)", i, v == nil and "nil" or type(v)), 2)
    end
    codes[i] = truncate(v) % 256
  end
  return C.char(unpack(codes, 1, n))
end

return {
  byte = byte_, char = char, dump = refused("dump"), find = find, gmatch = gmatch,
  gsub = refused("gsub"), len = capped("len"), lower = capped("lower"), match = match_,
  rep = refused("rep"), reverse = capped("reverse"), sub = sub_, upper = capped("upper"),
}
