"""nginx (nginx/nginx.conf and the site `thumbd nginx-config site` writes) and a thumbd these
scripts start, kill and restart, on 127.0.0.1 (bench/crash.py, bench/soak.py)."""

import argparse
import grp
import http.client
import os
import pwd
import shutil
import subprocess
import time

from compare import ROOT, free_port, wait_until

# nginx's master runs as root and the config names no user: its workers run as nobody, in nobody's
# group, which thumbd's socket (0660) must be in.
NGINX_WORKER_GROUP = grp.getgrgid(pwd.getpwnam("nobody").pw_gid).gr_name


class Stack:
    """nginx with thumbd's site and a thumbd this script starts, kills and restarts."""

    def __init__(self, work, binary, environment=None):
        self.dir, self.binary, self.port = f"{work}/stack", binary, free_port()
        shutil.rmtree(self.dir, ignore_errors=True)
        self.cache, self.socket = f"{self.dir}/cache", f"{self.dir}/thumbd.sock"
        # nginx's workers run as nobody: they read; nginx's master makes its temp paths in
        # nginx-tmp, 0700 and theirs.
        for path in [self.dir, self.cache, f"{self.dir}/nginx-tmp", f"{self.dir}/site.d"]:
            os.makedirs(path, exist_ok=True)
            os.chmod(path, 0o755)
        text = open(f"{ROOT}/nginx/nginx.conf").read().replace("@RUN_DIR@", self.dir)
        open(f"{self.dir}/nginx.conf", "w").write(text)
        subprocess.run([binary, "nginx-config", "site", "--listen", f"127.0.0.1:{self.port}", "--cache-root", self.cache,
                        "--hits-log", f"{self.cache}.hits.log", "--socket", f"unix:{self.socket}",
                        "--access-log", f"{self.dir}/nginx-access.log", "--extras", f"{self.dir}/site.d/*.conf",
                        "--output", f"{self.dir}/thumbd-site.conf"], check=True)
        environment = environment or {}
        # Without a key the scripts ask for /insecure/ URLs, which thumbd serves only when told so.
        signing = {} if "THUMBD_KEY" in environment else {"THUMBD_INSECURE": "true"}
        self.environment = dict(os.environ, THUMBD_LISTEN=f"unix:{self.socket}", THUMBD_CACHE_ROOT=self.cache,
                                THUMBD_ALLOW_LOOPBACK_SOURCE_ADDRESSES="true", THUMBD_MAGICK_POLICY_DIR=f"{ROOT}/deploy",
                                THUMBD_LOG_LEVEL="warn", THUMBD_SOCKET_GROUP=NGINX_WORKER_GROUP, **{**signing, **environment})
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

    def resources(self):
        """thumbd's resident memory in KiB, open descriptors and threads, from /proc."""
        pid = self.thumbd.pid
        status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status") if ":" in line)
        return int(status["VmRSS"].split()[0]), len(os.listdir(f"/proc/{pid}/fd")), int(status["Threads"])

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


def parse_arguments(name, add_options):
    """The options every script here takes (--thumbd, --photos, --work) and its own; makes the
    work directory."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--thumbd", required=True)
    parser.add_argument("--photos", required=True)
    parser.add_argument("--work", default=f"/tmp/thumbd-{name}")
    add_options(parser)
    arguments = parser.parse_args()
    os.makedirs(arguments.work, exist_ok=True)
    return arguments


def photo_names(directory):
    """The JPEG and PNG photos in a directory, by name."""
    return sorted(name for name in os.listdir(directory) if name.lower().endswith((".jpg", ".jpeg", ".png")))
