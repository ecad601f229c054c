-- Prints, from each client, the number of threads the process had during
-- most of its events (Linux: /proc/self/status): a thread only passing
-- through (a runtime of the set-up winding down), a client that has not
-- started yet or one that has already finished is seen by a few events,
-- not by most.
local counts = {}
function event()
   local f = io.open("/proc/self/status")
   for line in f:lines() do
      local n = line:match("^Threads:%s+(%d+)")
      if n then counts[n] = (counts[n] or 0) + 1 end
   end
   f:close()
end

function thread_done()
   local most, seen = 0, 0
   for n, c in pairs(counts) do
      if c > most then most, seen = c, tonumber(n) end
   end
   print("threads-seen " .. seen)
end
