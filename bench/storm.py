"""Where a storm's time goes. CLIENTS requests at once for one cold thumbnail, ROUNDS times (a
fresh source path each), against real nginx and a release thumbd on 127.0.0.1, by two clients:

- curl: one curl opening every transfer at once, each connecting inside the storm, as bench/run
  measured storms until its client's own CPU was found to be most of the storm;
- storm-client: bench/storm-client.c, as bench/run measures the storm now: keep-alive connections
  opened first, then every request at once (epoll, one process); only the requests are timed.

For each: the time to the last answer and of a single cold request (medians), and the CPU each
process spent per storm: thumbd's render threads and the rest of thumbd (per-thread schedstat,
nanoseconds), nginx's workers (likewise), the client (curl's rusage; storm-client's own CPU
from its first request). Their sum over the machine's cores is a floor under the storm's time:
no scheduling gets the last answer out sooner. Every storm must make 1 origin request and
1 render, and answer every client 200.

    THUMBD_BINARY=.build/release/thumbd python3 bench/storm.py --photos DIR --work DIR --storm-client BINARY
"""

import argparse
import glob
import os
import re
import resource
import subprocess
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
from compare import Origin, Thumbd, process_tree, storm  # noqa: E402


class Processes:
    """thumbd's threads (render apart) and nginx's workers, with the CPU each has used (ms)."""

    def __init__(self, stack):
        # By its pid file: deploy/run also runs `thumbd sign` for a moment once the server is up.
        with open(f"{stack.run_dir}/thumbd.pid") as pidfile:
            self.thumbd = int(pidfile.read())
        tree = process_tree(stack.process.pid)
        self.nginx = [pid for pid in tree if self.cmdline(pid).startswith("nginx: worker")]

    @staticmethod
    def cmdline(pid):
        """The process's command line; empty when it ended since it was listed (deploy/run starts
        short-lived commands beside the servers)."""
        try:
            with open(f"/proc/{pid}/cmdline") as cmdline:
                return cmdline.read().replace("\0", " ").strip()
        except FileNotFoundError:
            return ""

    def cpu(self):
        render = rest = nginx = 0
        for task, name in self.tasks([self.thumbd]):
            if name.startswith("thumbd-render"):
                render += self.ran(task)
            else:
                rest += self.ran(task)
        for task, _ in self.tasks(self.nginx):
            nginx += self.ran(task)
        return {"render": render / 1e6, "thumbd's rest": rest / 1e6, "nginx": nginx / 1e6}

    @staticmethod
    def tasks(pids):
        for pid in pids:
            for task in glob.glob(f"/proc/{pid}/task/*"):
                try:
                    with open(f"{task}/comm") as comm:
                        yield task, comm.read()
                except OSError:
                    continue  # a thread that ended

    @staticmethod
    def ran(task):
        """Nanoseconds on a CPU (schedstat): exact, where utime and stime count 10 ms ticks."""
        try:
            with open(f"{task}/schedstat") as schedstat:
                return int(schedstat.read().split()[0])
        except OSError:
            return 0


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def curl_client(url, clients, work):
    """One curl opening every transfer at once (event-driven, so curl itself does not stagger
    them); the time to the last answer is the slowest transfer's."""
    config = f"{work}/storm.curl"
    with open(config, "w") as out:
        out.write(f'url = "{url}"\noutput = "/dev/null"\n' * clients)
    before = children_cpu()
    answer = subprocess.run(["curl", "--silent", "--parallel", "--parallel-immediate", "--parallel-max", str(clients),
                             "--config", config, "--write-out", "%{http_code} %{time_total}\n"],
                            capture_output=True, text=True, check=True)
    answers = [line.split() for line in answer.stdout.splitlines()]
    statuses = {}
    for status, _ in answers:
        statuses[status] = statuses.get(status, 0) + 1
    return statuses, max(float(seconds) for _, seconds in answers) * 1000, children_cpu() - before


def storm_client(binary, url, clients):
    figures = storm(binary, url, clients)
    return figures["statuses"], figures["max_ms"], figures["cpu_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--storm-client", required=True, help="bench/storm-client.c, compiled")
    arguments = parser.parse_args()
    os.makedirs(arguments.work, exist_ok=True)
    photos = sorted(name for name in os.listdir(arguments.photos) if re.search(r"\.(jpe?g|png|webp)$", name, re.I))
    photo = photos[len(photos) // 2]  # bench/run's storm photo
    origin = Origin(arguments.work, arguments.photos)
    stack = Thumbd(arguments.work, origin)
    clients = {
        "curl": lambda url, count: curl_client(url, count, arguments.work),
        "storm-client": lambda url, count: storm_client(arguments.storm_client, url, count),
    }
    failures = []
    try:
        processes = Processes(stack)
        clients["storm-client"](stack.url("warm-up", photo, "jpg"), arguments.clients)
        cores = os.cpu_count()
        print(f"== {arguments.clients} clients at once on one cold thumbnail of {photo}, {arguments.rounds} rounds,"
              f" {cores} cores; CPU in ms per storm")
        figures = {name: {"storms": [], "singles": [], "spent": {"client": 0.0}} for name in clients}
        # Rounds interleave the clients: this machine's speed drifts.
        for number in range(arguments.rounds):
            for name, client in clients.items():
                single = client(stack.url(f"{name}-{number}-single", photo, "jpg"), 1)
                figures[name]["singles"].append(single[1])
                if single[0] != {"200": 1}:
                    failures.append(f"{name} round {number}: a single request got {single[0]}")
                prefix = f"{name}-{number}-storm"
                renders, before = stack.renders(), processes.cpu()
                statuses, last, client_cpu = client(stack.url(prefix, photo, "jpg"), arguments.clients)
                after = processes.cpu()
                figures[name]["storms"].append(last)
                spent = figures[name]["spent"]
                spent["client"] += client_cpu
                for part in after:
                    spent[part] = spent.get(part, 0.0) + after[part] - before[part]
                made, fetched = stack.renders() - renders, origin.requests(prefix)
                if statuses != {"200": arguments.clients} or made != 1 or fetched != 1:
                    failures.append(f"{name} round {number}: statuses {statuses}, {made} renders, {fetched} origin requests")
        for name, figure in figures.items():
            per_storm = {part: total / arguments.rounds for part, total in figure["spent"].items()}
            total = sum(per_storm.values())
            last, single = statistics.median(figure["storms"]), statistics.median(figure["singles"])
            print(f"  {name:13} last answer {last:5.1f} ms, single {single:5.1f} ms, {last / single:.2f}x;"
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
