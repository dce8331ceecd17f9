-- Signs in as user0..user(N-1)@example.com in turn (the right password), N from $USERS: many accounts, as a
-- service's traffic is, so per-account queueing does not set the pace. For the limits-on/off comparison.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local users = tonumber(os.getenv("USERS") or "200")
local counter = 0
request = function()
  counter = counter + 1
  local body = string.format('{"email":"user%d@example.com","password":"secret123","returnSecureToken":true}', counter % users)
  return wrk.format(nil, nil, nil, body)
end
