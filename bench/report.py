#!/usr/bin/env python3
"""Turns compare.py's figures into bench/RESULTS.md and a plot, or checks that a quick run
produced every figure.

    report.py FIGURES.json --markdown RESULTS.md --plot results.png
    report.py --check FIGURES.json"""

import argparse
import json
import statistics
import sys

PEERS = ["thumbor", "image_filter"]


def median(values):
    return statistics.median(values)


def cell(values, scale=1.0, digits=1):
    """The median of the rounds, then each round's value."""
    scaled = [value * scale for value in values]
    rounds = " / ".join(f"{value:.{digits}f}" for value in scaled)
    return f"**{median(scaled):.{digits}f}** ({rounds})" if len(scaled) > 1 else f"{scaled[0]:.{digits}f}"


def counts(rounds):
    """Origin requests or renders of every storm: "1 in each of 15" when so, else round by round."""
    every = [count for storms in rounds for count in storms]
    if len(set(every)) == 1:
        return f"{every[0]} in each of {len(every)}"
    return " / ".join(", ".join(map(str, storms)) for storms in rounds)


def figures(results, table, server, key, field):
    return [round_figures[field] for round_figures in results[table].get(server, {}).get(key, [])]


def check(results):
    """A quick run must have measured every figure it asks for, each a positive number."""
    problems = []
    for level in results["levels"]:
        for field in ("per_second", "p50_ms", "p99_ms", "cpu_per_thumbnail", "peak_rss"):
            values = figures(results, "cold", "thumbd", f"jpg c{level}", field)
            if not values or not all(value > 0 for value in values):
                problems.append(f"cold c{level} {field}: {values}")
    for field in ("per_second", "p99_ms"):
        values = figures(results, "warm", "thumbd", "c32", field)
        if not values or not all(value > 0 for value in values):
            problems.append(f"warm {field}: {values}")
    storms = next(iter(results["storm"]["thumbd"].values()), [])
    if not storms or any(min(storm["origin_requests"]) < 1 or storm["max_ms"] <= 0 for storm in storms):
        problems.append(f"storm: {storms}")
    memory = results["memory"].get("thumbd", {})
    if not memory.get("idle") or not memory.get("after"):
        problems.append(f"memory: {memory}")
    if problems:
        sys.exit("report.py: the quick run is missing figures: " + "; ".join(problems))
    cold = figures(results, "cold", "thumbd", "jpg c4", "per_second")
    warm = figures(results, "warm", "thumbd", "c32", "per_second")
    print(f"report.py: every figure measured (cold c4 {cold[0]:.1f}/s, warm {warm[0]:.0f} req/s)")


def servers_in(results, table):
    order = ["thumbd", "plain nginx"] + PEERS
    return [name for name in order if name in results[table]]


def markdown(results, commands):
    levels = results["levels"]
    lines = []
    out = lines.append
    versions = results["versions"]
    out("# thumbd beside its peers\n")
    out("Written by `bench/run` (bench/compare.py measures, bench/report.py writes this file and "
        "`results.png`). Figures are the **median** of the rounds, then each round's value; rounds are "
        "interleaved (every server in turn, a different one first each round).\n")
    out("## Machine and versions\n")
    for name, version in versions.items():
        out(f"- {name}: {version}")
    out("")
    out("## What is measured\n")
    out(commands)
    out("")
    out(f"## Cold thumbnails ({results['photos']} photos, 300x200 fill, JPEG q80): thumbnails/s\n")
    header = "| server | " + " | ".join(f"c{level}" for level in levels) + " |"
    out(header)
    out("|" + "---|" * (len(levels) + 1))
    for server in servers_in(results, "cold"):
        out(f"| {server} | " + " | ".join(cell(figures(results, "cold", server, f"jpg c{level}", "per_second"))
                                          for level in levels) + " |")
    for field, title in (("p50_ms", "p50 latency, ms"), ("p99_ms", "p99 latency, ms")):
        out(f"\n### Cold, {title}\n")
        out(header)
        out("|" + "---|" * (len(levels) + 1))
        for server in servers_in(results, "cold"):
            out(f"| {server} | " + " | ".join(cell(figures(results, "cold", server, f"jpg c{level}", field), digits=0)
                                              for level in levels) + " |")
    out("\n### Cold WebP q80 at c4\n")
    out("| server | thumbnails/s | p50 ms | p99 ms |")
    out("|---|---|---|---|")
    for server in servers_in(results, "cold"):
        if "webp c4" in results["cold"][server]:
            out(f"| {server} | {cell(figures(results, 'cold', server, 'webp c4', 'per_second'))} | "
                f"{cell(figures(results, 'cold', server, 'webp c4', 'p50_ms'), digits=0)} | "
                f"{cell(figures(results, 'cold', server, 'webp c4', 'p99_ms'), digits=0)} |")
        else:
            out(f"| {server} | cannot change a format | | |")
    out("\n## CPU per thumbnail (user+sys of the server's processes / thumbnails, cold JPEG at c4)\n")
    out("| server or tool | CPU ms per thumbnail |")
    out("|---|---|")
    for server in servers_in(results, "cold"):
        out(f"| {server} | {cell(figures(results, 'cold', server, 'jpg c4', 'cpu_per_thumbnail'), scale=1000)} |")
    for tool, values in results["cli"].items():
        out(f"| {tool} (command line{', one process, all photos' if tool == 'vipsthumbnail' else ', a process per photo'})"
            f" | {cell(values['cpu_per_image'], scale=1000)} |")
    out("\n## Memory (resident, all of a server's processes, MiB)\n")
    out("| server | idle at start | peak, cold c4 | peak, any cold load | 60 s after the load |")
    out("|---|---|---|---|---|")
    mib = 1 / 2**20
    for server in servers_in(results, "cold"):
        memory = results["memory"][server]
        peaks = [max(round_figures["peak_rss"] for round_figures in results["cold"][server][key])
                 for key in results["cold"][server]]
        out(f"| {server} | {memory['idle'] * mib:.0f} | "
            f"{cell(figures(results, 'cold', server, 'jpg c4', 'peak_rss'), scale=mib, digits=0)} | "
            f"{max(peaks) * mib:.0f} | {memory['after'] * mib:.0f} |")
    out("\n## Hits (wrk -t2 -c32, the thumbnails of the last cold round in turn)\n")
    out("| server | requests/s | p99 ms |")
    out("|---|---|---|")
    for server in servers_in(results, "warm"):
        out(f"| {server} | {cell(figures(results, 'warm', server, 'c32', 'per_second'), digits=0)} | "
            f"{cell(figures(results, 'warm', server, 'c32', 'p99_ms'), digits=2)} |")
    out("\n## A storm: 200 clients at once on one cold thumbnail\n")
    out("| server | time to the last answer, ms | one cold request alone, ms | origin requests | renders |")
    out("|---|---|---|---|---|")
    for server in servers_in(results, "storm"):
        storms = next(iter(results["storm"][server].values()))
        renders = [storm["renders"] for storm in storms]
        out(f"| {server} | {cell([s['max_ms'] for s in storms], digits=0)} | "
            f"{cell([s['single_ms'] for s in storms], digits=0)} | "
            f"{counts([s['origin_requests'] for s in storms])} | "
            f"{'not counted' if None in renders else counts(renders)} |")
    per_round = len(next(iter(results["storm"]["thumbd"].values()))[0]["storms_ms"])
    out(f"\nA round's figures are the medians of its {per_round} storms and of the {per_round} cold requests alone taken between them, each at a source path of its own; each client is a keep-alive connection of bench/storm-client.c, opened before the storm, on the same machine as the servers. `bench/storm` says where thumbd's storm time goes: the CPU of each process per storm (the render, the rest of thumbd, nginx, the client) and their sum over the cores, a floor under the time to the last answer, beside the same storm by curl.")
    for server in servers_in(results, "storm"):
        storms = next(iter(results["storm"][server].values()))
        out(f"\n{server}, each storm's last answer against the cold request alone before it, ms, round by round: "
            + "; ".join(", ".join(f"{last:.0f}/{single:.0f}" for last, single in zip(s["storms_ms"], s["singles_ms"]))
                        for s in storms) + ".")
    out("\n## Targets (issue 8), as ratios from this run\n")
    for line in targets(results):
        out(f"- {line}")
    out("")
    return "\n".join(lines)


def targets(results):
    def m(table, server, key, field):
        values = figures(results, table, server, key, field)
        return median(values) if values else None

    def verdict(ok):
        return "met" if ok else "**not met**"

    lines = []
    warm, ceiling = m("warm", "thumbd", "c32", "per_second"), m("warm", "plain nginx", "c32", "per_second")
    if warm and ceiling:
        # Each round measured both in the same slices of time: their ratio round by round, too.
        rounds = zip(figures(results, "warm", "thumbd", "c32", "per_second"),
                     figures(results, "warm", "plain nginx", "c32", "per_second"))
        paired = " / ".join(f"{mine / plain:.2f}" for mine, plain in rounds)
        lines.append(f"hits: thumbd {warm / ceiling:.2f}x plain nginx, round by round {paired} (target >= 0.95):"
                     f" {verdict(warm / ceiling >= 0.95)}")
    cold = m("cold", "thumbd", "jpg c4", "per_second")
    p99 = m("cold", "thumbd", "jpg c4", "p99_ms")
    peer_p99s = []
    for peer in PEERS:
        peer_cold = m("cold", peer, "jpg c4", "per_second")
        if peer_cold:
            lines.append(f"cold c4: thumbd {cold / peer_cold:.2f}x {peer}'s thumbnails/s (target >= 3.5):"
                         f" {verdict(cold / peer_cold >= 3.5)}")
            peer_p99s.append(m("cold", peer, "jpg c4", "p99_ms"))
    if peer_p99s:
        best = min(peer_p99s)
        lines.append(f"cold c4 p99: thumbd {p99 / best:.2f}x the best peer's (target <= 0.33): {verdict(p99 / best <= 0.33)}")
    cpu = m("cold", "thumbd", "jpg c4", "cpu_per_thumbnail")
    if "vipsthumbnail" in results["cli"]:
        vips = median(results["cli"]["vipsthumbnail"]["cpu_per_image"])
        lines.append(f"CPU per thumbnail: thumbd {cpu / vips:.2f}x vipsthumbnail's (target <= 0.75): {verdict(cpu / vips <= 0.75)}")
    peak = m("cold", "thumbd", "jpg c4", "peak_rss")
    thumbor_peak = m("cold", "thumbor", "jpg c4", "peak_rss")
    if thumbor_peak:
        lines.append(f"peak RSS at c4: thumbd {peak / thumbor_peak:.2f}x thumbor's (target <= 0.5): {verdict(peak / thumbor_peak <= 0.5)}")
    memory = results["memory"]["thumbd"]
    lines.append(f"RSS 60 s after the load: {memory['after'] / memory['idle']:.2f}x idle (target <= 1.5):"
                 f" {verdict(memory['after'] / memory['idle'] <= 1.5)}")
    storms = next(iter(results["storm"]["thumbd"].values()))
    last, single = median([s["max_ms"] for s in storms]), median([s["single_ms"] for s in storms])
    one_each = all(set(s["origin_requests"]) == {1} and s["renders"] is not None and set(s["renders"]) == {1}
                   for s in storms)
    lines.append(f"storm: {'1 origin request and 1 render' if one_each else 'more than 1 origin request or render'},"
                 f" last answer {last / single:.2f}x a single cold request (target <= 1.5):"
                 f" {verdict(one_each and last / single <= 1.5)}")
    return lines


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    levels = results["levels"]
    figure, (throughput, latency) = pyplot.subplots(1, 2, figsize=(11, 4.2))
    for server in servers_in(results, "cold"):
        throughput.plot(levels, [median(figures(results, "cold", server, f"jpg c{level}", "per_second"))
                                 for level in levels], marker="o", label=server)
        latency.plot(levels, [median(figures(results, "cold", server, f"jpg c{level}", "p99_ms"))
                              for level in levels], marker="o", label=server)
    throughput.set(title="Cold thumbnails per second", xlabel="concurrent clients", ylabel="thumbnails/s")
    latency.set(title="Cold p99 latency", xlabel="concurrent clients", ylabel="ms", yscale="log")
    for axes in (throughput, latency):
        axes.set_xscale("log", base=2)
        axes.set_xticks(levels, [str(level) for level in levels])
        axes.grid(alpha=0.3)
        axes.legend()
    figure.suptitle(f"300x200 fill, JPEG q80, {results['photos']} photos; median of the rounds")
    figure.tight_layout()
    figure.savefig(path, dpi=110)


COMMANDS = """`bench/run` on this machine (it installs wrk, libvips-tools, libnginx-mod-http-image-filter and
thumbor in a venv, fetches the photos with ../shared/corpus/fetch-photos, builds thumbd in release
mode). Everything listens on 127.0.0.1; one nginx serves the photos as the origin for every server.

- **thumbd**: `deploy/run` as shipped (nginx in front, thumbd over FastCGI, default settings);
  `/{signature}/rs:fill:300:200/q:80/plain/{origin}/{photo}@jpg` (and `@webp`).
- **thumbor** 7 from PyPI: `thumbor --processes 2` (one per core), file result storage, QUALITY 80,
  RESPECT_ORIENTATION; `/unsafe/300x200/{origin}/{photo}` (and `filters:format(webp)`).
- **image_filter**: nginx with `image_filter crop 300 200; image_filter_jpeg_quality 80` behind
  `proxy_cache` with `proxy_cache_lock on`.
- **plain nginx**: the files thumbd made, served from its cache directory at their paths by a static
  nginx (`open_file_cache`, no access log, one worker per core): the ceiling for a hit.
- **vipsthumbnail** `--size 300x200 --smartcrop centre` over every photo in one process, and
  **convert** `-define jpeg:size=600x400 -auto-orient -thumbnail 300x200^ -extent 300x200 -quality 80`
  once per photo.

Cold: every photo once per concurrency level, at a source path never used before
(`/origin/r{round}-{format}-c{level}/{photo}`); the origin's access log must show exactly one
request per thumbnail, thumbd's metrics one render per thumbnail, image_filter's cache header
MISS for each, else the run stops (bench/load.py, one keep-alive connection per client, each URL
once). CPU is user+sys of all of a server's processes (thumbd's includes its nginx) over the
level; memory is the sum of their resident sets, sampled every 50 ms. Hits: wrk -t2 -c32 over the last
round's thumbnails (each server's own, already stored; no render may happen), in slices of 2 s
taken in turn, five per server in a round: its requests over its slices' time, and the median of
their p99s. Before 3d146c9 each server had 10 s in one piece, and a slow spell of this shared
machine could fall on one server only: thumbd against plain nginx read 0.80 to 1.05 from one
10 s pair to the next, with the same configuration.
Storm: 200 keep-alive connections opened first by bench/storm-client.c (C, one epoll loop), then a
request on each at once for a thumbnail nobody asked for; the time from the first request to the
last whole answer. Before each storm, one cold request alone of the same thumbnail at another source
path, by the same client. A round takes 5 of each in turn, and its figures are their medians: one
storm's last answer spreads from 1.16x to 1.80x a single request from one storm to the next on this
machine, so one storm a round, as until efff530, left a round's figure to chance. Until 1f33973 the
storm was one curl opening 200 transfers at once (`--parallel --parallel-immediate`), each
connecting inside the storm: curl's own CPU then came to more than thumbd's and nginx's together,
on the same 2 cores."""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("figures")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--markdown")
    parser.add_argument("--plot")
    arguments = parser.parse_args()
    with open(arguments.figures) as source:
        results = json.load(source)
    if arguments.check:
        check(results)
        return
    if arguments.markdown:
        with open(arguments.markdown, "w") as out:
            out.write(markdown(results, COMMANDS))
    if arguments.plot:
        plot(results, arguments.plot)
    print("\n".join(targets(results)))


if __name__ == "__main__":
    main()
