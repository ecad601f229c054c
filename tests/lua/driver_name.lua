-- Declares no options, as scripts written for sysbench 1.0 before
-- sysbench.cmdline.options often do. `prepare` prints the driver a script
-- branching on sysbench.opt.db_driver would pick next to drv:name(), and
-- how an option the script never declared reaches it.

function prepare()
   local drv = sysbench.sql.driver()
   print(string.format("db_driver=%s name=%s", sysbench.opt.db_driver, drv:name()))
   print(string.format("tables=%s:%s global=%s", type(sysbench.opt.tables), tostring(sysbench.opt.tables), tostring(tables)))
   local con = drv:connect()
   con:disconnect()
end

function event()
end
