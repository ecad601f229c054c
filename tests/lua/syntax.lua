function event()
   local x = 1
   x = x +
end
