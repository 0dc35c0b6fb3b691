"""bench/quality's autoquality rows (issue #35 part 3): aq:dssim over the corpus against fixed q80,
imgproxy's way (the lowest quality within a target) and spending by slope (AUTOQUALITY_DSSIM_SLOPE).

Calibration: every thumbd encode bench/quality scores with SSIMULACRA2 is made again through
`aq:dssim:1:q:q` (one encode at q, the same bytes, its DSSIM printed by `thumbd render`); the
Spearman rank correlation of DSSIM with SSIMULACRA2 over those encodes says whether thumbd's
DSSIM orders encodes as the independent metric does (it should be strongly negative).

Autoquality: each photo rendered with `aq:dssim:T:MIN:MAX:T/10` for each target T, without a
slope and with each of SLOPES, scored against thumbd's own lossless fill. The row kept is the
one with the fewest bytes whose median and worst SSIMULACRA2 are at least fixed q80's; its total
bytes over q80's, and its render CPU over a fixed-quality render's (each the least of REPEATS
renders, from the CPU `thumbd render` prints: the process's CPU from decode to encode, so the
ratio is an upper bound of a whole miss's, which adds the same fetch and store to both), are
checked against the issue's targets.

Bounds, with SSIMULACRA2 itself as the metric, over bench/quality's grid of qualities up to MAX
(JPEG at thumbd's default chroma), each at the setting with the fewest bytes that keeps q80's
median and worst:
- one target: each photo at the lowest quality that scores at least S. What any one target of
  any metric can save on this corpus.
- a trade: each photo at the quality with the least bytes − λ × score among those scoring at least
  a floor F. What any per-photo rule that weighs bytes against quality (the slope is one) can save.
- the corpus at once: every photo at the fewest bytes that reach q80's worst, and the half that
  cost least to lift lifted to q80's median. No per-request rule can choose so: each photo would
  need to know the others. What is left beyond it is encoder work, not choice of quality.
"""

import re
import statistics
from pathlib import Path
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

from ssimulacra2 import compute_ssimulacra2

FIXED = 80
BOUNDS = (40, 95)
TARGETS = [0.006, 0.008, 0.01, 0.012, 0.014, 0.016, 0.02]
QUICK_TARGETS = [0.008, 0.012]
# (AUTOQUALITY_DSSIM_SLOPE, targets): a slope's target is a ceiling, so laxer ones are its range.
SLOPES = [(40, [0.014, 0.016, 0.018, 0.02, 0.025]), (60, [0.02, 0.025]), (100, [0.01, 0.03])]
QUICK_SLOPES = [(40, [0.018])]
# A JPEG row of the slope with its chroma fixed at 4:4:4 (ssb:0), which searches one chroma, not two.
WHOLE_CHROMA = (40, 0.02, "/ssb:0")
REPEATS = 2
BYTES_TARGET = 0.80
CPU_TARGET = 2.5
RENDERED = re.compile(r"(?:autoquality q(?P<q>\d+)(?: (?P<chroma>4:\d:\d))? after (?P<encodes>\d+) encodes"
                      r"(?:, DSSIM (?P<dssim>[\d.]+)(?: on [\d.]+ MP)?)?, )?"
                      r"rendered in [\d.]+ ms \(CPU (?P<cpu>[\d.]+) ms\)")


def parsed(output):
    match = RENDERED.search(output)
    if not match:
        raise RuntimeError(f"thumbd render said: {output!r}")
    return {"cpu": float(match["cpu"]), "q": int(match["q"] or 0), "encodes": int(match["encodes"] or 0),
            "dssim": float(match["dssim"]) if match["dssim"] else None, "full_chroma": match["chroma"] == "4:4:4"}


def ranks(values):
    order = sorted(range(len(values)), key=values.__getitem__)
    result = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for index in order[start:end + 1]:
            result[index] = (start + end) / 2
        start = end + 1
    return result


def spearman(xs, ys):
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    return cov / (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5


def measure(args, photos, qualities, formats, extensions, results, render, size_of):
    """{fmt: {"spearman", "fixed": {photo: run}, "rows": {(slope, T, options): {photo: run}}}}; a run has bytes,
    score, cpu, q."""
    work = Path(args.work)
    rows = [(0, target, "") for target in (QUICK_TARGETS if args.quick else TARGETS)]
    rows += [(slope, target, "") for slope, targets in (QUICK_SLOPES if args.quick else SLOPES) for target in targets]
    jpeg_rows = rows + ([] if args.quick else [WHOLE_CHROMA])
    rows_of = {fmt: jpeg_rows if fmt == "jpeg" else rows for fmt in formats}
    jobs, calibration, runs = [], [], {}

    def job(key, photo, options, out, settings=None):
        def run():
            runs[key] = parsed(render(args.thumbd, photo, out, options, settings)) | {"out": out, "photo": photo}
        jobs.append(run)

    for photo in photos:
        stem = work / photo.stem
        for fmt in formats:
            ext = extensions[fmt]
            for q in qualities:
                calibration.append((fmt, photo.name, q))
                job(("cal", fmt, photo.name, q), photo, f"aq:dssim:1:{q}:{q}", f"{stem}.aqcal.q{q}.{ext}")
            for repeat in range(REPEATS):
                job(("fixed", fmt, photo.name, repeat), photo, f"q:{FIXED}", f"{stem}.aqfixed.{ext}")
            for row in rows_of[fmt]:
                slope, target, more = row
                for repeat in range(REPEATS):
                    options = f"aq:dssim:{target}:{BOUNDS[0]}:{BOUNDS[1]}:{target / 10}{more}"
                    job(("aq", fmt, photo.name, row, repeat), photo, options,
                        f"{stem}.aq{target}.s{slope}{more.replace('/', '.').replace(':', '')}.{ext}",
                        {"AUTOQUALITY_DSSIM_SLOPE": slope})
    # CPU time is each process's own: renders may run side by side.
    with ThreadPoolExecutor(args.jobs) as pool:
        for future in [pool.submit(j) for j in jobs]:
            future.result()

    scored = [key for key in runs if key[0] == "aq" and key[-1] == 0]
    with ProcessPoolExecutor(args.jobs) as pool:
        scores = list(pool.map(compute_ssimulacra2, [f"{work / runs[k]['photo'].stem}.thumbd.png" for k in scored],
                               [runs[k]["out"] for k in scored], chunksize=4))
    score_of = dict(zip(scored, scores))

    measured = {}
    for fmt in formats:
        # A curve's points are (quality, bytes, lossless, score).
        fixed_scores = {name: s for name, curve in results[("thumbd", fmt)].items() for q, _, _, s in curve if q == FIXED}
        fixed_bytes = {name: b for name, curve in results[("thumbd", fmt)].items() for q, b, _, _ in curve if q == FIXED}
        pairs = [(runs[("cal", fmt, name, q)]["dssim"], s) for (f, name, q) in calibration if f == fmt
                 for cq, _, _, s in results[("thumbd", fmt)][name] if cq == q]
        entry = {"curves": results[("thumbd", fmt)], "spearman": spearman([p[0] for p in pairs], [p[1] for p in pairs]), "encodes": len(pairs),
                 "fixed": {name: {"bytes": fixed_bytes[name], "score": fixed_scores[name],
                                  "cpu": min(runs[("fixed", fmt, name, r)]["cpu"] for r in range(REPEATS)), "q": FIXED}
                           for name in fixed_scores}}
        entry["rows"] = {row: {name: {"bytes": size_of(runs[("aq", fmt, name, row, 0)]["out"])[0],
                                      "score": score_of[("aq", fmt, name, row, 0)],
                                      "cpu": min(runs[("aq", fmt, name, row, r)]["cpu"] for r in range(REPEATS)),
                                      "q": runs[("aq", fmt, name, row, 0)]["q"],
                                      "encodes": runs[("aq", fmt, name, row, 0)]["encodes"],
                                      "full_chroma": runs[("aq", fmt, name, row, 0)]["full_chroma"]}
                               for name in fixed_scores}
                         for row in rows_of[fmt]}
        measured[fmt] = entry
    return measured


def summary(runs):
    scores = [r["score"] for r in runs.values()]
    return {"median": statistics.median(scores), "worst": min(scores), "bytes": sum(r["bytes"] for r in runs.values()),
            "cpu": sum(r["cpu"] for r in runs.values()), "q": statistics.fmean(r["q"] for r in runs.values()),
            "encodes": statistics.fmean(r.get("encodes", 1) for r in runs.values()),
            "full_chroma": sum(r.get("full_chroma", False) for r in runs.values())}


def kept_setting(candidates, fixed):
    """(setting, bytes ratio, median, worst) of the candidate (setting, picks) with the fewest bytes
    that keeps q80's median and worst, or None."""
    best = None
    for setting, picks in candidates:
        median, worst = statistics.median(p[3] for p in picks), min(p[3] for p in picks)
        ratio = sum(p[1] for p in picks) / fixed["bytes"]
        if median >= fixed["median"] and worst >= fixed["worst"] and (best is None or ratio < best[1]):
            best = (setting, ratio, median, worst)
    return best


def one_target_bound(curves, fixed):
    def picks(target):
        return [next((p for p in curve if p[3] >= target), curve[-1]) for curve in curves]
    return kept_setting(((target, picks(target)) for target in range(30, 96)), fixed)


def trade_bound(curves, fixed):
    lambdas = [round(10 * 1.05 ** step) for step in range(130)]  # 10 to about 5,600 bytes a point

    def picks(floor, weight):
        return [min([p for p in curve if p[3] >= floor] or curve[-1:], key=lambda p: p[1] - weight * p[3])
                for curve in curves]
    return kept_setting((((floor, weight), picks(floor, weight)) for floor in range(30, 96) for weight in lambdas), fixed)


def corpus_bound(curves, fixed):
    """Bytes ratio of the cheapest choice over the whole corpus, or None if a photo cannot reach q80's worst."""
    low, lift = [], []
    for curve in curves:
        reaching_worst = [p[1] for p in curve if p[3] >= fixed["worst"]]
        if not reaching_worst:
            return None
        low.append(min(reaching_worst))
        lift.append(min((p[1] for p in curve if p[3] >= fixed["median"]), default=float("inf")) - low[-1])
    return (sum(low) + sum(sorted(lift)[:len(low) // 2 + 1])) / fixed["bytes"]


def bounds_line(curves, fixed):
    # Each photo's points up to MAX, by quality.
    sorted_curves = [sorted(point for point in curve if point[0] <= BOUNDS[1]) for curve in curves.values()]
    one, trade, whole = (bound(sorted_curves, fixed) for bound in (one_target_bound, trade_bound, corpus_bound))
    missing = f"none keeps q{FIXED}'s median and worst"
    return ("Bounds with SSIMULACRA2 itself as the metric, in q80's bytes (bench/quality_autoquality.py's "
            "docstring): one target " + (f"{one[1]:.3f}x (S = {one[0]})" if one else missing)
            + "; a trade " + (f"{trade[1]:.3f}x (floor {trade[0][0]}, λ {trade[0][1]} bytes a point)" if trade else missing)
            + "; the corpus at once " + (f"{whole:.3f}x." if whole else "out of reach."))


def row_name(row):
    slope, target, more = row
    return f"dssim {target}" + (f", slope {slope}" if slope else "") + (f", {more.lstrip('/')}" if more else "")


def report(measured, formats):
    lines, failures = ["### Autoquality", "",
                       f"`aq:dssim:T:{BOUNDS[0]}:{BOUNDS[1]}:T/10` against fixed q{FIXED}, with "
                       "`AUTOQUALITY_DSSIM_SLOPE` where a slope is named; CPU is render CPU, the least of "
                       f"{REPEATS} renders, summed over the photos. Kept: the fewest bytes that keep q{FIXED}'s "
                       "median and worst.", ""], []
    for fmt in formats:
        entry = measured[fmt]
        fixed = summary(entry["fixed"])
        lines += [f"{fmt.upper()}: Spearman correlation of thumbd's DSSIM with SSIMULACRA2 over {entry['encodes']} "
                  f"encodes: {entry['spearman']:.3f}", "",
                  "| run | median / worst score | bytes (x q80) | CPU (x q80) | mean q, encodes"
                  + (", 4:4:4 photos |" if fmt == "jpeg" else " |"),
                  "| --- | --- | --- | --- | --- |",
                  f"| q{FIXED} | {fixed['median']:.1f} / {fixed['worst']:.1f} | {fixed['bytes']} | "
                  f"{fixed['cpu']:.0f} ms | {FIXED}, 1 |"]
        kept = None
        for row in sorted(entry["rows"]):
            run = summary(entry["rows"][row])
            meets = run["median"] >= fixed["median"] and run["worst"] >= fixed["worst"]
            if meets and (kept is None or run["bytes"] < kept[1]["bytes"]):
                kept = (row, run)
            lines.append(f"| {row_name(row)} | {run['median']:.1f} / {run['worst']:.1f}{' (>= q80)' if meets else ''} | "
                         f"{run['bytes']} ({run['bytes'] / fixed['bytes']:.3f}x) | "
                         f"{run['cpu']:.0f} ms ({run['cpu'] / fixed['cpu']:.2f}x) | {run['q']:.1f}, {run['encodes']:.1f}"
                         + (f", {run['full_chroma']} |" if fmt == "jpeg" else " |"))
        lines += ["", bounds_line(entry["curves"], fixed)]
        if kept is None:
            failures.append(f"{fmt} autoquality: no row keeps q{FIXED}'s median and worst score")
        else:
            row, run = kept
            bytes_ratio, cpu_ratio = run["bytes"] / fixed["bytes"], run["cpu"] / fixed["cpu"]
            lines += ["", f"Kept: {row_name(row)}: {bytes_ratio:.3f}x q{FIXED}'s bytes (target {BYTES_TARGET}x), "
                          f"{cpu_ratio:.2f}x its CPU (target {CPU_TARGET}x)."]
            if bytes_ratio > BYTES_TARGET:
                failures.append(f"{fmt} autoquality {row_name(row)}: {bytes_ratio:.3f}x q{FIXED}'s bytes, "
                                f"target {BYTES_TARGET}x")
            if cpu_ratio > CPU_TARGET:
                failures.append(f"{fmt} autoquality {row_name(row)}: {cpu_ratio:.2f}x q{FIXED}'s CPU, "
                                f"target {CPU_TARGET}x")
        lines.append("")
    return lines, failures
