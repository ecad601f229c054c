-- Prints, from each client, the fewest threads the process had during its
-- events (Linux: /proc/self/status): a thread that is only passing through
-- (a runtime of the set-up winding down) is not one the clients run on.
local seen = nil
function event()
   local f = io.open("/proc/self/status")
   for line in f:lines() do
      local n = line:match("^Threads:%s+(%d+)")
      if n then seen = math.min(seen or tonumber(n), tonumber(n)) end
   end
   f:close()
end

function thread_done()
   print("threads-seen " .. (seen or 0))
end
