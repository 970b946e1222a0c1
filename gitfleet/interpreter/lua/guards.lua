-- Library functions called on a script's behalf (loaded by sandbox.lua; strings.lua and tables.lua
-- build on it).
--
-- The sandbox's string and table functions check their arguments, then call PUC Lua's C function
-- or run a version written in Lua that the count hook can stop. Either way the script must see
-- what the C function alone would have raised: `c_call` and `protect` run the work in a
-- protected call and raise its error again without the library's position (a C function's error
-- carries its Lua caller's position, which would be a library file here), naming the function in
-- argument errors ("bad argument #1 to 'find'", where a C function called through pcall says
-- '?'), and letting the sandbox's stop (time or instruction limit) win over any other error.

local stopped = ...

local type, error, tonumber = type, error, tonumber
local raw_pcall = pcall
local floor = math.floor
local c_match, c_gsub = string.match, string.gsub

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
  error(script_message(..., name), 0)
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

return guards
