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

import concurrent.futures
import glob
import os
import random
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from compare import Origin, wait_until  # noqa: E402
from stack import Stack, get, parse_arguments, photo_names  # noqa: E402

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print(f"  FAILED: {message}")


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
    arguments = parse_arguments("crash", lambda parser: parser.add_argument("--rounds", type=int, default=20))
    photos = photo_names(arguments.photos)
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
