"""bench/quality's measurement: renders, scores, ratios, targets, QUALITY.md and quality.png.

Each system's encodes are scored against its own lossless PNG of the same fill, so a difference
in resampling between thumbd and libvips is not counted against either encoder.

Bytes at equal score: for each photo and system, the (score, log bytes) points of its qualities
are joined by straight lines (sorted by quality, made monotone by the running maximum of the
score), and the bytes at score S are read off the line; a photo whose curve never reaches S is
left out for that S. The ratio at S is the geometric mean, over the photos both systems reach
S with, of thumbd's bytes over the other's.

WebP bytes are image data only: the VP8/VP8L/ALPH chunks, as libvips 8.14 writes metadata
chunks even with strip. JPEG, AVIF and JPEG XL bytes are whole files (all strip); AVIF and JPEG XL
are scored on their reference decoders' PNGs (avifdec, djxl), which the metric reads. A lossless WebP (thumbd's at
q100, as ImageMagick writes it) is left out of the curves: bytes at equal score compare lossy
encodes.
"""

import argparse
import math
import os
import re
import statistics
import struct
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

from reference_decoders import readable

from PIL import Image
from ssimulacra2 import compute_ssimulacra2

import quality_autoquality as autoquality

WIDTH, HEIGHT = 300, 200
QUALITIES = [40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100]
QUICK_QUALITIES = [60, 80, 95]
# AVIF and JPEG XL reach the scores compared (60 to 75) only at lower qualities than JPEG and WebP.
SCORED_LOW = {"avif", "jxl"}
LOW_QUALITIES = [20, 25, 30, 35]
QUICK_LOW_QUALITIES = [30]
QUICK_PHOTOS = 4
SCORES = [60, 70, 80]
FORMATS = ["jpeg", "webp", "avif", "jxl"]
EXTENSIONS = {"jpeg": "jpg", "webp": "webp", "avif": "avif", "jxl": "jxl"}
# libvips's settings beside Q: imgproxy's AVIF through libheif with libaom (the effort issue #45
# compares with), and JPEG XL at imgproxy's effort.
VIPS_OPTIONS = {"jpeg": "", "webp": "", "avif": "compression=av1,effort=4,", "jxl": "effort=4,"}
# Each format's reference encoder, at its defaults, on libvips's lossless fill.
REFERENCE = {"webp": "cwebp", "avif": "avifenc", "jxl": "cjxl"}
# The targets of issue #35. The worst score at q95 is JPEG's: WebP's chroma is 4:2:0 at every
# quality, and libvips's own WebP stays under it. Issue #35's median check is JPEG's and WebP's.
RATIO_TARGETS = {"jpeg": 0.92, "webp": 1.0, "avif": 0.75}
WORST_AT_95 = {"jpeg": 75}
MEDIAN_CHECKED = {"jpeg", "webp"}
# Issue #45's targets across formats, each the mean ratio over its scores: thumbd's AVIF against
# thumbd's WebP, thumbd's JPEG XL against thumbd's JPEG; AVIF's median score at q90; AVIF's
# render CPU against WebP's.
CROSS_TARGETS = [("avif", "webp", [60, 65, 70], 0.75), ("jxl", "jpeg", [65, 70, 75], 0.70)]
AVIF_MEDIAN_AT_90 = 80
AVIF_CPU_AGAINST_WEBP = 4.0
# Render CPU is compared at one quality of every format's grid: a lossless WebP (q100) alone costs
# more than the rest of its grid.
CPU_QUALITY = 80
COLOURS = {"thumbd": "tab:blue", "vips": "tab:orange", "cwebp": "tab:green", "avifenc": "tab:green",
           "cjxl": "tab:green"}


def render_thumbd(thumbd, photo, out, options, settings=None):
    """What `thumbd render` printed: the size, the chosen quality with autoquality, the CPU.
    `settings`: thumbd settings by name (AUTOQUALITY_DSSIM_SLOPE), as THUMBD_ variables."""
    environment = os.environ | {f"THUMBD_{name}": str(value) for name, value in (settings or {}).items()}
    return subprocess.run([thumbd, "render", "--options", f"rs:fill:{WIDTH}:{HEIGHT}/g:ce/{options}", str(photo),
                           str(out)], check=True, capture_output=True, text=True, env=environment).stdout


def render_vips(photo, out, save_options):
    subprocess.run(["vipsthumbnail", str(photo), "-s", f"{WIDTH}x{HEIGHT}", "-m", "centre",
                    "-o", f"{out}[{save_options}]"], check=True)


def render_reference(fmt, reference, out, quality):
    """`fmt`'s reference encoder at its defaults and `quality`: avifenc (0.11, no quality of its own)
    at libheif's mapping of it, as thumbd and libvips take it."""
    if fmt == "webp":
        command = ["cwebp", "-quiet", "-q", str(quality), "-metadata", "none", str(reference), "-o", str(out)]
    elif fmt == "avif":
        cq_level = ((100 - quality) * 63 + 50) // 100
        command = ["avifenc", "--min", "0", "--max", "63", "-a", "end-usage=q", "-a", f"cq-level={cq_level}",
                   str(reference), str(out)]
    else:
        command = ["cjxl", "-q", str(quality), str(reference), str(out)]
    subprocess.run(command, check=True, capture_output=True)


def score_pair(reference, encoded):
    return compute_ssimulacra2(reference, readable(encoded, f"{encoded}.png"))


def image_bytes(path):
    """(A WebP's VP8/VP8L/ALPH chunks, header and payload, else the whole file; whether lossless)."""
    data = Path(path).read_bytes()
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        return len(data), False
    total, offset, lossless = 0, 12, False
    while offset + 8 <= len(data):
        tag, size = data[offset:offset + 4], struct.unpack("<I", data[offset + 4:offset + 8])[0]
        padded = size + (size & 1)
        if tag in (b"VP8 ", b"VP8L", b"ALPH"):
            total += 8 + padded
        lossless = lossless or tag == b"VP8L"
        offset += 8 + padded
    return total, lossless


def photos_of(directory, quick):
    """The corpus's opaque images: a transparent one would be flattened on different colours."""
    found = []
    for path in sorted(Path(directory).iterdir()):
        if path.suffix.lower() not in (".jpg", ".jpeg", ".png", ".webp"):
            continue
        with Image.open(path) as image:
            if "A" in image.getbands() or "transparency" in image.info:
                continue
        found.append(path)
    return found[:QUICK_PHOTOS] if quick else found


def qualities_for(fmt, qualities):
    """`qualities`, with the lower ones AVIF and JPEG XL need to reach the scores compared."""
    if fmt not in SCORED_LOW:
        return qualities
    return (QUICK_LOW_QUALITIES if qualities == QUICK_QUALITIES else LOW_QUALITIES) + qualities


def render(args, photos, qualities):
    """Every encode and lossless reference, into args.work; {format: thumbd's render CPU in ms at
    CPU_QUALITY, summed over the photos}."""
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    jobs, thumbd_jobs = [], []
    for photo in photos:
        stem = work / photo.stem
        jobs.append(lambda p=photo, s=stem: render_thumbd(args.thumbd, p, f"{s}.thumbd.png", "f:png"))
        jobs.append(lambda p=photo, s=stem: render_vips(p, f"{s}.vips.png", "strip"))
        for fmt in FORMATS:
            ext = EXTENSIONS[fmt]
            for q in qualities_for(fmt, qualities):
                thumbd_jobs.append((fmt, q, lambda p=photo, s=stem, q=q, ext=ext:
                                    render_thumbd(args.thumbd, p, f"{s}.thumbd.q{q}.{ext}", f"q:{q}")))
                jobs.append(lambda p=photo, s=stem, q=q, ext=ext, fmt=fmt:
                            render_vips(p, f"{s}.vips.q{q}.{ext}", f"{VIPS_OPTIONS[fmt]}Q={q},strip"))
    run_all(jobs, args.jobs)
    outputs = run_all([job for *_, job in thumbd_jobs], args.jobs)
    cpu = {}
    for (fmt, q, _), output in zip(thumbd_jobs, outputs):
        if q == CPU_QUALITY:
            cpu[fmt] = cpu.get(fmt, 0.0) + float(re.search(r"CPU ([0-9.]+) ms", output).group(1))
    # The reference encoders read libvips's lossless fill, so they are scored against the same reference.
    run_all([lambda s=work / p.stem, q=q, fmt=fmt, tool=tool:
             render_reference(fmt, f"{s}.vips.png", f"{s}.{tool}.q{q}.{EXTENSIONS[fmt]}", q)
             for p in photos for fmt, tool in REFERENCE.items() for q in qualities_for(fmt, qualities)], args.jobs)
    return cpu


def score(work, photos, qualities, jobs):
    """{(system, format): {photo: [(quality, bytes, lossless, score)]}} for thumbd, vips and cwebp."""
    work = Path(work)
    systems = [(system, fmt) for fmt in FORMATS for system in ["thumbd", "vips"] + ([REFERENCE[fmt]] if fmt in REFERENCE else [])]
    tasks = []
    for system, fmt in systems:
        reference_system = "vips" if system in REFERENCE.values() else system
        for photo in photos:
            stem = work / photo.stem
            for q in qualities_for(fmt, qualities):
                tasks.append((system, fmt, photo.name, q, f"{stem}.{reference_system}.png",
                              f"{stem}.{system}.q{q}.{EXTENSIONS[fmt]}"))
    # The metric is numpy in Python: processes, not threads, use every core.
    with ProcessPoolExecutor(jobs) as pool:
        scores = list(pool.map(score_pair, [t[4] for t in tasks], [t[5] for t in tasks], chunksize=8))
    results = {}
    for (system, fmt, name, q, _, encoded), score in zip(tasks, scores):
        results.setdefault((system, fmt), {}).setdefault(name, []).append((q, *image_bytes(encoded), score))
    return results


def run_all(jobs, workers):
    with ThreadPoolExecutor(workers) as pool:
        return [future.result() for future in [pool.submit(job) for job in jobs]]


def bytes_at(curve, score):
    """Bytes at `score` on one photo's curve, interpolated in log bytes; None when not reached."""
    points, best = [], -math.inf
    for _, size, lossless, value in sorted(curve):
        if lossless:
            continue
        best = max(best, value)
        points.append((best, math.log(size)))
    for (s0, b0), (s1, b1) in zip(points, points[1:]):
        if s0 <= score <= s1:
            t = 0 if s1 == s0 else (score - s0) / (s1 - s0)
            return math.exp(b0 + t * (b1 - b0))
    return None


def ratio_at(ours, theirs, score):
    """(geometric mean of ours/theirs over the photos both reach `score` with, photos counted)."""
    logs = []
    for name in ours:
        a, b = bytes_at(ours[name], score), bytes_at(theirs.get(name, []), score)
        if a is not None and b is not None:
            logs.append(math.log(a / b))
    return (math.exp(sum(logs) / len(logs)) if logs else None), len(logs)


def reached(curves, score):
    return sum(1 for curve in curves.values() if max(v for _, _, lossless, v in curve if not lossless) >= score)


def per_quality(curves, q):
    points = [p for curve in curves.values() for p in curve if p[0] == q]
    return statistics.median(p[3] for p in points), min(p[3] for p in points), statistics.median(p[1] for p in points)


def report(results, qualities, photos):
    lines, failures = [], []
    count = len(photos)
    for fmt in FORMATS:
        ours, vips = results[("thumbd", fmt)], results[("vips", fmt)]
        others = [s for s, f in results if f == fmt and s != "thumbd"]
        lines += [f"### {fmt.upper()}", "",
                  "| q | " + " | ".join(f"{s} median / worst score, median bytes" for s in ["thumbd"] + others) + " |",
                  "| --- |" + " --- |" * (1 + len(others))]
        for q in qualities_for(fmt, qualities):
            cells = []
            for system in ["thumbd"] + others:
                median, worst, size = per_quality(results[(system, fmt)], q)
                cells.append(f"{median:.1f} / {worst:.1f}, {size:.0f} B")
            lines.append(f"| {q} | " + " | ".join(cells) + " |")
            if 40 <= q <= 95 and fmt in MEDIAN_CHECKED:
                ours_median, vips_median = per_quality(ours, q)[0], per_quality(vips, q)[0]
                if ours_median < vips_median:
                    failures.append(f"{fmt} q{q}: thumbd's median score {ours_median:.1f} < libvips's {vips_median:.1f}")
            if q == 95 and fmt in WORST_AT_95:
                worst = per_quality(ours, q)[1]
                if worst < WORST_AT_95[fmt]:
                    failures.append(f"{fmt} q95: thumbd's worst score {worst:.1f} < {WORST_AT_95[fmt]}")
        lines += ["", "| score | " + " | ".join(f"thumbd / {s} bytes (photos)" for s in others)
                  + " | " + " | ".join(f"photos reaching it: {s}" for s in ["thumbd"] + others) + " |",
                  "| --- |" + " --- |" * (2 * len(others) + 1)]
        for score in SCORES:
            cells = []
            for system in others:
                ratio, n = ratio_at(ours, results[(system, fmt)], score)
                cells.append(f"{ratio:.3f}x ({n})" if ratio else "-")
                if system == "vips" and fmt in RATIO_TARGETS and (ratio is None or ratio > RATIO_TARGETS[fmt]):
                    shown = f"{ratio:.3f}x" if ratio else "nothing to compare"
                    failures.append(f"{fmt} at score {score}: {shown} libvips's bytes, target {RATIO_TARGETS[fmt]}x")
            reach = [f"{reached(results[(s, fmt)], score)} of {count}" for s in ["thumbd"] + others]
            lines.append(f"| {score} | " + " | ".join(cells) + " | " + " | ".join(reach) + " |")
        lines.append("")
    return lines, failures


def report_across(results, qualities, cpu):
    """Issue #45's targets: thumbd's new formats against its own older ones, AVIF's median at q90
    and its CPU against WebP's."""
    lines = ["### Across formats (thumbd's own)", "",
             "| | " + " | ".join(f"score {s}" for s in [60, 65, 70, 75, 80]) + " | mean over the target's scores |",
             "| --- |" + " --- |" * 6]
    failures = []
    for fmt, against, scores, target in CROSS_TARGETS:
        cells = []
        for score in [60, 65, 70, 75, 80]:
            ratio, n = ratio_at(results[("thumbd", fmt)], results[("thumbd", against)], score)
            cells.append(f"{ratio:.3f}x ({n})" if ratio else "-")
        ratios = [ratio_at(results[("thumbd", fmt)], results[("thumbd", against)], s)[0] for s in scores]
        mean = statistics.mean(ratios) if None not in ratios else None
        summary = f"{mean:.3f}x at {scores[0]}-{scores[-1]} (target {target}x)" if mean else "-"
        lines.append(f"| {fmt.upper()} / {against.upper()} bytes | " + " | ".join(cells) + f" | {summary} |")
        if mean is None or mean > target:
            failures.append(f"{fmt} against {against} at {scores[0]}-{scores[-1]}: "
                            + (f"{mean:.3f}x" if mean else "nothing to compare") + f", target {target}x")
    lines.append("")
    for fmt in ["avif", "jxl"]:
        sizes = [per_quality(results[("thumbd", fmt)], q)[2] for q in qualities_for(fmt, qualities)]
        if any(b <= a for a, b in zip(sizes, sizes[1:])):
            failures.append(f"{fmt}: median bytes do not rise with q: {[round(s) for s in sizes]}")
    if 90 in qualities:
        median = per_quality(results[("thumbd", "avif")], 90)[0]
        lines.append(f"AVIF's median score at q90: {median:.1f} (target {AVIF_MEDIAN_AT_90}).")
        if median < AVIF_MEDIAN_AT_90:
            failures.append(f"avif q90: median score {median:.1f} < {AVIF_MEDIAN_AT_90}")
    cpu_lines = ", ".join(f"{fmt.upper()} {cpu[fmt] / cpu['webp']:.2f}x" for fmt in FORMATS)
    lines += [f"thumbd's render CPU at q{CPU_QUALITY} over every photo, against WebP's: {cpu_lines}.", ""]
    if cpu["avif"] / cpu["webp"] > AVIF_CPU_AGAINST_WEBP:
        failures.append(f"avif CPU {cpu['avif'] / cpu['webp']:.2f}x WebP's, target {AVIF_CPU_AGAINST_WEBP}x")
    return lines, failures


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(2, len(FORMATS) // 2, figsize=(11, 9))
    for axis, fmt in zip(axes.flat, FORMATS):
        for (system, f), curves in sorted(results.items()):
            if f != fmt:
                continue
            qualities = sorted({q for curve in curves.values() for q, *_ in curve})
            points = [per_quality(curves, q) for q in qualities]
            # cwebp's bytes are libvips's (one libwebp, the same settings): dashed over it.
            reference = system in REFERENCE.values()
            axis.plot([p[2] for p in points], [p[0] for p in points], marker="o", label=system,
                      color=COLOURS[system], linestyle="--" if reference else "-", zorder=3 if reference else 2)
            for q, p in zip(qualities, points):
                axis.annotate(str(q), (p[2], p[0]), fontsize=6, textcoords="offset points", xytext=(3, -8))
        axis.set_xscale("log")
        axis.set_xlabel("median bytes (WebP: image data)")
        axis.set_ylabel("median SSIMULACRA2")
        axis.set_title(f"{fmt.upper()}, {WIDTH}x{HEIGHT} fill, by quality")
        axis.grid(True, which="both", alpha=0.3)
        axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--thumbd", required=True)
    parser.add_argument("--photos", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--report", action="store_true", help="exit 0 whatever the targets say")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--markdown", default="bench/QUALITY.md")
    parser.add_argument("--plot", default="bench/quality.png")
    args = parser.parse_args()

    photos = photos_of(args.photos, args.quick)
    qualities = QUICK_QUALITIES if args.quick else QUALITIES
    cpu = render(args, photos, qualities)
    results = score(args.work, photos, qualities, args.jobs)
    lines, failures = report(results, qualities, photos)
    across_lines, across_failures = report_across(results, qualities, cpu)
    lines += across_lines
    failures += across_failures
    searched = ["jpeg", "webp"]
    measured = autoquality.measure(args, photos, qualities, searched, EXTENSIONS, results, render_thumbd, image_bytes)
    autoquality_lines, autoquality_failures = autoquality.report(measured, searched)
    lines += autoquality_lines
    failures += autoquality_failures
    print("\n".join(lines))
    for failure in failures:
        print(f"FAIL {failure}")
    print("targets: " + ("all met" if not failures else f"{len(failures)} missed"))
    if not args.quick:
        version = subprocess.run(["vips", "--version"], capture_output=True, text=True).stdout.strip()
        commit = subprocess.run(["git", "log", "-1", "--format=%h"], capture_output=True, text=True).stdout.strip()
        header = [f"# thumbd's encoders beside libvips's, by SSIMULACRA2", "",
                  f"Written by `bench/quality` at thumbd {commit}: {len(photos)} photos of the corpus ({', '.join(p.name for p in photos)}), "
                  f"each a {WIDTH}x{HEIGHT} fill, every encode scored against its own system's lossless PNG; "
                  f"{version}; cwebp encodes libvips's PNG. Method: bench/quality.py's docstring. "
                  "Plot: [quality.png](quality.png).", ""]
        Path(args.markdown).write_text("\n".join(header + lines
                                                 + [f"Targets: {'all met' if not failures else ''}"]
                                                 + [f"- missed: {f}" for f in failures]) + "\n")
        plot(results, args.plot)
    # Four photos at three qualities show whether the harness works; the targets need the full run.
    sys.exit(1 if failures and not (args.report or args.quick) else 0)


if __name__ == "__main__":
    main()
