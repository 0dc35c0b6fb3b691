"""1,000 connections to nginx at once, half of them cold thumbnails, against real nginx + a
release thumbd on 127.0.0.1: no crash, every answer a thumbnail or 503 (Retry-After), thumbd's
threads and memory bounded.

    python3 bench/flood.py --thumbd .build/release/thumbd --photos DIR [--connections 1000]
"""

import concurrent.futures
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from compare import Origin  # noqa: E402
from stack import Stack, get, parse_arguments, photo_names  # noqa: E402


def main():
    arguments = parse_arguments("flood", lambda parser: parser.add_argument("--connections", type=int, default=1000))
    photos = photo_names(arguments.photos)
    origin = Origin(arguments.work, arguments.photos)
    stack = Stack(arguments.work, os.path.abspath(arguments.thumbd))
    try:
        hits = [f"/insecure/rs:fill:150:100/plain/{origin.base}/flood/{photo}@webp" for photo in photos]
        for path in hits:
            get(stack.port, path)
        count = arguments.connections
        paths = [hits[i % len(hits)] if i % 2 else f"/insecure/rs:fill:{100 + i}:90/plain/{origin.base}/flood/{photos[i % len(photos)]}@jpg"
                 for i in range(count)]
        before = stack.resources()
        peak, done = list(before), threading.Event()

        def sample():
            while not done.wait(0.2):
                peak[:] = [max(a, b) for a, b in zip(peak, stack.resources())]

        sampler = threading.Thread(target=sample)
        sampler.start()
        barrier = threading.Barrier(count)

        def ask(path):
            barrier.wait()  # every connection opens at the same moment
            return get(stack.port, path)[0]

        started = time.time()
        with concurrent.futures.ThreadPoolExecutor(count) as pool:
            statuses = list(pool.map(ask, paths))
        seconds = time.time() - started
        done.set()
        sampler.join()
        alive = stack.thumbd.poll() is None
        counts = {}
        for status in statuses:
            counts[status] = counts.get(status, 0) + 1
        print(f"== {count} connections at once, half of them cold thumbnails: {seconds:.1f} s")
        print(f"  answers by status: {counts}")
        print(f"  thumbd RSS {before[0] // 1024} -> peak {peak[0] // 1024} MiB, threads {before[2]} -> peak {peak[2]}, "
              f"descriptors {before[1]} -> peak {peak[1]}; still running: {alive}")
        outside = {status: n for status, n in counts.items() if status not in (200, 503)}
        failed = bool(outside) or not alive or peak[2] > before[2] + 8
        if outside:
            print(f"  FAILED: answers other than 200 and 503: {outside}")
        if peak[2] > before[2] + 8:
            print(f"  FAILED: thumbd's threads grew from {before[2]} to {peak[2]}")
        print("flood: passed" if not failed else "flood: failed")
        sys.exit(1 if failed else 0)
    finally:
        stack.stop()
        origin.stop()


if __name__ == "__main__":
    main()
