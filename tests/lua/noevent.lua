-- no event function
function thread_init() end
