-- A statement executed with a bound value never set (nil): one error line
-- naming this file and the line of the execute call.
function thread_init()
   con = sysbench.sql.driver():connect()
   st = con:prepare("SELECT 1 + ?")
   p = st:bind_create(sysbench.sql.type.INT)
   st:bind_param(p)
end

function event()
   st:execute()
end
