-- accounts:lookup rotating through the ID tokens listed in $TOKENS_FILE (one per line): many users, each
-- reusing their token, as real clients do.
local tokens = {}
for line in io.lines(os.getenv("TOKENS_FILE")) do tokens[#tokens + 1] = line end
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("offset", threads * 7)
end
function init(args) index = offset end
function request()
  index = index % #tokens + 1
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, '{"idToken":"' .. tokens[index] .. '"}')
end
