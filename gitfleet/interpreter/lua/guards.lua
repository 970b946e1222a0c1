-- Library functions called on a script's behalf (loaded by sandbox.lua; strings.lua and tables.lua
-- build on it).
--
-- The sandbox's string and table functions check their arguments, then call PUC Lua's C function
-- or run a version written in Lua that the count hook can stop. Either way the script must see
-- what the C function alone would have raised: `c_call` and `protect` run the work in a
-- protected call and raise its error again without the library's position (a C function's error
-- carries its Lua caller's position, which would be a library file here: it gets the script's
-- line instead, from `position`), naming the function in
-- argument errors ("bad argument #1 to 'find'", where a C function called through pcall says
-- '?'), and letting the sandbox's stop (time or instruction limit) win over any other error.

local stopped, position = ...

local type, error, tonumber = type, error, tonumber
local raw_pcall, raw_next = pcall, next
local floor, huge = math.floor, math.huge
local c_match, c_gsub, format = string.match, string.gsub, string.format

-- The chunk names _sandbox.py compiles the library files under.
local LIBRARY = {guards = true, strings = true, tables = true}

local function script_message(message, name)
  if type(message) ~= "string" then return message end
  local chunk, rest = c_match(message, "^(%a+):%d+: (.*)$")
  if chunk and LIBRARY[chunk] then message = rest end
  if name then message = c_gsub(message, "^(bad argument #%d+ to )'%?'", "%1'" .. name .. "'") end
  return message
end

local function rethrow(name, ok, ...)
  if ok then return ... end
  local stop = stopped()
  if stop ~= nil then error(stop, 0) end
  local message = script_message(..., name)
  if type(message) == "string" and not c_match(message, "^[^:]*:%d+: ") then
    message = position() .. message -- the script's line, where a C function's error would be
  end
  error(message, 0)
end

local guards = {}

-- `f(...)`, a C function of the string or table library named `name`.
function guards.c_call(name, f, ...)
  return rethrow(name, raw_pcall(f, ...))
end

-- `f(...)`, library work written in Lua.
function guards.protect(f, ...)
  return rethrow(nil, raw_pcall(f, ...))
end

-- Raise `message` at the line of the innermost frame of the script, as gopher-lua places the
-- error of a Go function, whatever library frames and calls lie between.
function guards.raise(message)
  error(position() .. message, 0)
end

-- The sandbox's stop message if the call has been stopped, else nil.
guards.stopped = stopped

function guards.is_stringish(v)
  local t = type(v)
  return t == "string" or t == "number"
end

-- An optional number argument (numeric strings convert, as luaL_optint takes them).
function guards.is_numberish(v)
  return v == nil or tonumber(v) ~= nil
end

-- A number argument as luaL_checkint reads it (toward zero).
function guards.truncate(n)
  n = tonumber(n)
  if n >= 0 then return floor(n) end
  return -floor(-n)
end

-- A table's length as gopher-lua takes it: its last key from 1 to 2^26 (its array part) that
-- holds a value, where PUC Lua's `#` takes any border (after `t = {} t[2] = 2`, 2 where PUC
-- says 0). A border holds a value, so the keys past it are found by a walk from it. The
-- sandbox's `length` answers without the walk for the tables scripts build.
local MAX_ARRAY_INDEX = 67108864

function guards.table_length(t)
  local n = #t
  local k = raw_next(t, n > 0 and n or nil)
  while k ~= nil do
    if type(k) == "number" and k > n and k < MAX_ARRAY_INDEX and k == floor(k) then n = k end
    k = raw_next(t, k)
  end
  return n
end

-- A number as gopher-lua prints it (LNumber.String, for tostring and table.concat): an integral
-- value within int64 in full, any other with Go's shortest digits (%g's choice of form, at
-- precision 6: exponent form below 1e-4 and from 1e6 on), where PUC Lua prints 14 digits.
function guards.number_text(n)
  if n ~= n then return "NaN" end
  if n == huge then return "+Inf" end
  if n == -huge then return "-Inf" end
  if n == floor(n) and n >= -2^63 and n < 2^63 then return format("%d", n) end
  local digits = 17
  for d = 1, 16 do
    if tonumber(format("%." .. d .. "g", n)) == n then digits = d break end
  end
  local exponent = tonumber(c_match(format("%." .. (digits - 1) .. "e", n), "e([-+]%d+)$"))
  if exponent < -4 or exponent >= 6 then return format("%." .. (digits - 1) .. "e", n) end
  return format("%." .. (digits - 1 - exponent) .. "f", n)
end

return guards
