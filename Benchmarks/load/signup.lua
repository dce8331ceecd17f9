-- POSTs accounts:signUp with a new email on every request.
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
function init(args)
  counter = 0
  run = os.time()
end
function request()
  counter = counter + 1
  local body = string.format('{"email":"load-%d-%d-%d@example.com","password":"secret123","returnSecureToken":true}',
    run, tid, counter)
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
