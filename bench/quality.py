"""bench/quality's measurement: renders, scores, ratios, targets, QUALITY.md and quality.png.

Each system's encodes are scored against its own lossless PNG of the same fill, so a difference
in resampling between thumbd and libvips is not counted against either encoder.

Bytes at equal score: for each photo and system, the (score, log bytes) points of its qualities
are joined by straight lines (sorted by quality, made monotone by the running maximum of the
score), and the bytes at score S are read off the line; a photo whose curve never reaches S is
left out for that S. The ratio at S is the geometric mean, over the photos both systems reach
S with, of thumbd's bytes over the other's.

WebP bytes are image data only: the VP8/VP8L/ALPH chunks, as libvips 8.14 writes metadata
chunks even with strip. JPEG bytes are whole files (both strip). A lossless WebP (thumbd's at
q100, as ImageMagick writes it) is left out of the curves: bytes at equal score compare lossy
encodes.
"""

import argparse
import math
import os
import statistics
import struct
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

from PIL import Image
from ssimulacra2 import compute_ssimulacra2

import quality_autoquality as autoquality

WIDTH, HEIGHT = 300, 200
QUALITIES = [40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100]
QUICK_QUALITIES = [60, 80, 95]
QUICK_PHOTOS = 4
SCORES = [60, 70, 80]
FORMATS = ["jpeg", "webp"]
EXTENSIONS = {"jpeg": "jpg", "webp": "webp"}
# The targets of issue #35. The worst score at q95 is JPEG's: WebP's chroma is 4:2:0 at every
# quality, and libvips's own WebP stays under it.
RATIO_TARGETS = {"jpeg": 0.92, "webp": 1.0}
WORST_AT_95 = {"jpeg": 75}
COLOURS = {"thumbd": "tab:blue", "vips": "tab:orange", "cwebp": "tab:green"}


def render_thumbd(thumbd, photo, out, options, settings=None):
    """What `thumbd render` printed: the size, the chosen quality with autoquality, the CPU.
    `settings`: thumbd settings by name (AUTOQUALITY_DSSIM_SLOPE), as THUMBD_ variables."""
    environment = os.environ | {f"THUMBD_{name}": str(value) for name, value in (settings or {}).items()}
    return subprocess.run([thumbd, "render", "--options", f"rs:fill:{WIDTH}:{HEIGHT}/g:ce/{options}", str(photo),
                           str(out)], check=True, capture_output=True, text=True, env=environment).stdout


def render_vips(photo, out, save_options):
    subprocess.run(["vipsthumbnail", str(photo), "-s", f"{WIDTH}x{HEIGHT}", "-m", "centre",
                    "-o", f"{out}[{save_options}]"], check=True)


def render_cwebp(reference, out, quality):
    subprocess.run(["cwebp", "-quiet", "-q", str(quality), "-metadata", "none", str(reference), "-o", str(out)],
                   check=True)


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


def render(args, photos, qualities):
    """Every encode and lossless reference, into args.work."""
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    jobs = []
    for photo in photos:
        stem = work / photo.stem
        jobs.append(lambda p=photo, s=stem: render_thumbd(args.thumbd, p, f"{s}.thumbd.png", "f:png"))
        jobs.append(lambda p=photo, s=stem: render_vips(p, f"{s}.vips.png", "strip"))
        for fmt in FORMATS:
            ext = EXTENSIONS[fmt]
            for q in qualities:
                jobs.append(lambda p=photo, s=stem, q=q, ext=ext:
                            render_thumbd(args.thumbd, p, f"{s}.thumbd.q{q}.{ext}", f"q:{q}"))
                jobs.append(lambda p=photo, s=stem, q=q, ext=ext:
                            render_vips(p, f"{s}.vips.q{q}.{ext}", f"Q={q},strip"))
    run_all(jobs, args.jobs)
    # cwebp reads libvips's lossless fill, so it is scored against the same reference.
    run_all([lambda s=work / p.stem, q=q: render_cwebp(f"{s}.vips.png", f"{s}.cwebp.q{q}.webp", q)
             for p in photos for q in qualities], args.jobs)


def score(work, photos, qualities, jobs):
    """{(system, format): {photo: [(quality, bytes, lossless, score)]}} for thumbd, vips and cwebp."""
    work = Path(work)
    systems = [("thumbd", "jpeg"), ("vips", "jpeg"), ("thumbd", "webp"), ("vips", "webp"), ("cwebp", "webp")]
    tasks = []
    for system, fmt in systems:
        reference_system = "vips" if system == "cwebp" else system
        for photo in photos:
            stem = work / photo.stem
            for q in qualities:
                tasks.append((system, fmt, photo.name, q, f"{stem}.{reference_system}.png",
                              f"{stem}.{system}.q{q}.{EXTENSIONS[fmt]}"))
    # The metric is numpy in Python: processes, not threads, use every core.
    with ProcessPoolExecutor(jobs) as pool:
        scores = list(pool.map(compute_ssimulacra2, [t[4] for t in tasks], [t[5] for t in tasks], chunksize=8))
    results = {}
    for (system, fmt, name, q, _, encoded), score in zip(tasks, scores):
        results.setdefault((system, fmt), {}).setdefault(name, []).append((q, *image_bytes(encoded), score))
    return results


def run_all(jobs, workers):
    with ThreadPoolExecutor(workers) as pool:
        for future in [pool.submit(job) for job in jobs]:
            future.result()


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
        for q in qualities:
            cells = []
            for system in ["thumbd"] + others:
                median, worst, size = per_quality(results[(system, fmt)], q)
                cells.append(f"{median:.1f} / {worst:.1f}, {size:.0f} B")
            lines.append(f"| {q} | " + " | ".join(cells) + " |")
            if 40 <= q <= 95:
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
                if system == "vips" and (ratio is None or ratio > RATIO_TARGETS[fmt]):
                    shown = f"{ratio:.3f}x" if ratio else "nothing to compare"
                    failures.append(f"{fmt} at score {score}: {shown} libvips's bytes, target {RATIO_TARGETS[fmt]}x")
            reach = [f"{reached(results[(s, fmt)], score)} of {count}" for s in ["thumbd"] + others]
            lines.append(f"| {score} | " + " | ".join(cells) + " | " + " | ".join(reach) + " |")
        lines.append("")
    return lines, failures


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(1, len(FORMATS), figsize=(11, 4.5))
    for axis, fmt in zip(axes, FORMATS):
        for (system, f), curves in sorted(results.items()):
            if f != fmt:
                continue
            qualities = sorted({q for curve in curves.values() for q, *_ in curve})
            points = [per_quality(curves, q) for q in qualities]
            # cwebp's bytes are libvips's (one libwebp, the same settings): dashed over it.
            axis.plot([p[2] for p in points], [p[0] for p in points], marker="o", label=system,
                      color=COLOURS[system], linestyle="--" if system == "cwebp" else "-",
                      zorder=3 if system == "cwebp" else 2)
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
    render(args, photos, qualities)
    results = score(args.work, photos, qualities, args.jobs)
    lines, failures = report(results, qualities, photos)
    measured = autoquality.measure(args, photos, qualities, FORMATS, EXTENSIONS, results, render_thumbd, image_bytes)
    autoquality_lines, autoquality_failures = autoquality.report(measured, FORMATS)
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
