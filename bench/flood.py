"""1,000 connections to nginx at once, half of them cold thumbnails, against real nginx + a
release thumbd on 127.0.0.1: no crash, every answer a thumbnail or 503 (Retry-After), thumbd's
threads and memory bounded.

    python3 bench/flood.py --thumbd .build/release/thumbd --photos DIR [--connections 1000]
"""

import argparse
import concurrent.futures
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from compare import Origin  # noqa: E402
from stack import Stack, get  # noqa: E402


def resources(pid):
    status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status") if ":" in line)
    return int(status["VmRSS"].split()[0]) // 1024, int(status["Threads"]), len(os.listdir(f"/proc/{pid}/fd"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--thumbd", required=True)
    parser.add_argument("--photos", required=True)
    parser.add_argument("--work", default="/tmp/thumbd-flood")
    parser.add_argument("--connections", type=int, default=1000)
    arguments = parser.parse_args()
    os.makedirs(arguments.work, exist_ok=True)
    photos = sorted(name for name in os.listdir(arguments.photos) if name.lower().endswith((".jpg", ".jpeg", ".png")))
    origin = Origin(arguments.work, arguments.photos)
    stack = Stack(arguments.work, os.path.abspath(arguments.thumbd))
    try:
        hits = [f"/insecure/rs:fill:150:100/plain/{origin.base}/flood/{photo}@webp" for photo in photos]
        for path in hits:
            get(stack.port, path)
        count = arguments.connections
        paths = [hits[i % len(hits)] if i % 2 else f"/insecure/rs:fill:{100 + i}:90/plain/{origin.base}/flood/{photos[i % len(photos)]}@jpg"
                 for i in range(count)]
        before = resources(stack.thumbd.pid)
        peak, done = list(before), threading.Event()

        def sample():
            while not done.wait(0.2):
                peak[:] = [max(a, b) for a, b in zip(peak, resources(stack.thumbd.pid))]

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
        print(f"  thumbd RSS {before[0]} -> peak {peak[0]} MiB, threads {before[1]} -> peak {peak[1]}, "
              f"descriptors {before[2]} -> peak {peak[2]}; still running: {alive}")
        outside = {status: n for status, n in counts.items() if status not in (200, 503)}
        failed = bool(outside) or not alive or peak[1] > before[1] + 8
        if outside:
            print(f"  FAILED: answers other than 200 and 503: {outside}")
        if peak[1] > before[1] + 8:
            print(f"  FAILED: thumbd's threads grew from {before[1]} to {peak[1]}")
        print("flood: passed" if not failed else "flood: failed")
        sys.exit(1 if failed else 0)
    finally:
        stack.stop()
        origin.stop()


if __name__ == "__main__":
    main()
