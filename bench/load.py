#!/usr/bin/env python3
"""Asks a thumbnail server for a list of URLs, CONCURRENCY at a time, each URL once, and prints
one JSON line: answers, statuses, throughput, latency percentiles and the values of one header.

    load.py CONCURRENCY [--header NAME] < urls

Talks HTTP/1.1 with keep-alive from one thread per client (http.client), as a browser would;
only loopback URLs are accepted, so a benchmark can never reach another host."""

import argparse
import http.client
import json
import math
import sys
import threading
import time
import urllib.parse

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def percentile(sorted_values, fraction):
    if not sorted_values:
        return None
    rank = math.ceil(fraction * len(sorted_values))  # nearest rank
    return sorted_values[max(rank, 1) - 1]


class Client:
    """One keep-alive connection, opened again when the server closed it."""

    def __init__(self, host, port):
        self.host, self.port, self.connection = host, port, None

    def get(self, target, header):
        for attempt in (1, 2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=120)
            try:
                self.connection.request("GET", target, headers={"Accept": "image/*"})
                response = self.connection.getresponse()
                body = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.connection.close()
                    self.connection = None
                return response.status, len(body), response.getheader(header) if header else None
            except (ConnectionError, http.client.HTTPException):
                self.connection.close()
                self.connection = None
                if attempt == 2:
                    raise


def split(url):
    parts = urllib.parse.urlsplit(url)
    if parts.hostname not in LOOPBACK:
        sys.exit(f"load.py: {url} is not on loopback")
    target = url[len(f"{parts.scheme}://{parts.netloc}"):]
    return parts.hostname, parts.port or 80, target


def run(urls, concurrency, header):
    queue = list(enumerate(urls))
    lock = threading.Lock()
    results = [None] * len(urls)
    last_answer = [0.0]

    def worker():
        clients = {}
        while True:
            with lock:
                if not queue:
                    return
                index, url = queue.pop(0)
            host, port, target = split(url)
            client = clients.setdefault((host, port), Client(host, port))
            started = time.perf_counter()
            try:
                status, size, value = client.get(target, header)
            except Exception as error:  # a refused or reset connection is an answer too
                status, size, value = f"error: {type(error).__name__}", 0, None
            finished = time.perf_counter()
            results[index] = (status, size, value, finished - started)
            with lock:
                last_answer[0] = max(last_answer[0], finished)

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return summary(results, last_answer[0] - started)


def summary(results, seconds):
    latencies = sorted(r[3] for r in results)
    statuses, values = {}, {}
    for status, _, value, _ in results:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
        if value is not None:
            values[value] = values.get(value, 0) + 1
    ok = statuses.get("200", 0)
    return {
        "requests": len(results),
        "statuses": statuses,
        "header_values": values,
        "bytes": sum(r[1] for r in results),
        "seconds": round(seconds, 4),
        "per_second": round(ok / seconds, 2) if seconds > 0 else None,
        "p50_ms": round(percentile(latencies, 0.50) * 1000, 1) if latencies else None,
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 1) if latencies else None,
        "max_ms": round(latencies[-1] * 1000, 1) if latencies else None,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("concurrency", type=int, nargs="?", default=1)
    parser.add_argument("--header", help="count the values of this response header")
    arguments = parser.parse_args()
    urls = [line.strip() for line in sys.stdin if line.strip()]
    if len(set(urls)) != len(urls):
        sys.exit("load.py: a URL is listed twice; a cold round must ask each once")
    print(json.dumps(run(urls, arguments.concurrency, arguments.header)))


if __name__ == "__main__":
    main()
