#!/usr/bin/env python3
"""The mock servers under load and abuse, on 127.0.0.1 only, bounded in count and time.

Measures, against `pacing-lab serve`:
  1. new clients' answer times while 1,000 connections are open, 600 of them idle or slowloris
     (a byte every 5 s), 400 busy with keep-alive requests;
  2. how soon stalled requests free their workers once their clients go away: 1,100 clients
     (more than the 1,024 workers) stall a request each, then leave together;
  3. how long `serve` takes to exit after SIGTERM with 500 connections open and trickling;
  4. whether 64 hosts run live (`run --live`) under a 4 GiB address-space limit.

usage: mock_load.py PACING_LAB [--json]
"""

import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

LAB = sys.argv[1]
AS_JSON = "--json" in sys.argv[2:]
FIGURES = {}


def say(text):
    if not AS_JSON:
        print(text, flush=True)


def start_serve(scenario_path):
    proc = subprocess.Popen([LAB, "serve", scenario_path], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    ports = {}
    while len(ports) < len(json.load(open(scenario_path))["servers"]):
        host, port = proc.stdout.readline().split()
        ports[host] = int(port)
    return proc, ports


def request(port, host, path="/", timeout=5.0):
    """One GET on a new connection; returns (seconds, status or None)."""
    started = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
            data = s.recv(64)
            status = int(data.split()[1]) if data.startswith(b"HTTP/1.1") else None
    except OSError:
        status = None
    return time.monotonic() - started, status


def busy_client(port, host, stop):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            while not stop.is_set():
                s.sendall(f"GET / HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
                if not s.recv(4096):
                    return
                time.sleep(0.05)
    except OSError:
        return


def idle_and_slow(port, count, slow):
    """Opens `count` connections that send nothing (or, when `slow`, a byte every 5 s)."""
    sockets = []
    for _ in range(count):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            if slow:
                s.sendall(b"G")
            sockets.append(s)
        except OSError:
            pass
    return sockets


def measure_load(ports):
    port, host = ports["a.test"], "a.test"
    stop = threading.Event()
    held = idle_and_slow(port, 300, False) + idle_and_slow(port, 300, True)
    busy = [threading.Thread(target=busy_client, args=(port, host, stop)) for _ in range(400)]
    for t in busy:
        t.start()
    times, failures = [], 0
    deadline = time.monotonic() + 12
    next_trickle = time.monotonic() + 5
    while time.monotonic() < deadline:
        seconds, status = request(port, host)
        times.append(seconds)
        failures += status != 200
        if time.monotonic() >= next_trickle:
            next_trickle += 5
            for s in held[300:]:
                try:
                    s.sendall(b"E")
                except OSError:
                    pass
        time.sleep(0.05)
    closed = 0
    for s in held:
        try:
            s.setblocking(False)
            closed += s.recv(1) == b""
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        s.close()
    stop.set()
    for t in busy:
        t.join()
    times.sort()
    FIGURES["new_client_p50_ms"] = round(1000 * times[len(times) // 2], 2)
    FIGURES["new_client_max_ms"] = round(1000 * times[-1], 2)
    FIGURES["new_client_failures"] = failures
    FIGURES["idle_or_slow_closed_by_server"] = closed
    say(f"1. 1,000 connections (300 idle, 300 slowloris, 400 busy): {len(times)} new clients in 12 s, "
        f"answer time p50 {FIGURES['new_client_p50_ms']} ms, max {FIGURES['new_client_max_ms']} ms, "
        f"{failures} failed; {closed} of 600 idle/slow connections closed by the server")


def measure_stalls(ports):
    """1,100 stalled requests at once hold every one of the 1,024 workers; their clients then
    leave together, and a new client's answer time says how soon the workers were freed."""
    port = ports["stall.test"]
    held = []
    for _ in range(1100):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET / HTTP/1.1\r\nHost: stall.test\r\n\r\n")
            held.append(s)
        except OSError:
            pass
    time.sleep(2.0)
    blocked, _ = request(ports["a.test"], "a.test", timeout=0.5)  # every worker is stalled
    left = time.monotonic()
    for s in held:
        s.close()
    seconds, status = request(ports["a.test"], "a.test", timeout=10)
    FIGURES["stalls_held"] = len(held)
    FIGURES["answer_after_stalled_clients_left_ms"] = round(1000 * (time.monotonic() - left), 1)
    FIGURES["answer_after_stalled_clients_left_status"] = status
    say(f"2. {len(held)} stalled requests held the workers (a new client waited {blocked:.2f} s, "
        f"unanswered); {FIGURES['answer_after_stalled_clients_left_ms']} ms after their clients "
        f"left, a new client got {status}")


def measure_sigterm(scenario_path):
    proc, ports = start_serve(scenario_path)
    stop = threading.Event()
    port = ports["a.test"]
    held = idle_and_slow(port, 250, True)
    busy = [threading.Thread(target=busy_client, args=(port, "a.test", stop)) for _ in range(250)]
    for t in busy:
        t.start()
    time.sleep(1)
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
        seconds = time.monotonic() - started
    except subprocess.TimeoutExpired:
        proc.kill()
        seconds = float("inf")
    stop.set()
    for s in held:
        s.close()
    for t in busy:
        t.join()
    FIGURES["sigterm_exit_ms"] = round(1000 * seconds, 1)
    say(f"3. serve exited {1000 * seconds:.0f} ms after SIGTERM, with 500 connections open")


def measure_many_hosts(folder):
    servers = {f"h{i}.test": {"model": "sequence", "responses": [{"status": 200}]} for i in range(64)}
    scenario = {"name": "64-hosts", "until": 30, "servers": servers,
                "queries": [{"name": "q", "requests": [{"host": h, "count": 5} for h in servers]}]}
    path = os.path.join(folder, "hosts64.json")
    json.dump(scenario, open(path, "w"))
    limit = 4 << 30
    run = subprocess.run([LAB, "run", "--live", path], capture_output=True, text=True, timeout=120,
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    FIGURES["hosts64_under_4GiB_exit"] = run.returncode
    ok = "completed 320" in run.stdout
    FIGURES["hosts64_completed_all"] = ok
    say(f"4. 64 hosts live under a 4 GiB address-space limit: exit {run.returncode}, "
        f"{'all 320 requests completed' if ok else run.stdout[-300:] + run.stderr[-300:]}")


def main():
    with tempfile.TemporaryDirectory() as folder:
        scenario = {"name": "load", "servers": {
            "a.test": {"model": "sequence", "responses": [{"status": 200, "body": "ok"}]},
            "stall.test": {"model": "sequence", "responses": [{"status": 200}],
                           "fault": {"kind": "stall", "probability": 1}}}}
        path = os.path.join(folder, "load.json")
        json.dump(scenario, open(path, "w"))
        resource.setrlimit(resource.RLIMIT_NOFILE, (8192, 8192))
        proc, ports = start_serve(path)
        try:
            measure_load(ports)
            measure_stalls(ports)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
        measure_sigterm(path)
        measure_many_hosts(folder)
    if AS_JSON:
        print(json.dumps(FIGURES))


if __name__ == "__main__":
    main()
