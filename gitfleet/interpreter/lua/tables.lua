-- The table library scripts see (loaded by sandbox.lua, which passes the limits and guards.lua).
--
-- PUC Lua's table functions run in C, out of the count hook's and the watchdog's reach while
-- they run, and some of them loop far longer than their table:
-- - insert and remove move every element between the position and the end: with a position far
--   below 1 that is billions of steps (table.insert(t, -2^31, v) loops 2^31 times). Positions
--   within the array go to the C functions; the others do what gopher-lua (Karmada's VM,
--   table.go LTable.Insert/Remove) does: insert at a position below 1 or past the end sets that
--   one key, remove at a position below 1 removes the last element, past the end nothing;
-- - sort without a comparison function compares in C, never returning to Lua: it is given one
--   (`a < b`, what C compares), so that every comparison is a call the hook sees and the order
--   and errors stay the C function's (C sorts a million numbers in about a second);
-- - maxn walks the whole table, here in Lua;
-- - concat takes i and j as gopher-lua does (clamped to the array; a string separator, number
--   positions), prints numbers as gopher-lua does (guards.lua `number_text`), and refuses a
--   result longer than `max_string` bytes before the C function copies anything, as string.rep
--   does.
-- getn is a binary search.

local limits, guards = ...

local type, error, tostring, tonumber, select = type, error, tostring, tonumber, select
local raw_next, rawget = next, rawget
local format = string.format
local c_call, number_text = guards.c_call, guards.number_text
local is_stringish, is_numberish, truncate = guards.is_stringish, guards.is_numberish, guards.truncate

local MAX_STRING = limits.max_string
local C = table

local function insert(...)
  local t, pos, v = ...
  if select("#", ...) ~= 3 or type(t) ~= "table" or tonumber(pos) == nil then
    return c_call("insert", C.insert, ...)
  end
  pos = truncate(pos)
  if pos >= 1 and pos <= #t + 1 then return c_call("insert", C.insert, t, pos, v) end
  if pos ~= pos then error("bad argument #2 to 'insert' (number expected, got NaN)", 2) end
  t[pos] = v
end

local function remove(...)
  local t, pos = ...
  if select("#", ...) < 2 or pos == nil or type(t) ~= "table" or tonumber(pos) == nil then
    return c_call("remove", C.remove, ...)
  end
  pos = truncate(pos)
  local n = #t
  if pos >= 1 and pos <= n then return c_call("remove", C.remove, t, pos) end
  if pos < 1 and n > 0 then return c_call("remove", C.remove, t) end
  return nil
end

local function maxn(t)
  if type(t) ~= "table" then return c_call("maxn", C.maxn, t) end
  local max = 0
  local k = raw_next(t)
  while k ~= nil do
    if type(k) == "number" and k > max then max = k end
    k = raw_next(t, k)
  end
  return max
end

local function concat(...)
  local t, sep, i, j = ...
  local nargs = select("#", ...)
  if type(t) ~= "table" or not (sep == nil or is_stringish(sep)) or not is_numberish(i) or not is_numberish(j) then
    return c_call("concat", C.concat, ...)
  end
  -- gopher-lua takes a string separator and number positions, not what converts to them
  if type(sep) == "number" then error("bad argument #2 to 'concat' (string expected, got number)", 2) end
  if type(i) == "string" then error("bad argument #3 to 'concat' (number expected, got string)", 2) end
  if type(j) == "string" then error("bad argument #4 to 'concat' (number expected, got string)", 2) end
  local n = #t
  i = i == nil and 1 or truncate(i)
  j = j == nil and n or truncate(j)
  if nargs == 3 and (i > n or i < 1) then return "" end
  if i > n then i = n end
  if i < 1 then i = 1 end
  if j > n then j = n end
  if i > j then return "" end
  sep = sep == nil and "" or sep
  local size = (j - i) * #sep
  local texts = nil -- the elements, numbers printed as gopher-lua prints them
  for k = i, j do
    local v = rawget(t, k)
    if type(v) == "number" then
      v = number_text(v)
      texts = texts or {}
    elseif type(v) ~= "string" then
      break -- the C function reports it
    end
    size = size + #v
    if size > MAX_STRING then
      error(format("table.concat result of more than %d bytes exceeds the limit", MAX_STRING), 2)
    end
  end
  if texts == nil then return c_call("concat", C.concat, t, sep, i, j) end
  for k = i, j do
    local v = rawget(t, k)
    texts[k - i + 1] = type(v) == "number" and number_text(v) or v
  end
  return c_call("concat", C.concat, texts, sep, 1, j - i + 1)
end

-- What the C function compares with when it is given no function.
local function less_than(a, b)
  return a < b
end

local function sort(t, less)
  if type(t) == "table" and less == nil then less = less_than end
  return c_call("sort", C.sort, t, less)
end

return {
  concat = concat, getn = C.getn, insert = insert, maxn = maxn, remove = remove, sort = sort,
}
