-- Prints, from each client, the most threads the process had during its
-- events (Linux: /proc/self/status).
local seen = 0
function event()
   local f = io.open("/proc/self/status")
   for line in f:lines() do
      local n = line:match("^Threads:%s+(%d+)")
      if n then seen = math.max(seen, tonumber(n)) end
   end
   f:close()
end

function thread_done()
   print("threads-seen " .. seen)
end
