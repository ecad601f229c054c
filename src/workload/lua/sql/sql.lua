-- sysbench.sql in Lua over fairbench's connections. Objects are plain Lua
-- tables; the Rust side (`fb`, given to this chunk) keeps the connections,
-- statements and results. A call that waits on a server queues its request
-- with `fb` and yields the client's coroutine; the Rust driver performs the
-- request and resumes it with (true, a, b) or (false, message).
local fb = ...
local yield, select, setmetatable, error, unpack, type = coroutine.yield, select, setmetatable, error, unpack, type
local exec, query = fb.exec, fb.query
local ffi = require("ffi")
ffi.cdef[[
void fairbench_bind_num(int h, int k, double v);
void fairbench_bind_str(int h, int k, const char *s, size_t len);
int fairbench_exec(int h, int n);
double fairbench_result(int which);
]]
local C = ffi.C
local sql = sysbench.sql

-- The answer to the request just queued. Errors name the script's line
-- that made the call (level 3: the caller of the API method).
local function wait()
  local ok, a, b = yield(1)
  if not ok then error(a, 3) end
  return a, b
end

local Result = {}
Result.__index = Result
function Result:fetch_row() return fb.fetch_row(self.h) end
function Result:free()
  fb.free(self.h)
  self.nrows = 0
end

-- Each connection has one result, as in sysbench: every query returns it.
local function result(conn, nrows, nfields)
  if nrows == nil then return nil end
  local rs = conn.rs
  rs.nrows, rs.nfields = nrows, nfields
  return rs
end

local Statement = {}
Statement.__index = Statement
local Param = {}
Param.__index = Param
function Param:set(v) self.v = v end
function Param:set_rand_str(fmt) self.v = sysbench.rand.string(fmt) end

function Statement:bind_create(ty) return setmetatable({ t = ty }, Param) end
function Statement:bind_param(...)
  local n = select("#", ...)
  local p, types = { ... }, {}
  for i = 1, n do types[i] = p[i].t end
  self.p, self.n = p, n
  fb.bind_types(self.h, unpack(types, 1, n))
end
-- Numbers and strings are bound and the statement run through FFI calls,
-- which LuaJIT compiles into the event's trace; other values (nil, booleans,
-- cdata) take the general path below.
function Statement:execute()
  local p, n, h = self.p, self.n, self.h
  for i = 1, n do
    local v = p[i].v
    local t = type(v)
    if t == "number" then C.fairbench_bind_num(h, i - 1, v)
    elseif t == "string" then C.fairbench_bind_str(h, i - 1, v, #v)
    else return self:execute_any() end
  end
  local r = C.fairbench_exec(h, n)
  if r == 2 then return result(self.c, C.fairbench_result(0), C.fairbench_result(1)) end
  if r == 1 then return nil end
  if r == 0 then return result(self.c, wait()) end
  error(fb.exec_error(), 2)
end
function Statement:execute_any()
  local p, n, e, a, b = self.p, self.n, nil, nil, nil
  -- The common arities without building an argument table. `exec`
  -- answers true and the result's shape when it ran the statement in
  -- place, nothing when it queued it, or an error message.
  if n == 0 then e, a, b = exec(self.h)
  elseif n == 1 then e, a, b = exec(self.h, p[1].v)
  elseif n == 2 then e, a, b = exec(self.h, p[1].v, p[2].v)
  elseif n == 3 then e, a, b = exec(self.h, p[1].v, p[2].v, p[3].v)
  elseif n == 4 then e, a, b = exec(self.h, p[1].v, p[2].v, p[3].v, p[4].v)
  else
    local v = {}
    for i = 1, n do v[i] = p[i].v end
    e, a, b = exec(self.h, unpack(v, 1, n))
  end
  if e == true then return result(self.c, a, b) end
  if e then error(e, 2) end
  return result(self.c, wait())
end
function Statement:close() end
function Statement:next_result() return nil end

local Connection = {}
Connection.__index = Connection
function Connection:query(q)
  local e = query(self.h, q)
  if e then error(e, 2) end
  return result(self, wait())
end
function Connection:query_row(q)
  local e = query(self.h, q)
  if e then error(e, 2) end
  local rs = result(self, wait())
  if rs == nil then return end
  local row = fb.fetch_row(self.h)
  if row == nil then return end
  return unpack(row, 1, rs.nfields)
end
function Connection:prepare(q)
  local e = fb.prepare(self.h, q)
  if e then error(e, 2) end
  local h = wait()
  return setmetatable({ h = h, c = self, p = {}, n = 0 }, Statement)
end
function Connection:bulk_insert_init(prefix) fb.bulk_init(self.h, prefix) end
function Connection:bulk_insert_next(values)
  if fb.bulk_next(self.h, values) then wait() end
end
function Connection:bulk_insert_done()
  if fb.bulk_done(self.h) then wait() end
end
function Connection:disconnect()
  if fb.disconnect(self.h) then wait() end
end
function Connection:reconnect()
  local e = fb.reconnect(self.h)
  if e then error(e, 2) end
  wait()
end
function Connection:more_results() return false end
function Connection:next_result() return nil end

local Driver = {}
Driver.__index = Driver
function Driver:name() return fb.driver_name() end
function Driver:connect()
  local e = fb.connect()
  if e then error(e, 2) end
  local h = wait()
  return setmetatable({ h = h, rs = setmetatable({ h = h, nrows = 0, nfields = 0 }, Result) }, Connection)
end

function sql.driver(name)
  local e = fb.driver_check(name)
  if e then error(e, 2) end
  return setmetatable({}, Driver)
end

-- The client's coroutine: runs one callback per resume (nil: the global
-- event) and yields 0 with its result, or 2 with its error, then waits for
-- the next one.
return function(f, a)
  while true do
    local ok, r = pcall(f or event, a)
    f, a = yield(ok and 0 or 2, r)
  end
end
