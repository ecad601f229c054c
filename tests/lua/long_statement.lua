-- every event waits 30 s on the server, in a prepared statement
function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
   local sleep = drv:name() == "mysql" and "SELECT SLEEP(30)" or "SELECT pg_sleep(30)"
   stmt = con:prepare(sleep)
end

function event()
   stmt:execute()
end
