-- JSON text of Lua values, as Karmada's runtime encodes them (layeh.com/gopher-json): a table with
-- string keys is an object, one with keys 1..n an array, an empty table `[]`; mixed keys, holes,
-- a table met twice, functions and NaN are errors. Invalid UTF-8 becomes U+FFFD (`valid_utf8`),
-- as Go's encoder writes it. Loaded by sandbox.lua; Python parses the text (C speed, unlike
-- walking tables).

local max_depth = ...

local type, error, tostring, rawget, raw_next = type, error, tostring, rawget, next
local floor, huge = math.floor, math.huge
local byte, char, sub, format = string.byte, string.char, string.sub, string.format
local find, gsub = string.find, string.gsub
local concat = table.concat


local ESCAPES = {['"'] = '\\"', ["\\"] = "\\\\"}

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

-- The encoder appends to one buffer, reused from call to call. Speed matters (pod templates go
-- through it on every kube call): plain searches, no new strings where a buffer entry will do,
-- values taken with their keys. Control characters are left raw (Python's parser takes them
-- with strict off). A table met twice is an error (gopher-json's `visited`): `seen[t] == gen`.
local buf, n = {}, 0
local seen, gen = setmetatable({}, {__mode = "k"}), 0

local function escaped(s)
  if find(s, '"', 1, true) or find(s, "\\", 1, true) then return (gsub(s, '["\\]', ESCAPES)) end
  return s
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
    local sep = '{"'
    while k ~= nil do
      if type(k) ~= "string" then error("cannot encode mixed or invalid key types", 0) end
      buf[n + 1] = sep
      buf[n + 2] = escaped(k)
      buf[n + 3] = '":'
      n = n + 3
      put(x, depth)
      sep = ',"'
      k, x = raw_next(v, k)
    end
    n = n + 1
    buf[n] = "}"
  elseif type(k) == "number" then
    local count = 0
    while k ~= nil do
      if type(k) ~= "number" then error("cannot encode mixed or invalid key types", 0) end
      count = count + 1
      k = raw_next(v, k)
    end
    local sep = "["
    for i = 1, count do
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
    buf[n + 1] = '"'
    buf[n + 2] = escaped(v)
    buf[n + 3] = '"'
    n = n + 3
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
  n, gen = 0, gen + 1
  put(v, 0)
  local text = concat(buf, "", 1, n)
  if n > 4096 then buf = {} end  -- do not keep a large document's pieces alive
  return text
end

-- Scanning every text for invalid UTF-8 would cost more than encoding it, and scripts rarely
-- make such strings: the sandbox cleans a text only when Python could not read it.
return {encode = encode, valid_utf8 = valid_utf8}
