-- never returns from its event
function event()
   local n = 0
   while true do n = n + 1 end
end
