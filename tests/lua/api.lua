-- Exercises every part of sysbench's Lua API that fairbench provides:
-- options of each type with a validator, the callbacks, commands,
-- sysbench.rand through the API and through ffi.C, sysbench.sql
-- (drivers, connections, statements, binds, results, bulk inserts), the
-- SQL error hooks and the report hooks. A failed check raises an error.

sysbench.cmdline.options = {
   rows = {"rows to create", 10},
   label = {"a string", "x"},
   flag = {"a boolean", false},
   ratio = {"a double", 0.5},
   names = {"a list", {"a", "b"}},
   size = {"a size", "1K", sysbench.cmdline.ARG_SIZE},
   even = {"an even number", 2, sysbench.cmdline.ARG_INT,
           function(name, value) return tonumber(value) % 2 == 0 end},
}

ffi.cdef[[
void sb_counter_inc(int, sb_counter_type);
uint32_t sb_rand_uniform(uint32_t, uint32_t);
]]

local function check(cond, what)
   if not cond then error("check failed: " .. what, 2) end
end

local function count_rows(con)
   return tonumber(con:query_row("SELECT COUNT(*) FROM lua_api"))
end

function prepare()
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   con:query("DROP TABLE IF EXISTS lua_api")
   con:query("CREATE TABLE lua_api (id INTEGER PRIMARY KEY, k INTEGER, c VARCHAR(64))")
   con:bulk_insert_init("INSERT INTO lua_api (id, k, c) VALUES")
   for i = 1, sysbench.opt.rows do
      con:bulk_insert_next(string.format("(%d, %d, '%s')", i, i * 10, sysbench.rand.string("@@@-###")))
   end
   con:bulk_insert_done()
   check(count_rows(con) == sysbench.opt.rows, "rows after prepare")
   con:disconnect()
end

function cleanup()
   local con = sysbench.sql.driver():connect()
   con:query("DROP TABLE IF EXISTS lua_api")
end

sysbench.cmdline.commands = {
   verify = {function()
      local con = sysbench.sql.driver():connect()
      print("verify: rows=" .. count_rows(con))
   end},
   par = {function() print("par: tid=" .. sysbench.tid) end, sysbench.cmdline.PARALLEL_COMMAND},
}

function init()
   print("init: threads=" .. sysbench.opt.threads)
end

function done()
   print("done: called")
end

local function check_options()
   local o = sysbench.opt
   check(o.rows >= 1 and o.label ~= nil and type(o.flag) == "boolean", "option types")
   check(o.size == 1024 or o.size == 2048, "size option")
   check(type(o.names) == "table" and #o.names >= 1, "list option")
   check(o.ratio > 0 and o.ratio < 1, "double option")
   check(o.even % 2 == 0, "validated option")
   check(sysbench.cmdline.command == "run", "command")
   check(sysbench.cmdline.script_path:match("api%.lua$") ~= nil, "script path")
   check(#sysbench.cmdline.argv >= 1, "argv")
   check(sysbench.cmdline.command_defined("verify") and not sysbench.cmdline.command_defined("nope"), "command_defined")
   check(sysbench.cmdline.command_parallel("par") and not sysbench.cmdline.command_parallel("verify"), "command_parallel")
   check(sysbench.error.RESTART_EVENT ~= sysbench.error.NONE, "error codes")
   check(sysbench.sql.error.FATAL ~= nil and sysbench.sql.type.VARCHAR ~= nil, "sql constants")
   check(type(sysbench.version) == "string" and type(sysbench.version_string) == "string", "version")
end

local function check_rand()
   local r = sysbench.rand
   for _ = 1, 50 do
      local u = r.uniform(3, 7)
      check(u >= 3 and u <= 7, "uniform")
      for _, f in ipairs({r.default, r.gaussian, r.special, r.pareto, r.zipfian, sb_rand, sb_rand_uniform}) do
         local v = f(10, 20)
         check(v >= 10 and v <= 20, "distribution in range")
      end
      local d = r.uniform_double()
      check(d >= 0 and d < 1, "uniform_double")
      local f = ffi.C.sb_rand_uniform(1, 2)
      check(f == 1 or f == 2, "ffi sb_rand_uniform")
   end
   check(r.unique() ~= r.unique(), "unique")
   check(type(r.uniform_uint64()) == "cdata", "uniform_uint64")
   check(r.string("@@##-x"):match("^%l%l%d%d%-x$") ~= nil, "string template")
   local v = r.varstring(3, 8)
   check(#v >= 3 and #v <= 8, "varstring")
   check(#sb_rand_str("###") == 3 and sb_rnd() >= 0 and sb_rand_uniq(1, 4294967295) >= 1, "compat aliases")
end

function thread_init()
   check_options()
   check_rand()
   drv = sysbench.sql.driver()
   check(drv:name() == "mysql" or drv:name() == "pgsql", "driver name")
   con = drv:connect()
   sel = con:prepare("SELECT k, c FROM lua_api WHERE id = ?")
   sel_id = sel:bind_create(sysbench.sql.type.INT)
   sel:bind_param(sel_id)
   upd = con:prepare("UPDATE lua_api SET c = ? WHERE id = ?")
   upd_c = upd:bind_create(sysbench.sql.type.VARCHAR, 64)
   upd_id = upd:bind_create(sysbench.sql.type.BIGINT)
   upd:bind_param(upd_c, upd_id)
   -- Prepared lazily: the missing table fails at its first execute.
   bad = con:prepare("SELECT k FROM no_such_table WHERE id = ?")
   bad_id = bad:bind_create(sysbench.sql.type.INT)
   bad:bind_param(bad_id)
   -- A second connection, reconnected and closed.
   local other = drv:connect()
   check(count_rows(other) == sysbench.opt.rows, "second connection")
   local rs = other:query("SELECT id FROM lua_api ORDER BY id")
   check(rs.nrows == sysbench.opt.rows and rs.nfields == 1, "result size")
   check(rs:fetch_row()[1] == "1", "first row")
   -- One result per connection, as in sysbench: the next statement's rows
   -- replace it, through the handle the first query returned.
   local rs2 = other:query("SELECT id FROM lua_api WHERE id = 2")
   check(rawequal(rs, rs2) and rs.nrows == 1 and rs:fetch_row()[1] == "2" and rs:fetch_row() == nil, "one result per connection")
   sel_id:set(3)
   local rs3 = sel:execute()
   check(rs3.nrows == 1 and not rawequal(rs3, rs) and rawequal(rs3, con:query("SELECT id FROM lua_api WHERE id < 3")), "a statement's result is its connection's")
   check(rs3.nrows == 2 and rs3:fetch_row()[1] ~= nil, "the last statement's rows")
   rs:free()
   check(rs.nrows == 0 and rs:fetch_row() == nil, "a freed result")
   other:reconnect()
   check(other:more_results() == false, "more_results")
   other:disconnect()
   failed_once = false
end

function sysbench.hooks.sql_error_ignorable(err)
   return err.query:find("no_such_table") ~= nil
end

function sysbench.hooks.before_restart_event(err)
   check(err.errcode == sysbench.error.RESTART_EVENT and err.sql_errmsg ~= nil, "errdesc")
   print("restart: " .. tostring(err.sql_state))
end

function event()
   if not failed_once then
      failed_once = true
      -- A failing query on one client, a failing statement on the other:
      -- both go through the error hooks.
      if sysbench.tid % 2 == 0 then
         con:query("SELECT * FROM no_such_table")
      else
         bad_id:set(1)
         bad:execute()
      end
   end
   check(ffi.C.sb_more_events(sysbench.tid) == true, "sb_more_events")
   ffi.C.sb_event_start(sysbench.tid)
   local id = sysbench.rand.uniform(1, sysbench.opt.rows)
   sel_id:set(id)
   local rs = sel:execute()
   check(rs.nrows == 1, "one row")
   local row = rs:fetch_row()
   check(tonumber(row[1]) == id * 10 and rs:fetch_row() == nil, "row values")
   upd_c:set_rand_str("@@@-###")
   upd_id:set(id)
   upd:execute()
   ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_READ)
   ffi.C.sb_event_stop(sysbench.tid)
end

function thread_done()
   sel:close()
   upd:close()
   con:disconnect()
end

function sysbench.hooks.report_intermediate(stat)
   sysbench.report_default(stat)
end

function sysbench.hooks.report_cumulative(stat)
   print(string.format("cumulative: events=%d reads=%d writes=%d other=%d errors=%d avg_ok=%s",
      stat.events, stat.reads, stat.writes, stat.other, stat.errors,
      tostring(stat.latency_avg > 0 and stat.latency_max >= stat.latency_min)))
end
