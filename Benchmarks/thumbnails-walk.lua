-- wrk script of Benchmarks/thumbnails-load: each thread walks its own share of the request paths in the file
-- given after `--` (then "loop" and wrk's thread count), in order and round and round, so that the threads never
-- ask for the same path and a list longer than a run is never repeated (every request of a cold run is new).
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
  sent = 0
end

function request()
  sent = sent + 1
  return wrk.format("GET", paths[((sent - 1) % #paths) + 1])
end
