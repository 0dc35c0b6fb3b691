-- wrk script: asks for the paths listed in a file (the argument after --) in turn, each thread
-- starting at its own place, and prints one JSON line of figures at the end.
local paths = {}
local next_path = 1

function init(args)
    for line in io.lines(args[1]) do
        paths[#paths + 1] = line
    end
    next_path = math.random(#paths)
end

function request()
    local path = paths[next_path]
    next_path = next_path % #paths + 1
    return wrk.format("GET", path)
end

function done(summary, latency, requests)
    local errors = summary.errors
    io.write(string.format(
        '{"per_second": %.1f, "p50_ms": %.3f, "p99_ms": %.3f, "requests": %d, "not_2xx": %d, "errors": %d}\n',
        summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
        latency:percentile(99) / 1000, summary.requests, errors.status,
        errors.connect + errors.read + errors.write + errors.timeout))
end
