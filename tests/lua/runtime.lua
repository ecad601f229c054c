-- fails in its third event
local n = 0
function event()
   n = n + 1
   if n == 3 then error("boom") end
end
