-- each client's set-up waits 30 s on the server: the run never starts
function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
   con:query(drv:name() == "mysql" and "SELECT SLEEP(30)" or "SELECT pg_sleep(30)")
end

function event()
   con:query("SELECT 1")
end
