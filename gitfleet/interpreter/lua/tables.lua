-- The table library scripts see (loaded by sandbox.lua, which passes the limits and guards.lua).
--
-- PUC Lua's table functions run in C, out of the count hook's and the watchdog's reach while
-- they run, and some of them loop far longer than their table:
-- - insert and remove move every element between the position and the end: with a position far
--   below 1 that is billions of steps (table.insert(t, -2^31, v) loops 2^31 times). On a table
--   a script built they are gopher-lua's, on its array (sandbox.lua `tracked_insert`,
--   `tracked_remove`); on others, positions within the array go to the C functions and the
--   others do what gopher-lua (Karmada's VM, table.go LTable.Insert/Remove) does: insert at a
--   position below 1 or past the end sets that one key, remove at a position below 1 removes
--   the last element, past the end nothing;
-- - sort is Go's pdqsort in Lua, as gopher-lua sorts (see `sort` below), so every comparison is
--   a call the hook sees;
-- - maxn walks the whole table, here in Lua;
-- - concat takes i and j as gopher-lua does (clamped to the array, of gopher-lua's length,
--   guards.lua `length`; a string separator, number positions), prints numbers as gopher-lua
--   does (guards.lua `number_text`), gives a single number element back as the number it is,
--   and refuses a result longer than `max_string` bytes before the C function copies anything,
--   as string.rep does.
-- getn is a binary search.

local limits, guards = ...

local type, error, tostring, tonumber, select = type, error, tostring, tonumber, select
local raw_next, rawget, rawset = next, rawget, rawset
local format = string.format
local c_call, number_text, length = guards.c_call, guards.number_text, guards.length
local is_stringish, is_numberish, truncate = guards.is_stringish, guards.is_numberish, guards.truncate

local MAX_STRING = limits.max_string
local C = table

local function insert(...)
  local t, pos, v = ...
  local n = select("#", ...)
  if n == 2 and type(t) == "table" and guards.tracked_insert(t, 1, pos) then return end
  if n ~= 3 or type(t) ~= "table" or tonumber(pos) == nil then
    return c_call("insert", C.insert, ...)
  end
  if type(pos) == "number" and pos == pos and guards.tracked_insert(t, 2, truncate(pos), v) then
    return
  end
  pos = truncate(pos)
  if pos >= 1 and pos <= #t + 1 then return c_call("insert", C.insert, t, pos, v) end
  if pos ~= pos then error("bad argument #2 to 'insert' (number expected, got NaN)", 2) end
  t[pos] = v
end

local function remove(...)
  local t, pos = ...
  if type(t) == "table" and (select("#", ...) == 1 or type(pos) == "number") then
    local done, old = guards.tracked_remove(t, select("#", ...) == 1 and -1 or truncate(pos))
    if done then return old end
  end
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
  local n = length(t)
  i = i == nil and 1 or truncate(i)
  j = j == nil and n or truncate(j)
  if nargs == 3 and (i > n or i < 1) then return "" end
  if i > n then i = n end
  if i < 1 then i = 1 end
  if j > n then j = n end
  if i > j then return "" end
  if i == j and type(rawget(t, i)) == "number" then return rawget(t, i) end
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

-- sort is Go's sort.Sort (pdqsort), as gopher-lua runs it on the array: elements that compare
-- equal end up in the same order as in Karmada, which PUC Lua's quicksort does not give, and an
-- inconsistent comparison is no error. Every comparison is a Lua call the hook sees.

local floor = math.floor
local TWO32 = 2 ^ 32

local function bxor32(a, b)
  local r, p = 0, 1
  for _ = 1, 32 do
    local x, y = a % 2, b % 2
    if x ~= y then r = r + p end
    a, b, p = (a - x) / 2, (b - y) / 2, p * 2
  end
  return r
end

-- Go's xorshift on a 64-bit state held as two 32-bit halves.
local function shift_left(hi, lo, n)
  local m = 2 ^ n
  return (hi * m + floor(lo / 2 ^ (32 - n))) % TWO32, (lo * m) % TWO32
end

local function shift_right(hi, lo, n)
  local m = 2 ^ n
  return floor(hi / m), floor(lo / m) + (hi % m) * 2 ^ (32 - n)
end

local function xorshift_next(state)
  local hi, lo = state[1], state[2]
  local a, b = shift_left(hi, lo, 13)
  hi, lo = bxor32(hi, a), bxor32(lo, b)
  a, b = shift_right(hi, lo, 7)
  hi, lo = bxor32(hi, a), bxor32(lo, b)
  a, b = shift_left(hi, lo, 17)
  hi, lo = bxor32(hi, a), bxor32(lo, b)
  state[1], state[2] = hi, lo
  return lo
end

local function bit_length(n)
  local bits = 0
  while n > 0 do
    n, bits = floor(n / 2), bits + 1
  end
  return bits
end

local function sorter(t, less)
  local function lt(i, j) return less(rawget(t, i), rawget(t, j)) and true or false end
  local function swap(i, j)
    local vi, vj = rawget(t, i), rawget(t, j)
    rawset(t, i, vj)
    rawset(t, j, vi)
  end

  -- Positions are 0-based, as in Go; element k lives at t[k + 1].
  local function lt0(i, j) return lt(i + 1, j + 1) end
  local function swap0(i, j) swap(i + 1, j + 1) end

  local function insertion_sort(a, b)
    for i = a + 1, b - 1 do
      local j = i
      while j > a and lt0(j, j - 1) do
        swap0(j, j - 1)
        j = j - 1
      end
    end
  end

  local function sift_down(lo, hi, first)
    local root = lo
    while true do
      local child = 2 * root + 1
      if child >= hi then return end
      if child + 1 < hi and lt0(first + child, first + child + 1) then child = child + 1 end
      if not lt0(first + root, first + child) then return end
      swap0(first + root, first + child)
      root = child
    end
  end

  local function heap_sort(a, b)
    local first, hi = a, b - a
    for i = floor((hi - 1) / 2), 0, -1 do sift_down(i, hi, first) end
    for i = hi - 1, 0, -1 do
      swap0(first, first + i)
      sift_down(0, i, first)
    end
  end

  local function order2(a, b, swaps)
    if lt0(b, a) then
      swaps[1] = swaps[1] + 1
      return b, a
    end
    return a, b
  end

  local function median(a, b, c, swaps)
    a, b = order2(a, b, swaps)
    b, c = order2(b, c, swaps)
    a, b = order2(a, b, swaps)
    return b
  end

  local function choose_pivot(a, b)
    local l = b - a
    local swaps = {0}
    local q = floor(l / 4)
    local i, j, k = a + q, a + q * 2, a + q * 3
    if l >= 8 then
      if l >= 50 then
        i = median(i - 1, i, i + 1, swaps)
        j = median(j - 1, j, j + 1, swaps)
        k = median(k - 1, k, k + 1, swaps)
      end
      j = median(i, j, k, swaps)
    end
    if swaps[1] == 0 then return j, "increasing" end
    if swaps[1] == 12 then return j, "decreasing" end
    return j, "unknown"
  end

  local function reverse_range(a, b)
    local i, j = a, b - 1
    while i < j do
      swap0(i, j)
      i, j = i + 1, j - 1
    end
  end

  local function partial_insertion_sort(a, b)
    local i = a + 1
    for _ = 1, 5 do
      while i < b and not lt0(i, i - 1) do i = i + 1 end
      if i == b then return true end
      if b - a < 50 then return false end
      swap0(i, i - 1)
      if i - a >= 2 then
        for j = i - 1, 1, -1 do
          if not lt0(j, j - 1) then break end
          swap0(j, j - 1)
        end
      end
      if b - i >= 2 then
        for j = i + 1, b - 1 do
          if not lt0(j, j - 1) then break end
          swap0(j, j - 1)
        end
      end
    end
    return false
  end

  local function break_patterns(a, b)
    local length = b - a
    if length >= 8 then
      local state = {floor(length / TWO32), length % TWO32}
      local modulus = 2 ^ bit_length(length)
      local q = floor(length / 4) * 2
      for idx = a + q - 1, a + q + 1 do
        local other = xorshift_next(state) % modulus
        if other >= length then other = other - length end
        swap0(idx, a + other)
      end
    end
  end

  local function partition_equal(a, b, pivot)
    swap0(a, pivot)
    local i, j = a + 1, b - 1
    while true do
      while i <= j and not lt0(a, i) do i = i + 1 end
      while i <= j and lt0(a, j) do j = j - 1 end
      if i > j then break end
      swap0(i, j)
      i, j = i + 1, j - 1
    end
    return i
  end

  local function partition(a, b, pivot)
    swap0(a, pivot)
    local i, j = a + 1, b - 1
    while i <= j and lt0(i, a) do i = i + 1 end
    while i <= j and not lt0(j, a) do j = j - 1 end
    if i > j then
      swap0(j, a)
      return j, true
    end
    swap0(i, j)
    i, j = i + 1, j - 1
    while true do
      while i <= j and lt0(i, a) do i = i + 1 end
      while i <= j and not lt0(j, a) do j = j - 1 end
      if i > j then break end
      swap0(i, j)
      i, j = i + 1, j - 1
    end
    swap0(j, a)
    return j, false
  end

  local pdqsort
  pdqsort = function(a, b, limit)
    local was_balanced, was_partitioned = true, true
    while true do
      local length = b - a
      if length <= 12 then return insertion_sort(a, b) end
      if limit == 0 then return heap_sort(a, b) end
      if not was_balanced then
        break_patterns(a, b)
        limit = limit - 1
      end
      local pivot, hint = choose_pivot(a, b)
      if hint == "decreasing" then
        reverse_range(a, b)
        pivot = (b - 1) - (pivot - a)
        hint = "increasing"
      end
      if was_balanced and was_partitioned and hint == "increasing" and partial_insertion_sort(a, b) then
        return
      end
      if a > 0 and not lt0(a - 1, pivot) then
        a = partition_equal(a, b, pivot)
      else
        local mid, already = partition(a, b, pivot)
        was_partitioned = already
        local left, right = mid - a, b - mid
        local threshold = floor(length / 8)
        if left < right then
          was_balanced = left >= threshold
          pdqsort(a, mid, limit)
          a = mid + 1
        else
          was_balanced = right >= threshold
          pdqsort(mid + 1, b, limit)
          b = mid
        end
      end
    end
  end

  return function(n)
    if n > 1 then pdqsort(0, n, bit_length(n)) end
  end
end

local function less_than(a, b)
  return a < b
end

local function sort(t, less)
  if type(t) ~= "table" then return c_call("sort", C.sort, t, less) end
  if less ~= nil and type(less) ~= "function" then
    error("bad argument #2 to 'sort' (function expected, got " .. type(less) .. ")", 2)
  end
  guards.protect(sorter(t, less or less_than), #t)
end

return {
  concat = concat, getn = C.getn, insert = insert, maxn = maxn, remove = remove, sort = sort,
}
