#!/usr/bin/python3
"""How long one agent's ping waits while another agent's connection floods the daemon.

Usage: bench/daemon_fairness.py LAS [LABEL] [ROUNDS]

Starts `LAS daemon` on a fresh log under a temporary directory, opens two raw connections to
its client socket (agents "a" and "b"), and per round writes 1,500 pings on a's connection in
one write (about 64 KiB: one read of the daemon), then one ping on b's, and times b's answer.
Prints the median, p90 and maximum of b's latency over ROUNDS rounds (default 30). Compare two
builds side by side in one run (docs/PERFORMANCE.md, "Shared daemon", session 48).
"""
import glob
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

FLOOD = 1500


def main():
    las = sys.argv[1]
    label = sys.argv[2] if len(sys.argv) > 2 else las
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    with tempfile.TemporaryDirectory() as base:
        os.makedirs(base + "/run", mode=0o700)
        env = dict(os.environ, HOME=base + "/home", XDG_RUNTIME_DIR=base + "/run")
        daemon = subprocess.Popen([las, "daemon", "--log", base + "/log"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        try:
            path = None
            for _ in range(400):
                found = [p for p in glob.glob(base + "/run/las/*.sock") if "operator" not in p]
                if found:
                    path = found[0]
                    break
                time.sleep(0.05)
            if path is None:
                sys.exit("the daemon made no socket")
            a, b = Connection(path, "a"), Connection(path, "b")
            latencies = []
            for r in range(rounds):
                flood = b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % (r * 10000 + i + 1)
                                 for i in range(FLOOD))
                drain = threading.Thread(target=a.read_lines, args=(FLOOD,))
                drain.start()
                a.sock.sendall(flood)
                start = time.monotonic()
                b.sock.sendall(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % (r + 1))
                b.read_lines(1)
                latencies.append((time.monotonic() - start) * 1000)
                drain.join()
            latencies.sort()
            print("%s: b's ping during a %d-ping flood on a: median %.2f ms, p90 %.2f ms, max %.2f ms"
                  % (label, FLOOD, statistics.median(latencies),
                     latencies[int(len(latencies) * 0.9)], latencies[-1]))
        finally:
            daemon.terminate()
            daemon.wait()


class Connection:
    def __init__(self, path, agent):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.lines = self.sock.makefile("rb")
        self.sock.sendall(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":'
                          b'"2024-11-05","capabilities":{},"clientInfo":{"name":"fairness","version":"1"},'
                          b'"agentId":"%s"}}\n' % agent.encode())
        self.read_lines(1)
        self.sock.sendall(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def read_lines(self, count):
        for _ in range(count):
            if not self.lines.readline():
                sys.exit("the daemon closed a connection")


if __name__ == "__main__":
    main()
