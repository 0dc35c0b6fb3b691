# Holds a listening unix socket as systemd's socket units do, and starts thumbd on it the way
# systemd does (descriptor 3, LISTEN_FDS=1, LISTEN_PID its own pid), once per "start" line on
# standard input; "stop" sends it TERM and waits. Used by SocketActivationTests.
import os
import socket
import subprocess
import sys

path, thumbd = sys.argv[1], sys.argv[2:]
listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listening.bind(path)
listening.listen(128)
os.dup2(listening.fileno(), 3)
print("listening", flush=True)
running = None
for line in sys.stdin:
    if line.strip() == "start":
        # The shell's pid is thumbd's once it execs, so LISTEN_PID names thumbd.
        running = subprocess.Popen(["/bin/sh", "-c", 'LISTEN_PID=$$ LISTEN_FDS=1 exec "$@"', "sh"] + thumbd,
                                   pass_fds=(3,))
        print("started", running.pid, flush=True)
    elif line.strip() == "stop" and running:
        running.terminate()
        print("stopped", running.wait(), flush=True)
        running = None
if running:
    running.terminate()
    running.wait()
