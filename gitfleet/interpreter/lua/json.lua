-- JSON text of Lua values, as Karmada's runtime encodes them (layeh.com/gopher-json): a table with
-- string keys is an object, one with keys 1..n an array, an empty table `[]`; mixed keys, holes,
-- a table met twice, functions and NaN are errors. `valid_utf8` makes invalid UTF-8 U+FFFD, as
-- Go's encoder writes it; the sandbox applies it only to a text Python cannot read (scanning
-- every text would cost more than encoding it; cleaning a whole text cleans each string in it,
-- as the bytes around a string are ASCII). Loaded by sandbox.lua; Python parses the text (C
-- speed, unlike walking tables). Python's parsing is not under the sandbox's time limit, so one
-- text holds at most `max_values` values (each table, key and scalar counts).

local max_depth, max_values = ...

local type, error, tostring, rawget, raw_next = type, error, tostring, rawget, next
local floor, huge = math.floor, math.huge
local byte, char, sub, format = string.byte, string.char, string.sub, string.format
local find, gsub = string.find, string.gsub
local NON_ASCII = "[\128-\255]"
local concat = table.concat


local ESCAPES = {['"'] = '\\"', ["\\"] = "\\\\"}

-- `s` with every byte that does not start a valid UTF-8 sequence replaced by U+FFFD, as Go's
-- encoder writes it; `s` itself when it is valid. A C search skips each run of ASCII bytes.
local function valid_utf8(s)
  local i = find(s, NON_ASCII)
  if i == nil then return s end
  local out, m, n, run = {}, 0, #s, 1
  while i ~= nil do
    local c = byte(s, i)
    local len, low, high = 0, 128, 191
    if c >= 194 and c <= 223 then len = 2
    elseif c >= 224 and c <= 239 then
      len = 3
      if c == 224 then low = 160 elseif c == 237 then high = 159 end
    elseif c >= 240 and c <= 244 then
      len = 4
      if c == 240 then low = 144 elseif c == 244 then high = 143 end
    end
    local ok = len > 0 and i + len - 1 <= n
    if ok then
      local c2 = byte(s, i + 1)
      ok = c2 >= low and c2 <= high
      for j = i + 2, i + len - 1 do
        local cj = byte(s, j)
        if cj < 128 or cj > 191 then ok = false end
      end
    end
    if ok then
      i = i + len
    else
      out[m + 1] = sub(s, run, i - 1)
      out[m + 2] = "\239\191\189"
      m = m + 2
      i = i + 1
      run = i
    end
    i = find(s, NON_ASCII, i)
  end
  if m == 0 then return s end
  out[m + 1] = sub(s, run)
  return concat(out)
end

-- The encoder appends to one buffer, reused from call to call. Speed matters (pod templates go
-- through it on every kube call): each key goes in as one piece with its quotes, colon and the
-- separator before it, and each short string with its quotes, both kept from call to call (the
-- same keys and values come again and again) until too many are kept; values are taken with
-- their keys. Control characters are left raw (Python's parser takes them with strict off). A
-- table met twice is an error (gopher-json's `visited`): `seen[t] == gen`.
local buf, n, values = {}, 0, 0
local seen, gen = setmetatable({}, {__mode = "k"}), 0
local MAX_PIECES, MAX_PIECE = 2048, 128
local first_keys, next_keys, quoted, pieces = {}, {}, {}, 0

local function too_many()
  error(format("cannot encode more than %d values", max_values), 0)
end

local function escaped(s)
  if find(s, '"', 1, true) or find(s, "\\", 1, true) then return (gsub(s, '["\\]', ESCAPES)) end
  return s
end

-- `made[s]`: `before .. escaped(s) .. after`, kept when short.
local function piece(made, s, before, after)
  local text = before .. escaped(s) .. after
  if #s <= MAX_PIECE then
    if pieces >= MAX_PIECES then first_keys, next_keys, quoted, pieces = {}, {}, {}, 0 end
    made[s], pieces = text, pieces + 1
  end
  return text
end

local put

local function put_table(v, depth)
  if seen[v] == gen then error("cannot encode recursively nested tables to JSON", 0) end
  seen[v] = gen
  if depth > max_depth then error("cannot encode tables nested deeper than " .. max_depth .. " levels", 0) end
  local k, x = raw_next(v)
  if k == nil then
    n = n + 1
    buf[n] = "[]"
  elseif type(k) == "string" then
    n = n + 1
    buf[n] = first_keys[k] or piece(first_keys, k, '{"', '":')
    while true do
      values = values + 2
      if values > max_values then too_many() end
      put(x, depth)
      k, x = raw_next(v, k)
      if k == nil then break end
      if type(k) ~= "string" then error("cannot encode mixed or invalid key types", 0) end
      n = n + 1
      buf[n] = next_keys[k] or piece(next_keys, k, ',"', '":')
    end
    n = n + 1
    buf[n] = "}"
  elseif type(k) == "number" then
    local size = 0
    while k ~= nil do
      if type(k) ~= "number" then error("cannot encode mixed or invalid key types", 0) end
      size = size + 1
      k = raw_next(v, k)
    end
    values = values + size
    if values > max_values then too_many() end
    local sep = "["
    for i = 1, size do
      local item = rawget(v, i)
      if item == nil then error("cannot encode sparse array", 0) end
      n = n + 1
      buf[n] = sep
      put(item, depth)
      sep = ","
    end
    n = n + 1
    buf[n] = "]"
  else
    error("cannot encode mixed or invalid key types", 0)
  end
end

put = function(v, depth)
  local tv = type(v)
  if tv == "string" then
    n = n + 1
    buf[n] = quoted[v] or piece(quoted, v, '"', '"')
  elseif tv == "table" then
    put_table(v, depth + 1)
  elseif tv == "number" then
    if v ~= v or v == huge or v == -huge then error("json: unsupported value: " .. tostring(v), 0) end
    n = n + 1
    -- concat prints numbers with %.14g: exact for integers below 1e14; others need 17 digits
    if v == floor(v) and v > -1e14 and v < 1e14 then buf[n] = v else buf[n] = format("%.17g", v) end
  elseif tv == "boolean" then
    n = n + 1
    buf[n] = v and "true" or "false"
  else
    error("cannot encode " .. tv .. " to JSON", 0)
  end
end

local function encode(v)
  if n > 4096 then buf = {} end  -- a failed encoding's pieces
  n, values, gen = 0, 1, gen + 1
  put(v, 0)
  local text = concat(buf, "", 1, n)
  if n > 4096 then buf = {} end  -- do not keep a large document's pieces alive
  return text
end

return {encode = encode, valid_utf8 = valid_utf8}
