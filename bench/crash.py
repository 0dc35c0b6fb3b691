"""kill -9, TERM and nginx reloads under load, against real nginx + thumbd on 127.0.0.1.

    python3 bench/crash.py --thumbd .build/release/thumbd --photos DIR [--rounds 20]

1. kill -9 in the middle of a miss storm (100 distinct cold thumbnails, 16 clients), restart,
   `--rounds` times: after each restart no temp file is left, every file in the cache decodes
   completely, `thumbd cache verify` agrees, and every URL of the round is then served (200).
2. TERM under load: requests in flight are answered (a thumbnail, or 503/504), no client sees a
   reset, thumbd exits 0 and removes its socket.
3. `nginx -s reload` five times under load: no request fails.
Prints its figures; exits 1 on any failure.
"""

import argparse
import concurrent.futures
import glob
import http.client
import os
import random
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from compare import ROOT, Origin, free_port, wait_until  # noqa: E402

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print(f"  FAILED: {message}")


class Stack:
    """The repository's nginx templates and a thumbd this script starts, kills and restarts."""

    def __init__(self, work, binary):
        self.dir, self.binary, self.port = f"{work}/stack", binary, free_port()
        shutil.rmtree(self.dir, ignore_errors=True)
        self.cache, self.socket = f"{self.dir}/cache", f"{self.dir}/thumbd.sock"
        for path, mode in [(self.dir, 0o755), (self.cache, 0o755), (f"{self.dir}/nginx-tmp", 0o777), (f"{self.dir}/site.d", 0o755)]:
            os.makedirs(path, exist_ok=True)
            os.chmod(path, mode)
        fill = {"@RUN_DIR@": self.dir, "@HTTP_LISTEN@": f"127.0.0.1:{self.port}", "@CACHE_ROOT@": self.cache,
                "@HITS_LOG@": f"{self.cache}.hits.log", "@FASTCGI_PASS@": f"unix:{self.socket}",
                "@SITE_EXTRAS@": f"{self.dir}/site.d/*.conf"}
        for template, name in [("nginx/nginx.conf", "nginx.conf"), ("nginx/thumbd.conf", "thumbd-site.conf")]:
            text = open(f"{ROOT}/{template}").read()
            for key, value in fill.items():
                text = text.replace(key, value)
            open(f"{self.dir}/{name}", "w").write(text)
        self.environment = dict(os.environ, THUMBD_LISTEN=f"unix:{self.socket}", THUMBD_CACHE_ROOT=self.cache,
                                THUMBD_ALLOW_LOOPBACK_SOURCE_ADDRESSES="true", THUMBD_MAGICK_POLICY_DIR=f"{ROOT}/deploy",
                                THUMBD_LOG_LEVEL="warn")
        self.log = open(f"{self.dir}/thumbd.log", "a")
        self.start_thumbd()
        self.nginx = subprocess.Popen(["nginx", "-p", self.dir, "-c", f"{self.dir}/nginx.conf", "-g", "daemon off;"],
                                      start_new_session=True)
        wait_until(f"http://127.0.0.1:{self.port}/health")

    def start_thumbd(self):
        self.thumbd = subprocess.Popen([self.binary], env=self.environment, stdout=self.log, stderr=self.log,
                                       start_new_session=True)
        deadline = time.time() + 30
        while not os.path.exists(self.socket) and time.time() < deadline:
            time.sleep(0.05)

    def cache_command(self, *arguments):
        return subprocess.run([self.binary, "cache", *arguments], env=self.environment, capture_output=True, text=True)

    def stop(self):
        for process in (self.thumbd, self.nginx):
            if process.poll() is None:
                process.terminate()
                process.wait()


def get(port, path):
    """(status, body) or (None, the exception's name) when the connection failed."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("GET", path)
        answer = connection.getresponse()
        return answer.status, answer.read()
    except OSError as error:
        return None, type(error).__name__
    finally:
        connection.close()


def load(port, paths, clients):
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        return list(pool.map(lambda path: get(port, path), paths))


def cold_paths(origin, round_name, count, photos):
    return [f"/insecure/rs:fill:{120 + i}:80/plain/{origin.base}/{round_name}/{photos[i % len(photos)]}@jpg" for i in range(count)]


def decodes(path):
    return subprocess.run(["identify", "-regard-warnings", path], capture_output=True).returncode == 0


def kill_and_restart(stack, origin, photos, rounds):
    print(f"== kill -9 during a storm of 100 cold thumbnails (16 clients), restart: {rounds} rounds")
    served, files = 0, 0
    for round_number in range(rounds):
        paths = cold_paths(origin, f"kill{round_number}", 100, photos)
        with concurrent.futures.ThreadPoolExecutor(1) as runner:
            storm = runner.submit(load, stack.port, paths, 16)
            time.sleep(random.uniform(0.3, 1.5))
            stack.thumbd.send_signal(signal.SIGKILL)
            stack.thumbd.wait()
            storm.result()
        stack.start_thumbd()
        wait_until(f"http://127.0.0.1:{stack.port}/health")
        time.sleep(0.5)  # the start-up scan removes what the killed process left
        temps = glob.glob(f"{stack.cache}/**/.thumbd-tmp-*", recursive=True)
        check(not temps, f"round {round_number}: temp files survived the restart: {temps[:3]}")
        stored = [path for path in glob.glob(f"{stack.cache}/**/*", recursive=True) if os.path.isfile(path)]
        broken = [path for path in stored if not decodes(path)]
        check(not broken, f"round {round_number}: files that do not decode: {broken[:3]}")
        files += len(stored)
        verify = stack.cache_command("verify")
        check(verify.returncode == 0, f"round {round_number}: cache verify: {verify.stdout}{verify.stderr}")
        answers = load(stack.port, paths, 16)
        bad = [status for status, _ in answers if status != 200]
        check(not bad, f"round {round_number}: after the restart {len(bad)} URLs failed: {bad[:5]}")
        served += len(answers) - len(bad)
    print(f"  {rounds} kills survived; {files} stored files checked (identify -regard-warnings); {served} URLs served after restarts")


def term_under_load(stack, origin, photos):
    print("== TERM with 32 cold thumbnails in flight (16 clients)")
    paths = cold_paths(origin, "term", 32, photos)
    with concurrent.futures.ThreadPoolExecutor(1) as runner:
        storm = runner.submit(load, stack.port, paths, 16)
        time.sleep(0.5)
        stack.thumbd.send_signal(signal.SIGTERM)
        code = stack.thumbd.wait(timeout=60)
        answers = storm.result()
    statuses = {}
    for status, _ in answers:
        statuses[status] = statuses.get(status, 0) + 1
    print(f"  answers by status: {statuses}; thumbd exit status {code}")
    check(None not in statuses, f"a client saw its connection fail: {statuses}")
    check(code == 0, f"thumbd exited with {code}")
    check(not os.path.exists(stack.socket), "the socket file was left behind")
    stack.start_thumbd()
    wait_until(f"http://127.0.0.1:{stack.port}/health")


def reload_under_load(stack, origin, photos):
    print("== nginx -s reload five times under load (hits and misses, 16 clients)")
    hits = cold_paths(origin, "kill0", 100, photos)
    misses = cold_paths(origin, "reload", 100, photos)
    paths = [path for pair in zip(hits, misses) for path in pair] * 3
    with concurrent.futures.ThreadPoolExecutor(1) as runner:
        traffic = runner.submit(load, stack.port, paths, 16)
        for _ in range(5):
            time.sleep(0.3)
            subprocess.run(["nginx", "-p", stack.dir, "-c", f"{stack.dir}/nginx.conf", "-s", "reload"], check=True)
        answers = traffic.result()
    failed = [status for status, _ in answers if status != 200]
    print(f"  {len(answers)} requests, {len(failed)} failed")
    check(not failed, f"requests failed during reloads: {failed[:5]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--thumbd", required=True)
    parser.add_argument("--photos", required=True)
    parser.add_argument("--work", default="/tmp/thumbd-crash")
    parser.add_argument("--rounds", type=int, default=20)
    arguments = parser.parse_args()
    os.makedirs(arguments.work, exist_ok=True)
    photos = sorted(name for name in os.listdir(arguments.photos) if name.lower().endswith((".jpg", ".jpeg", ".png")))
    origin = Origin(arguments.work, arguments.photos)
    stack = Stack(arguments.work, os.path.abspath(arguments.thumbd))
    try:
        kill_and_restart(stack, origin, photos, arguments.rounds)
        term_under_load(stack, origin, photos)
        reload_under_load(stack, origin, photos)
    finally:
        stack.stop()
        origin.stop()
    print("crash: all checks passed" if not failures else f"crash: {len(failures)} checks failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
