"""Where a storm's time goes. CLIENTS requests at once for one cold thumbnail, ROUNDS times (a
fresh source path each), against real nginx and a release thumbd on 127.0.0.1, by two clients:

- curl: one curl opening every transfer at once, as bench/run measures the storm;
- pre-connected: this process opens every connection first, then writes every request back to
  back and reads the answers (epoll); only the requests are timed.

For each: the time to the last answer and of a single cold request (medians), and the CPU each
process spent per storm: thumbd's render threads and the rest of thumbd (per-thread schedstat,
nanoseconds), nginx's workers (utime+stime), the client (curl's rusage; this process's CPU
during the timed part). Their sum over the machine's cores is a floor under the storm's time:
no scheduling gets the last answer out sooner. Every storm must make 1 origin request and
1 render, and answer every client 200.

    THUMBD_BINARY=.build/release/thumbd python3 bench/storm.py --photos DIR --work DIR
"""

import argparse
import glob
import os
import re
import resource
import selectors
import socket
import statistics
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(__file__))
from compare import Origin, Thumbd, cpu_seconds, curl_storm, process_tree  # noqa: E402


def pre_connected_storm(url, clients):
    """Answers' statuses, the time to the last answer, and this process's CPU in that time (ms)."""
    parts = urllib.parse.urlsplit(url)
    request = f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n\r\n".encode()
    connections = [socket.create_connection((parts.hostname, parts.port)) for _ in range(clients)]
    time.sleep(0.05)  # nginx has accepted every connection: only the requests are timed
    selector = selectors.EpollSelector()
    answers, last = {}, 0.0
    cpu, started = time.process_time(), time.monotonic()
    for connection in connections:
        connection.sendall(request)
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_READ, bytearray())
    while len(answers) < clients:
        for key, _ in selector.select(30):
            chunk = key.fileobj.recv(65536)
            if chunk:
                key.data.extend(chunk)
                continue
            last = time.monotonic() - started
            answers[key.fileobj] = bytes(key.data[9:12]).decode()
            selector.unregister(key.fileobj)
            key.fileobj.close()
    cpu = time.process_time() - cpu
    statuses = {}
    for status in answers.values():
        statuses[status] = statuses.get(status, 0) + 1
    return statuses, last * 1000, cpu * 1000


class Processes:
    """thumbd's threads (render apart) and nginx's workers, with the CPU each has used (ms)."""

    def __init__(self, stack):
        tree = [pid for pid in process_tree(stack.process.pid) if pid != stack.process.pid]
        self.thumbd = next(pid for pid in tree if self.comm(pid) == "thumbd")
        self.nginx = [pid for pid in tree if self.cmdline(pid).startswith("nginx: worker")]

    @staticmethod
    def comm(pid):
        with open(f"/proc/{pid}/comm") as comm:
            return comm.read().strip()

    @staticmethod
    def cmdline(pid):
        with open(f"/proc/{pid}/cmdline") as cmdline:
            return cmdline.read().replace("\0", " ").strip()

    def cpu(self):
        render = rest = 0
        for task in glob.glob(f"/proc/{self.thumbd}/task/*"):
            try:
                with open(f"{task}/schedstat") as schedstat, open(f"{task}/comm") as comm:
                    ran = int(schedstat.read().split()[0])
                    is_render = comm.read().startswith("thumbd-render")
            except OSError:
                continue  # a thread that ended
            if is_render:
                render += ran
            else:
                rest += ran
        return {"render": render / 1e6, "thumbd's rest": rest / 1e6, "nginx": cpu_seconds(self.nginx) * 1000}


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def curl_client(url, clients, work):
    before = children_cpu()
    figures = curl_storm(url, clients, work)
    return figures["statuses"], figures["max_ms"], children_cpu() - before


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--clients", type=int, default=200)
    arguments = parser.parse_args()
    os.makedirs(arguments.work, exist_ok=True)
    photos = sorted(name for name in os.listdir(arguments.photos) if re.search(r"\.(jpe?g|png|webp)$", name, re.I))
    photo = photos[len(photos) // 2]  # bench/run's storm photo
    origin = Origin(arguments.work, arguments.photos)
    stack = Thumbd(arguments.work, origin)
    clients = {
        "curl": lambda url, count: curl_client(url, count, arguments.work),
        "pre-connected": pre_connected_storm,
    }
    failures = []
    try:
        processes = Processes(stack)
        clients["pre-connected"](stack.url("warm-up", photo, "jpg"), arguments.clients)
        cores = os.cpu_count()
        print(f"== {arguments.clients} clients at once on one cold thumbnail of {photo}, {arguments.rounds} rounds,"
              f" {cores} cores; CPU in ms per storm")
        for name, client in clients.items():
            storms, singles, spent = [], [], {"client": 0.0}
            for number in range(arguments.rounds):
                single = client(stack.url(f"{name}-{number}-single", photo, "jpg"), 1)
                singles.append(single[1])
                if single[0] != {"200": 1}:
                    failures.append(f"{name} round {number}: a single request got {single[0]}")
                prefix = f"{name}-{number}-storm"
                renders, before = stack.renders(), processes.cpu()
                statuses, last, client_cpu = client(stack.url(prefix, photo, "jpg"), arguments.clients)
                after = processes.cpu()
                storms.append(last)
                spent["client"] += client_cpu
                for part in after:
                    spent[part] = spent.get(part, 0.0) + after[part] - before[part]
                made, fetched = stack.renders() - renders, origin.requests(prefix)
                if statuses != {"200": arguments.clients} or made != 1 or fetched != 1:
                    failures.append(f"{name} round {number}: statuses {statuses}, {made} renders, {fetched} origin requests")
            per_storm = {part: total / arguments.rounds for part, total in spent.items()}
            total = sum(per_storm.values())
            storm, single = statistics.median(storms), statistics.median(singles)
            print(f"  {name:13} last answer {storm:5.1f} ms, single {single:5.1f} ms, {storm / single:.2f}x;"
                  f" CPU: " + ", ".join(f"{part} {value:.1f}" for part, value in per_storm.items()) +
                  f" = {total:.1f}, over {cores} cores >= {total / cores:.1f} ms; 1.5x single = {1.5 * single:.1f} ms",
                  flush=True)
    finally:
        stack.stop()
        origin.stop()
    if failures:
        sys.exit("storm: " + "; ".join(failures))


if __name__ == "__main__":
    main()
