-- wrk script of Benchmarks/thumbnails-load: each thread walks its share of the request paths in the file given
-- after `--` (then "once" or "loop", then wrk's thread count). With "once" a thread stops after its share (every
-- request a thumbnail not asked for before); with "loop" it walks its share round and round until wrk's duration
-- ends.
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  local count = tonumber(args[3]) or 1
  paths = {}
  local index = 0
  for line in io.lines(args[1]) do
    if index % count == id then table.insert(paths, line) end
    index = index + 1
  end
  once = args[2] == "once"
  sent = 0
  received = 0
end

function request()
  sent = sent + 1
  local path = paths[((sent - 1) % #paths) + 1]
  return wrk.format("GET", path)
end

function response(status, headers, body)
  received = received + 1
  if once and received >= #paths then wrk.thread:stop() end
end
