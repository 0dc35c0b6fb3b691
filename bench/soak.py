"""A soak: real nginx + a release thumbd + a good and a misbehaving origin on 127.0.0.1, under a
steady mixed load, with thumbd's memory, descriptors and threads sampled every few seconds.

    python3 bench/soak.py --thumbd .build/release/thumbd --photos DIR [--seconds 600] [--rate 40]

The load, per second, at `--rate` requests: hits, misses, a storm on one cold key every 10 s,
bad signatures, malformed options, unknown sources, and the misbehaving origin (a body trickled
a byte a second, a reset mid-body, an endless body, a redirect loop, an HTML page, a 500). Each
request has the statuses it may get (503 always: a full queue is the design's answer to load).
Passes when no answer is outside its set, no temp file is left, `thumbd cache verify` agrees,
thumbd rests once everything is answered (under 0.3 s of CPU in 3 idle seconds), and (runs of 3 minutes or more) RSS and descriptors are flat after the first minute: RSS grows
by less than 2 MiB a minute, and the fewest descriptors open in the last minute are no more
than in the second plus 8 (how many are open at an instant follows the requests in flight; a
leak raises the floor).
"""

import concurrent.futures
import glob
import http.server
import os
import random
import socket
import socketserver
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from compare import KEY, SALT, Origin, cpu_seconds, free_port, signed  # noqa: E402
from stack import Stack, get, parse_arguments, photo_names  # noqa: E402


class Misbehaving(http.server.BaseHTTPRequestHandler):
    """Every fault at a path of its own (the query is ignored, so each request can be a new source:
    `%3F` in a thumbnail URL is a `?` in its source)."""

    protocol_version = "HTTP/1.1"
    body = bytes(8192)

    def do_GET(self):
        path = self.path.split("?")[0]
        try:
            if path == "/trickle.jpg":
                self.head(200, len(self.body))
                for byte in self.body:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(1)
            elif path == "/reset.jpg":
                self.head(200, len(self.body))
                self.wfile.write(self.body[:4096])
                self.wfile.flush()
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
            elif path == "/endless.jpg":
                self.head(200, None)
                while True:
                    self.wfile.write(bytes(65536))
            elif path == "/loop":
                self.send_response(302)
                self.send_header("Location", self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif path == "/page.jpg":
                page = b"<!doctype html><p>an error page, served as 200"
                self.head(200, len(page), "text/html")
                self.wfile.write(page)
            else:
                self.head(500, 0)
        except OSError:
            self.close_connection = True

    def head(self, status, length, content_type="image/jpeg"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length is None:
            self.send_header("Connection", "close")
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(length))
        self.end_headers()

    def log_message(self, *arguments):
        pass


class MisbehavingOrigin(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

    def __init__(self):
        self.port = free_port()
        super().__init__(("127.0.0.1", self.port), Misbehaving)
        threading.Thread(target=self.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.port}"


class Load:
    """The mix: each kind makes a path and names the statuses it may get."""

    def __init__(self, origin, misbehaving, photos):
        self.origin, self.misbehaving, self.photos = origin, misbehaving, photos
        self.count = 0
        self.hits = [signed(f"/rs:fill:200:150/plain/{origin.base}/soak/{photo}@webp") for photo in photos]
        self.kinds = [  # (weight, name, make a path, allowed statuses)
            (30, "hit", lambda n: random.choice(self.hits), {200}),
            (30, "miss", lambda n: signed(f"/rs:fill:{100 + n % 400}:{100 + n // 400 % 300}/plain/{origin.base}/soak/{photos[n % len(photos)]}@jpg"), {200, 503}),
            (8, "bad signature", lambda n: f"/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/w:{n}/plain/{origin.base}/soak/{photos[0]}@png", {403}),
            (8, "malformed option", lambda n: signed(f"/rs:fill:x{n}/plain/{origin.base}/soak/{photos[0]}@png"), {404}),
            (8, "unknown source", lambda n: signed(f"/w:100/plain/{origin.base}/soak/missing-{n}.jpg@png"), {404, 503}),
            (2, "trickled body", lambda n: signed(f"/w:100/plain/{misbehaving.base}/trickle.jpg%3F{n}@png"), {504, 503}),
            (2, "reset mid-body", lambda n: signed(f"/w:100/plain/{misbehaving.base}/reset.jpg%3F{n}@png"), {502, 503}),
            (2, "endless body", lambda n: signed(f"/w:100/plain/{misbehaving.base}/endless.jpg%3F{n}@png"), {413, 503}),
            (2, "redirect loop", lambda n: signed(f"/w:100/plain/{misbehaving.base}/loop%3F{n}@png"), {502, 503}),
            (2, "HTML page", lambda n: signed(f"/w:100/plain/{misbehaving.base}/page.jpg%3F{n}@png"), {422, 503}),
            (2, "origin 500", lambda n: signed(f"/w:100/plain/{misbehaving.base}/error.jpg%3F{n}@png"), {502, 503}),
        ]
        self.weights = [kind[0] for kind in self.kinds]

    def next(self):
        self.count += 1
        _, name, make, allowed = random.choices(self.kinds, self.weights)[0]
        return name, make(self.count), allowed

    def storm(self, number):
        return "storm", signed(f"/rs:fill:333:{100 + number}/plain/{self.origin.base}/storm/{self.photos[number % len(self.photos)]}@webp"), {200, 503}


class Sampler:
    """thumbd's resident memory, open descriptors and threads, every `interval` seconds."""

    def __init__(self, stack, interval=5):
        self.stack, self.samples, self.stopped = stack, [], threading.Event()
        self.started = time.time()
        self.thread = threading.Thread(target=self.run, args=(interval,), daemon=True)
        self.thread.start()

    def run(self, interval):
        while not self.stopped.wait(interval):
            self.samples.append((time.time() - self.started, *self.stack.resources()))

    def stop(self):
        self.stopped.set()
        self.thread.join()

    def floor(self, column, start, end):
        """The smallest value of a column sampled between `start` and `end` seconds."""
        values = [sample[column] for sample in self.samples if start <= sample[0] < end]
        return min(values) if values else None

    def slope(self, column, after=60):
        """Least-squares growth per minute of a column, over the samples after `after` seconds."""
        points = [(sample[0], sample[column]) for sample in self.samples if sample[0] >= after]
        if len(points) < 3:
            return None
        mean_t = sum(t for t, _ in points) / len(points)
        mean_v = sum(v for _, v in points) / len(points)
        variance = sum((t - mean_t) ** 2 for t, _ in points)
        return 60 * sum((t - mean_t) * (v - mean_v) for t, v in points) / variance


def main():
    def options(parser):
        parser.add_argument("--seconds", type=int, default=600)
        parser.add_argument("--rate", type=int, default=40)

    arguments = parse_arguments("soak", options)
    photos = photo_names(arguments.photos)
    origin = Origin(arguments.work, arguments.photos)
    misbehaving = MisbehavingOrigin()
    stack = Stack(arguments.work, os.path.abspath(arguments.thumbd), {
        "THUMBD_KEY": KEY, "THUMBD_SALT": SALT, "THUMBD_DOWNLOAD_TIMEOUT": "3", "THUMBD_FIRST_BYTE_TIMEOUT": "2",
        "THUMBD_NOT_FOUND_CACHE_TTL": "1", "THUMBD_ERROR_CACHE_TTL": "1",
    })
    load = Load(origin, misbehaving, photos)
    for path in load.hits:
        get(stack.port, path)
    print(f"== soak: {arguments.seconds} s at {arguments.rate} requests/s against thumbd pid {stack.thumbd.pid}")
    sampler = Sampler(stack)
    answers, outside, lock = {}, [], threading.Lock()

    def ask(name, path, allowed):
        status, body = get(stack.port, path)
        with lock:
            answers[(name, status)] = answers.get((name, status), 0) + 1
            if status not in allowed:
                outside.append((name, status, path, body[:120] if isinstance(body, bytes) else body))

    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(256) as pool:
        sent, storms = 0, 0
        while (elapsed := time.time() - started) < arguments.seconds:
            if elapsed >= storms * 10:
                name, path, allowed = load.storm(storms)
                for _ in range(50):
                    pool.submit(ask, name, path, allowed)
                storms += 1
            while sent < elapsed * arguments.rate:
                pool.submit(ask, *load.next())
                sent += 1
            time.sleep(0.01)
    sampler.stop()
    time.sleep(1)
    # Once answered, thumbd rests: a thread that spins (one did, waiting for deadlines) shows here.
    idle_before = cpu_seconds([stack.thumbd.pid])
    time.sleep(3)
    idle_cpu = cpu_seconds([stack.thumbd.pid]) - idle_before
    temps = glob.glob(f"{stack.cache}/**/.thumbd-tmp-*", recursive=True)
    verify = stack.cache_command("verify")
    stack.stop()
    origin.stop()
    misbehaving.shutdown()

    total = sum(answers.values())
    print(f"  {total} requests in {arguments.seconds} s ({total / arguments.seconds:.1f}/s), {storms} storms of 50")
    for (name, status), count in sorted(answers.items(), key=lambda item: (item[0][0], str(item[0][1]))):
        print(f"  {name:18} {status}: {count}")
    first, last = sampler.samples[0], sampler.samples[-1]
    print(f"  thumbd RSS {first[1] // 1024} -> {last[1] // 1024} MiB, descriptors {first[2]} -> {last[2]}, "
          f"threads {first[3]} -> {last[3]} ({len(sampler.samples)} samples); CPU idle afterwards {idle_cpu:.2f} s in 3 s")
    rss_slope, fd_slope = sampler.slope(1), sampler.slope(2)
    fd_floors = (sampler.floor(2, 60, 120), sampler.floor(2, arguments.seconds - 60, arguments.seconds))
    if rss_slope is not None:
        print(f"  after the first minute: RSS {rss_slope / 1024:+.2f} MiB/min, descriptors {fd_slope:+.2f}/min; "
              f"fewest descriptors open in the second minute {fd_floors[0]}, in the last {fd_floors[1]}")
    failures = [f"{len(outside)} answers outside their expected statuses, e.g. {outside[:3]}"] if outside else []
    if temps:
        failures.append(f"temp files left: {temps[:3]}")
    if idle_cpu > 0.3:
        failures.append(f"thumbd used {idle_cpu:.2f} s of CPU in 3 s with nothing to do")
    if verify.returncode != 0:
        failures.append(f"cache verify: {verify.stdout}{verify.stderr}")
    if arguments.seconds >= 180 and rss_slope is not None and (rss_slope > 2048 or fd_floors[1] > fd_floors[0] + 8):
        failures.append(f"not flat: RSS {rss_slope / 1024:+.2f} MiB/min, descriptor floor {fd_floors[0]} -> {fd_floors[1]}")
    for failure in failures:
        print(f"  FAILED: {failure}")
    print("soak: passed" if not failures else "soak: failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
