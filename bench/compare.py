#!/usr/bin/env python3
"""thumbd beside the servers a site would pick instead, measured in one run on the same photos and
the same thumbnails (300x200 fill, JPEG q80, and WebP). bench/run installs what this needs and
calls it; see bench/RESULTS.md for what each figure means.

    compare.py --work DIR --photos DIR [--quick] [--rounds N] [--results FILE]

Every server runs on 127.0.0.1 behind its own port; one nginx is the origin for all of them, and
its access log proves each cold request a real miss (one origin fetch per thumbnail, fresh source
paths every round, no URL asked twice)."""

import argparse
import base64
import hashlib
import hmac
import json
import os
import platform
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
WIDTH, HEIGHT, QUALITY = 300, 200, 80
# Storms in each round, each after a cold request alone: one storm's last answer spreads from
# 1.16x to 1.80x a single request on this shared machine, so a round gives the medians of 5 of each.
STORMS = 5
# Slices of 2 s of hits for each server in each round, taken in turn.
WARM_SLICES = 5
FORMATS = {"jpg": "JPEG q80", "webp": "WebP q80"}
IMAGE_FILTER_MODULE = "/usr/lib/nginx/modules/ngx_http_image_filter_module.so"
KEY = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
SALT = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
METRICS_TOKEN = "bench-metrics-token-7d1e0b"
TICKS = os.sysconf("SC_CLK_TCK")


# --- processes: CPU time and memory of a server's whole process tree -------------------------

def process_tree(root):
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    tree, frontier = [root], [root]
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier]
        tree += children
        frontier = children
    return tree


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError):
            pass
    return total / TICKS


def rss_bytes(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as status:
                match = re.search(r"^VmRSS:\s+(\d+) kB", status.read(), re.M)
            total += int(match.group(1)) * 1024 if match else 0
        except OSError:
            pass
    return total


class PeakRSS:
    """Samples a process tree's resident memory every 50 ms while a load runs."""

    def __init__(self, pids):
        self.pids, self.peak, self.running = pids, rss_bytes(pids), True
        self.thread = threading.Thread(target=self.sample)
        self.thread.start()

    def sample(self):
        while self.running:
            self.peak = max(self.peak, rss_bytes(self.pids))
            time.sleep(0.05)

    def stop(self):
        self.running = False
        self.thread.join()
        return self.peak


# --- the servers ------------------------------------------------------------------------------

def signed(path):
    """The path with its signature in front, as `thumbd sign` prints it with KEY and SALT."""
    digest = hmac.new(bytes.fromhex(KEY), bytes.fromhex(SALT) + path.encode(), hashlib.sha256).digest()
    return f"/{base64.urlsafe_b64encode(digest).rstrip(b'=').decode()}{path}"


_HANDED_OUT = set()


def free_port():
    """A free port below the kernel's ephemeral range: a port bound to 0 is in that range, and an
    outgoing connection could take it before the server that is handed it binds it."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as ports:
        below = max(int(ports.read().split()[0]), 10_001)
    for _ in range(200):
        port = random.randrange(10_000, below)
        if port in _HANDED_OUT:
            continue
        _HANDED_OUT.add(port)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
                return port
            except OSError:
                pass
    raise RuntimeError(f"no free port below {below}")


def wait_until(url, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    sys.exit(f"compare.py: {url} did not answer within {seconds} s")


NGINX_MAIN = """worker_processes {workers};
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
{modules}
events {{ worker_connections 4096; }}
http {{
    access_log {access_log};
    sendfile on;
    tcp_nopush on;
    client_body_temp_path {dir}/tmp/body;
    proxy_temp_path {dir}/tmp/proxy;
    fastcgi_temp_path {dir}/tmp/fastcgi;
    uwsgi_temp_path {dir}/tmp/uwsgi;
    scgi_temp_path {dir}/tmp/scgi;
    types {{ image/jpeg jpg jpeg; image/png png; image/webp webp; }}
{servers}
}}
"""


class Nginx:
    """An nginx of its own in a directory of its own."""

    def __init__(self, directory, servers, workers="auto", access_log="off", modules=""):
        self.dir = directory
        os.makedirs(f"{directory}/tmp", exist_ok=True)
        # nginx's master makes its temp paths in tmp, 0700 and its workers' (a directory they
        # could write to would let them plant a link the master follows when it hands those over).
        os.chmod(directory, 0o755)
        os.chmod(f"{directory}/tmp", 0o755)
        with open(f"{directory}/nginx.conf", "w") as conf:
            conf.write(NGINX_MAIN.format(dir=directory, workers=workers, access_log=access_log,
                                         modules=modules, servers=servers))
        self.process = subprocess.Popen(["nginx", "-p", directory, "-c", f"{directory}/nginx.conf",
                                         "-g", "daemon off;"], start_new_session=True)

    def stop(self):
        self.process.terminate()
        self.process.wait()


class Origin(Nginx):
    """Serves the photos at /origin/{prefix}/{photo} for any prefix, logging every request."""

    def __init__(self, work, photos):
        self.port = free_port()
        self.log = f"{work}/origin/access.log"
        shutil.rmtree(f"{work}/origin", ignore_errors=True)
        super().__init__(f"{work}/origin", f"""
    log_format path '$request_uri';
    server {{
        listen 127.0.0.1:{self.port};
        access_log {self.log} path;
        location ~ ^/origin/[^/]+/(?<photo>[^/]+)$ {{ alias {photos}/$photo; }}
    }}""")
        self.base = f"http://127.0.0.1:{self.port}/origin"
        wait_until(f"{self.base}/ready/{sorted(os.listdir(photos))[0]}")

    def requests(self, prefix):
        """How many times the origin was asked for a photo under /origin/{prefix}/."""
        with open(self.log) as log:
            return sum(1 for line in log if line.startswith(f"/origin/{prefix}/"))


class Thumbd:
    """thumbd as deploy/run starts it: nginx in front, thumbd behind it over FastCGI."""

    name = "thumbd"

    def __init__(self, work, origin):
        self.origin, self.port, self.run_dir = origin, free_port(), f"{work}/thumbd"
        shutil.rmtree(self.run_dir, ignore_errors=True)
        environment = dict(os.environ, THUMBD_HTTP_PORT=str(self.port), THUMBD_RUN_DIR=self.run_dir,
                           THUMBD_KEY=KEY, THUMBD_SALT=SALT, THUMBD_METRICS_TOKEN=METRICS_TOKEN)
        self.output = open(f"{work}/thumbd-deploy.log", "w")
        self.process = subprocess.Popen([f"{ROOT}/deploy/run"], env=environment, stdout=self.output,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        self.base = f"http://127.0.0.1:{self.port}"
        wait_until(f"{self.base}/health", 600)
        self.pids = [pid for pid in process_tree(self.process.pid) if pid != self.process.pid]

    def url(self, prefix, photo, fmt):
        return self.base + signed(f"/rs:fill:{WIDTH}:{HEIGHT}/q:{QUALITY}/plain/{self.origin.base}/{prefix}/{photo}@{fmt}")

    def renders(self):
        scrape = urllib.request.Request(f"{self.base}/_thumbd/metrics",
                                        headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        with urllib.request.urlopen(scrape) as answer:
            text = answer.read().decode()
        return int(float(re.search(r"^thumbd_thumbnail_jobs_total (\S+)", text, re.M).group(1)))

    def stop(self):
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait()
        self.output.close()


THUMBOR_CONF = """
QUALITY = {quality}
RESPECT_ORIENTATION = True
ALLOW_UNSAFE_URL = True
RESULT_STORAGE = 'thumbor.result_storages.file_storage'
RESULT_STORAGE_FILE_STORAGE_ROOT_PATH = '{dir}/result'
RESULT_STORAGE_STORES_UNSAFE = True
FILE_STORAGE_ROOT_PATH = '{dir}/storage'
MAX_AGE = 86400
"""


class Thumbor:
    """thumbor from PyPI with file result storage, one process per core."""

    name = "thumbor"

    def __init__(self, work, origin, venv):
        self.origin, self.port, directory = origin, free_port(), f"{work}/thumbor"
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
        with open(f"{directory}/thumbor.conf", "w") as conf:
            conf.write(THUMBOR_CONF.format(quality=QUALITY, dir=directory))
        self.process = subprocess.Popen([f"{venv}/bin/thumbor", "--ip", "127.0.0.1", "--port", str(self.port),
                                         "--conf", f"{directory}/thumbor.conf", "--processes", str(os.cpu_count()),
                                         "--log-level", "error"], start_new_session=True)
        self.base = f"http://127.0.0.1:{self.port}"
        wait_until(f"{self.base}/healthcheck")
        time.sleep(1)  # the forked processes
        self.pids = process_tree(self.process.pid)

    def url(self, prefix, photo, fmt):
        filters = "filters:format(webp)/" if fmt == "webp" else ""
        return f"{self.base}/unsafe/{WIDTH}x{HEIGHT}/{filters}{self.origin.base[len('http://'):]}/{prefix}/{photo}"

    def renders(self):
        return None

    def stop(self):
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait()


class ImageFilter(Nginx):
    """nginx's image_filter (GD) behind proxy_cache, as the nginx docs suggest: a caching front
    server and a filtering back server. It cannot change an image's format, so no WebP."""

    name = "image_filter"

    def __init__(self, work, origin):
        self.port, self.back_port = free_port(), free_port()
        directory = f"{work}/image_filter"
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)  # nginx's master makes the cache directory, 0700 and its workers'
        self.back_log = f"{directory}/back.log"
        super().__init__(directory, f"""
    log_format path '$request_uri';
    proxy_cache_path {directory}/cache levels=1:2 keys_zone=thumbnails:10m max_size=1g inactive=1d use_temp_path=off;
    server {{
        listen 127.0.0.1:{self.port};
        location / {{
            proxy_pass http://127.0.0.1:{self.back_port};
            proxy_cache thumbnails;
            proxy_cache_valid 200 1d;
            proxy_cache_lock on;
            proxy_cache_lock_timeout 60s;
            add_header X-Cache-Status $upstream_cache_status;
        }}
    }}
    server {{
        listen 127.0.0.1:{self.back_port};
        access_log {self.back_log} path;
        location ~ ^/fill/(?<source>.+)$ {{
            proxy_pass {origin.base}/$source;
            image_filter crop {WIDTH} {HEIGHT};
            image_filter_jpeg_quality {QUALITY};
            image_filter_buffer 64M;
        }}
    }}""", modules=f"load_module {IMAGE_FILTER_MODULE};")
        self.base = f"http://127.0.0.1:{self.port}"
        open(self.back_log, "a").close()
        time.sleep(0.5)
        self.pids = process_tree(self.process.pid)

    def url(self, prefix, photo, fmt):
        return f"{self.base}/fill/{prefix}/{photo}" if fmt == "jpg" else None

    def renders(self):
        with open(self.back_log) as log:
            return sum(1 for _ in log)


class StaticCeiling(Nginx):
    """Plain nginx serving the thumbnails thumbd made at the very paths of the requests for them
    (hard links to thumbd's files, in a tree of their own), tuned for static files: what a hit
    would cost if nginx needed nothing to find the file but the URI."""

    name = "plain nginx"

    def __init__(self, work, thumbd):
        self.port = free_port()
        self.thumbd = thumbd
        self.root = f"{work}/static-root"
        shutil.rmtree(self.root, ignore_errors=True)
        # The operator's access log, as thumbd's site keeps it on hits (bench/stack.py): what the
        # ratio measures is the hits log on top of it.
        super().__init__(f"{work}/static", access_log=f"{work}/static-access.log", servers=f"""
    open_file_cache max=10000 inactive=60s;
    open_file_cache_valid 60s;
    server {{
        listen 127.0.0.1:{self.port};
        merge_slashes off;
        # thumbd's site has it too; plain nginx's hits are 2.2 % fewer instructions with it.
        request_pool_size 8k;
        root {self.root};
        # The files are the JPEG thumbnails of `plain/...@jpg` URLs, at those very paths.
        default_type image/jpeg;
    }}""")
        self.base = f"http://127.0.0.1:{self.port}"
        time.sleep(0.5)
        self.pids = process_tree(self.process.pid)

    def mirror(self, url):
        """A hard link to the file thumbd stored for URL (served/{c}/{signature}.jpg), at the
        URL's decoded path under this server's root; the URL on this server."""
        path = url[len(self.thumbd.base):]
        signature = path.split("/")[1]
        target = self.root + urllib.parse.unquote(path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            os.link(f"{self.thumbd.run_dir}/cache/served/{signature[0]}/{signature}.jpg", target)
        return self.base + path


# --- the figures ------------------------------------------------------------------------------

def load(urls, concurrency, header=None):
    answer = subprocess.run([sys.executable, f"{BENCH}/load.py", str(concurrency)] +
                            (["--header", header] if header else []),
                            input="\n".join(urls), capture_output=True, text=True, check=True)
    return json.loads(answer.stdout)


def storm(client, url, clients):
    """CLIENTS requests for one URL at once over connections opened first (bench/storm-client.c):
    the answers' statuses, the time to the first and to the last whole answer, the client's CPU."""
    answer = subprocess.run([client, url, str(clients)], capture_output=True, text=True, check=True)
    return json.loads(answer.stdout)


def wrk(urls, seconds, work):
    """Hits: wrk -t2 -c32 over the URLs in turn; requests/s, p99 and how many were not 200."""
    paths = f"{work}/wrk-paths"
    base = re.match(r"http://[^/]+", urls[0]).group(0)
    with open(paths, "w") as out:
        out.write("\n".join(url[len(base):] for url in urls) + "\n")
    answer = subprocess.run(["wrk", "-t2", "-c32", f"-d{seconds}s", "-s", f"{BENCH}/urls.lua", base, "--", paths],
                            capture_output=True, text=True, check=True)
    return json.loads(answer.stdout.strip().splitlines()[-1])


class Run:
    def __init__(self, arguments):
        self.arguments = arguments
        self.work = arguments.work
        self.photos = sorted(name for name in os.listdir(arguments.photos)
                             if re.search(r"\.(jpe?g|png|webp)$", name, re.I))
        if arguments.quick:
            self.photos = self.photos[:4]
        self.levels = [1, 4] if arguments.quick else [1, 2, 4, 8, 16]
        self.results = {"cold": {}, "warm": {}, "storm": {}, "memory": {}, "cli": {},
                        "photos": len(self.photos), "levels": self.levels}

    def record(self, table, server, key, value):
        self.results[table].setdefault(server, {}).setdefault(str(key), []).append(value)

    def cold(self, server, round_number, level, fmt):
        prefix = f"r{round_number}-{server.name}-{fmt}-c{level}"
        urls = [server.url(prefix, photo, fmt) for photo in self.photos]
        if None in urls:
            return
        renders = server.renders()
        cpu = cpu_seconds(server.pids)
        memory = PeakRSS(server.pids)
        figures = load(urls, level, header="X-Cache-Status")
        figures["peak_rss"] = memory.stop()
        figures["cpu_per_thumbnail"] = (cpu_seconds(server.pids) - cpu) / len(urls)
        figures["origin_requests"] = self.origin.requests(prefix)
        if renders is not None:
            figures["renders"] = server.renders() - renders
        self.check_misses(server, figures, len(urls))
        self.record("cold", server.name, f"{fmt} c{level}", figures)
        print(f"  {server.name:13} {fmt:4} c{level:<2} {figures['per_second']:7.2f}/s  p50 {figures['p50_ms']:7.1f} ms"
              f"  p99 {figures['p99_ms']:7.1f} ms  cpu {figures['cpu_per_thumbnail'] * 1000:6.1f} ms/thumbnail"
              f"  peak {figures['peak_rss'] / 2**20:6.1f} MiB", flush=True)

    @staticmethod
    def check_misses(server, figures, count):
        """A cold figure counts only if every request was answered and was a real miss."""
        problems = []
        if figures["statuses"] != {"200": count}:
            problems.append(f"statuses {figures['statuses']}")
        if figures["origin_requests"] != count:
            problems.append(f"{figures['origin_requests']} origin requests for {count} thumbnails")
        if figures.get("renders", count) != count:
            problems.append(f"{figures['renders']} renders for {count} thumbnails")
        if figures["header_values"] and figures["header_values"] != {"MISS": count}:
            problems.append(f"cache statuses {figures['header_values']}")
        if problems:
            sys.exit(f"compare.py: {server.name}'s cold round is not {count} real misses: {', '.join(problems)}")

    def warm(self, targets, slices, seconds):
        """Hits for every (server, urls) in turn, SLICES times SECONDS each, so that each server meets
        the same moments of this shared machine: its round's requests/s is all its requests over all
        its slices' time, its p99 the median of its slices'."""
        for server, urls in targets:
            for url in urls:  # every URL must already be a stored thumbnail
                urllib.request.urlopen(url).read()
        renders = {server.name: server.renders() for server, _ in targets if hasattr(server, "renders")}
        runs = {server.name: [] for server, _ in targets}
        for _ in range(slices):
            for server, urls in targets:
                runs[server.name].append(wrk(urls, seconds, self.work))
        for server, _ in targets:
            mine = runs[server.name]
            if server.name in renders and server.renders() != renders[server.name]:
                sys.exit(f"compare.py: {server.name} rendered during the warm run")
            if any(run["not_2xx"] or run["errors"] for run in mine):
                sys.exit(f"compare.py: {server.name}'s warm run had failures: {mine}")
            requests = sum(run["requests"] for run in mine)
            figures = {"per_second": requests / sum(run["requests"] / run["per_second"] for run in mine),
                       "p99_ms": statistics.median(run["p99_ms"] for run in mine),
                       "requests": requests, "slices": mine}
            self.record("warm", server.name, "c32", figures)
            print(f"  {server.name:13} warm c32 {figures['per_second']:9.0f} req/s  p99 {figures['p99_ms']:6.2f} ms", flush=True)

    def storm(self, server, round_number, clients):
        """STORMS times in turn: one cold request alone, then CLIENTS at once on a thumbnail nobody
        asked for, each at a source path of its own. The round's figures are the medians of both,
        beside each storm's time, origin requests and renders."""
        photo = self.photos[len(self.photos) // 2]
        time.sleep(0.3)  # the last load's connections are closed
        singles, storms = [], []
        for number in range(STORMS):
            prefix = f"r{round_number}-{server.name}-{number}"
            singles.append(storm(self.arguments.storm_client, server.url(f"{prefix}-single", photo, "jpg"), 1))
            renders_before = server.renders()
            figures = storm(self.arguments.storm_client, server.url(f"{prefix}-storm", photo, "jpg"), clients)
            figures["origin_requests"] = self.origin.requests(f"{prefix}-storm")
            figures["renders"] = None if renders_before is None else server.renders() - renders_before
            storms.append(figures)
            if figures["statuses"] != {"200": clients} or singles[-1]["statuses"] != {"200": 1}:
                sys.exit(f"compare.py: {server.name}'s storm: {figures['statuses']}, single {singles[-1]['statuses']}")
        renders = [figures["renders"] for figures in storms]
        self.record("storm", server.name, clients, {
            "max_ms": statistics.median(figures["max_ms"] for figures in storms),
            "single_ms": statistics.median(single["max_ms"] for single in singles),
            "origin_requests": [figures["origin_requests"] for figures in storms],
            "renders": None if None in renders else renders,
            "storms_ms": [figures["max_ms"] for figures in storms],
            "singles_ms": [single["max_ms"] for single in singles],
        })
        def times(answers):
            return " / ".join(f"{answer['max_ms']:.1f}" for answer in answers)
        print(f"  {server.name:13} storm {clients}: last answers {times(storms)} ms (one cold request"
              f" {times(singles)} ms), origin requests {[figures['origin_requests'] for figures in storms]},"
              f" renders {renders}", flush=True)

    def command_line(self, round_number):
        """vipsthumbnail over every photo in one process, and one convert per photo."""
        paths = [f"{self.arguments.photos}/{photo}" for photo in self.photos]
        out = tempfile.mkdtemp(dir=self.work)
        tools = {"convert": [["/usr/bin/convert", "-define", f"jpeg:size={2 * WIDTH}x{2 * HEIGHT}", path,
                              "-auto-orient", "-thumbnail", f"{WIDTH}x{HEIGHT}^", "-gravity", "center",
                              "-extent", f"{WIDTH}x{HEIGHT}", "-quality", str(QUALITY), f"{out}/{i}.jpg"]
                             for i, path in enumerate(paths)]}
        if shutil.which("vipsthumbnail"):
            tools["vipsthumbnail"] = [["vipsthumbnail", "--size", f"{WIDTH}x{HEIGHT}", "--smartcrop", "centre",
                                       "-o", f"{out}/%s.jpg[Q={QUALITY}]"] + paths]
        for tool, commands in tools.items():
            before = os.times()
            for command in commands:
                subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            after = os.times()
            seconds = (after.children_user - before.children_user) + (after.children_system - before.children_system)
            self.record("cli", tool, "cpu_per_image", seconds / len(paths))
            print(f"  {tool:13} {seconds / len(paths) * 1000:6.1f} ms CPU per image", flush=True)
        shutil.rmtree(out)

    def main(self):
        quick = self.arguments.quick
        rounds = 1 if quick else self.arguments.rounds
        self.origin = Origin(self.work, self.arguments.photos)
        thumbd = Thumbd(self.work, self.origin)
        servers = [thumbd]
        if not quick:
            servers += [Thumbor(self.work, self.origin, self.arguments.venv), ImageFilter(self.work, self.origin)]
        time.sleep(2)
        for server in servers:
            self.results["memory"].setdefault(server.name, {})["idle"] = rss_bytes(server.pids)
        try:
            for round_number in range(1, rounds + 1):
                print(f"== round {round_number}: cold thumbnails, every one a miss", flush=True)
                order = servers[round_number - 1:] + servers[:round_number - 1]
                for server in order:
                    for level in self.levels:
                        self.cold(server, round_number, level, "jpg")
                    self.cold(server, round_number, 4, "webp")
                self.command_line(round_number)
            idle_wait = 5 if quick else 60
            print(f"== memory {idle_wait} s after the cold load", flush=True)
            time.sleep(idle_wait)
            for server in servers:
                self.results["memory"][server.name]["after"] = rss_bytes(server.pids)
            static = None if quick else StaticCeiling(self.work, thumbd)
            for round_number in range(1, rounds + 1):
                print(f"== round {round_number}: hits (wrk -t2 -c32)", flush=True)
                targets = []
                for server in servers + ([static] if static else []):
                    source = thumbd if server is static else server
                    prefix = f"r{rounds}-{source.name}-jpg-c{self.levels[-1]}"
                    urls = [source.url(prefix, photo, "jpg") for photo in self.photos]
                    if server is static:
                        urls = [static.mirror(url) for url in urls]
                    targets.append((server, urls))
                first = (round_number - 1) % len(targets)
                self.warm(targets[first:] + targets[:first], 1 if quick else WARM_SLICES, 2)
            clients = 50 if quick else 200
            for round_number in range(1, rounds + 1):
                print(f"== round {round_number}: {clients} clients at once on one cold thumbnail", flush=True)
                for server in servers:
                    self.storm(server, round_number, clients)
            if static:
                static.stop()
        finally:
            for server in servers:
                server.stop()
            self.origin.stop()
        self.results["versions"] = versions(self.arguments.venv)
        with open(self.arguments.results, "w") as out:
            json.dump(self.results, out, indent=1)
        print(f"compare.py: figures in {self.arguments.results}")


def versions(venv):
    def first_line(command):
        try:
            answer = subprocess.run(command, capture_output=True, text=True)
            return (answer.stdout + answer.stderr).strip().splitlines()[0]
        except (OSError, IndexError):
            return None

    with open("/proc/cpuinfo") as cpuinfo:
        model = re.search(r"^model name\s*:\s*(.*)$", cpuinfo.read(), re.M)
    with open("/proc/meminfo") as meminfo:
        memory = int(re.search(r"^MemTotal:\s+(\d+)", meminfo.read(), re.M).group(1)) // 2**20
    return {
        "machine": f"{os.cpu_count()} cores, {model.group(1) if model else platform.machine()}, {memory} GiB,"
                   f" {platform.system()} {platform.release()}",
        "thumbd": first_line(["git", "-C", ROOT, "log", "-1", "--format=%h %s"]),
        "nginx": first_line(["nginx", "-v"]),
        "ImageMagick": first_line(["/usr/bin/convert", "-version"]),
        "thumbor": first_line([f"{venv}/bin/thumbor", "--version"]) if venv else None,
        "vips": first_line(["vips", "--version"]),
        "wrk": first_line(["wrk", "-v"]),
        "python": platform.python_version(),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", required=True)
    parser.add_argument("--photos", required=True)
    parser.add_argument("--venv")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--results", required=True)
    parser.add_argument("--storm-client", required=True, help="bench/storm-client.c, compiled")
    Run(parser.parse_args()).main()
