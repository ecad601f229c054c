-- never returns from its event, with the JIT compiler off (interpreted)
jit.off()
function event()
   local n = 0
   while true do n = n + 1 end
end
