#!/usr/bin/env python3
"""`pacing-lab record` and `serve --record` with real clients on loopback: Debian's curl, Python's
requests (urllib3's Retry), Node's fetch (when npm's node is installed in examples/clients), each
unchanged, through the lab's proxy. Checks what the servers recorded, the exit codes, and that bad
input writes nothing. Exit 1 naming every failure.

usage: record.py PACING_LAB SOURCE_DIR WORK_DIR
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

LAB, SOURCE, WORK = sys.argv[1:4]
FAILURES = []
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
PYTHON = "/usr/bin/python3"  # Debian's, with Debian's python3-requests
NODE = os.path.join(SOURCE, "examples", "clients", "node_modules", ".bin", "node")


def check(condition, message):
    if not condition:
        FAILURES.append(message)
    return condition


def write(name, content):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(json.dumps(content) if not isinstance(content, str) else content)
    return path


# One host that refuses the first request with 429 + Retry-After: 1, then answers.
REFUSE_ONCE = write("refuse-once.json", {
    "name": "refuse-once", "seed": 1,
    "servers": {"api.test": {"model": "sequence", "responses": [
        {"status": 429, "headers": {"Retry-After": "1"}}, {"status": 200, "body": "ok"}]}},
    "expect": [{"metric": "/summary/completed", "min": 1},
               {"metric": "/summary/retries", "max": 0},
               {"metric": "/summary/refusals", "max": 0, "strategy": "throttle"}]})


def record(args, out, timeout=60):
    run = subprocess.run([LAB, "record", REFUSE_ONCE if args[0] == "--" else args[0]]
                         + ["--out", out] + (args if args[0] == "--" else args[1:]),
                         capture_output=True, text=True, timeout=timeout)
    return run


def read(out):
    result = json.load(open(os.path.join(out, "result.json")))
    trace = [json.loads(line) for line in open(os.path.join(out, "trace.jsonl"))]
    return result, trace


def refused_then_answered(name, out, run, user_agent):
    """The client's two exchanges: refused, then answered no sooner than Retry-After allowed."""
    if not check(run.returncode == 0, f"{name}: exit {run.returncode}\n{run.stdout}{run.stderr}"):
        return
    result, trace = read(out)
    check(result["strategy"] == "recorded", f"{name}: strategy {result['strategy']}")
    check([t["status"] for t in trace] == [429, 200], f"{name}: statuses {trace}")
    if len(trace) == 2:
        gap = trace[1]["arrived"] - trace[0]["settled"]
        check(gap >= 0.99, f"{name}: retried {gap:.3f} s after the refusal, Retry-After said 1 s")
        check(trace[0]["user_agent"].startswith(user_agent), f"{name}: user agent {trace[0]}")
        check(trace[0]["via_proxy"] == (name != "node fetch"), f"{name}: via_proxy {trace[0]}")
        check(trace[0]["retry_after"] == 1.0, f"{name}: retry_after {trace[0]}")
    summary = result["summary"]
    check(summary["requests"] == 2 and summary["refusals"] == 1 and summary["completed"] == 1,
          f"{name}: summary {summary}")
    check(summary["retries"] is None and summary["gave_up"] is None,
          f"{name}: client-only figures must be null: {summary}")
    host = result["hosts"]["api.test"]
    check(host["starts"] == 2 and host["refusals"] == 1, f"{name}: host {host}")
    check(result["recording"]["command_status"] == 0, f"{name}: {result['recording']}")
    # The expectations: one judged (passed), one on a client-only figure, one for a strategy.
    check("ok   /summary/completed" in run.stdout, f"{name}: completed not judged:\n{run.stdout}")
    check("n/a  /summary/retries (only a client knows it)" in run.stdout,
          f"{name}: retries not n/a:\n{run.stdout}")
    check("n/a  /summary/refusals (meant for the strategy throttle)" in run.stdout,
          f"{name}: strategy expectation not n/a:\n{run.stdout}")


def main():
    # 1. Real clients, unchanged, through the proxy.
    out = os.path.join(WORK, "curl")
    run = record(["--", "curl", "-sS", "-o", "/dev/null", "--retry", "2",
                  "http://api.test/data"], out)
    refused_then_answered("curl", out, run, "curl/")

    out = os.path.join(WORK, "python")
    run = record(["--", PYTHON, os.path.join(SOURCE, "examples/clients/python_requests.py"),
                  "http://api.test/data"], out)
    refused_then_answered("python requests", out, run, "python-requests/")

    if os.path.exists(NODE):
        out = os.path.join(WORK, "node")
        run = record(["--", NODE, os.path.join(SOURCE, "examples/clients/node_fetch.js"),
                      "http://api.test/data"], out)
        refused_then_answered("node fetch", out, run, "node")
    else:
        FAILURES.append(f"{NODE} is missing: tools/lab.sh test installs it (npm ci)")

    # 2. Held to a strategy's expectations: the client was refused once, throttle never is.
    out = os.path.join(WORK, "as-throttle")
    run = record([REFUSE_ONCE, "--expect-as", "throttle", "--", "curl", "-sS", "-o",
                  "/dev/null", "--retry", "2", "http://api.test/data"], out)
    check(run.returncode == 1 and "FAIL /summary/refusals = 1, expected <= 0" in run.stdout,
          f"--expect-as throttle: exit {run.returncode}\n{run.stdout}{run.stderr}")

    # 3. The command's own failure is reported, the recording still written.
    out = os.path.join(WORK, "false")
    run = record(["--", "false"], out)
    check(run.returncode == 1 and "the command exited with status 1" in run.stdout,
          f"false: exit {run.returncode}\n{run.stdout}")
    check(os.path.exists(os.path.join(out, "result.json")), "false: no result.json")

    # 4. A client that outlives --timeout is stopped (its process group too).
    out = os.path.join(WORK, "timeout")
    began = time.monotonic()
    run = subprocess.run([LAB, "record", REFUSE_ONCE, "--out", out, "--timeout", "0.5", "--",
                          "sh", "-c", "sleep 30; sleep 30"], capture_output=True, text=True,
                         timeout=60)
    took = time.monotonic() - began
    check(run.returncode == 1 and "ran past --timeout" in run.stdout and took < 10,
          f"--timeout: exit {run.returncode} after {took:.1f} s\n{run.stdout}{run.stderr}")

    # 5. Bad input: exit 2, nothing written.
    for name, args in [
            ("a command that does not exist", [REFUSE_ONCE, "--", "/nonexistent/client"]),
            ("a bad scenario", [write("bad.json", "{\"servers\": 5}"), "--", "true"]),
            ("an unknown --expect-as", [REFUSE_ONCE, "--expect-as", "nope", "--", "true"])]:
        out = os.path.join(WORK, "bad-" + name.split()[-1])
        run = subprocess.run([LAB, "record", args[0], "--out", out] + args[1:],
                             capture_output=True, text=True, timeout=60)
        check(run.returncode == 2, f"{name}: exit {run.returncode}\n{run.stderr}")
        check(not os.path.exists(out), f"{name}: {out} was written")

    # 6. serve --record: stops by itself after --requests, and on SIGTERM; writes the recording.
    out = os.path.join(WORK, "serve")
    serve = subprocess.Popen([LAB, "serve", REFUSE_ONCE, "--record", out, "--proxy", "0",
                              "--requests", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    lines = {}
    while "proxy" not in lines:
        line = serve.stdout.readline()
        if not line:
            break
        key, port = line.split()
        lines[key] = int(port)
    proxy = f"http://127.0.0.1:{lines.get('proxy')}"
    subprocess.run(["curl", "-sS", "-o", "/dev/null", "--proxy", proxy, "--retry", "2",
                    "http://api.test/a"], timeout=30)
    try:
        serve.wait(timeout=30)
    except subprocess.TimeoutExpired:
        serve.kill()
    check(serve.returncode == 0, f"serve --requests 2: exit {serve.returncode}")
    if check(os.path.exists(os.path.join(out, "result.json")), "serve --requests: no result.json"):
        result, trace = read(out)
        check(result["summary"]["requests"] == 2 and result["recording"]["stopped_by"] ==
              "--requests", f"serve --requests: {result['summary']} {result['recording']}")

    out = os.path.join(WORK, "serve-term")
    serve = subprocess.Popen([LAB, "serve", REFUSE_ONCE, "--record", out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    port = int(serve.stdout.readline().split()[1])
    subprocess.run(["curl", "-sS", "-o", "/dev/null", "-H", "Host: api.test",
                    f"http://127.0.0.1:{port}/x"], timeout=30)
    serve.send_signal(signal.SIGTERM)
    serve.wait(timeout=30)
    if check(os.path.exists(os.path.join(out, "trace.jsonl")), "serve + SIGTERM: no trace"):
        result, trace = read(out)
        check(len(trace) == 1 and trace[0]["status"] == 429 and not trace[0]["via_proxy"],
              f"serve + SIGTERM: {trace}")

    # 7. A recording is a run like any other: plot draws it (where the lab has Qt).
    if subprocess.run([LAB, "plot", "--help"], capture_output=True).returncode == 0:
        png = os.path.join(WORK, "curl.png")
        run = subprocess.run([LAB, "plot", os.path.join(WORK, "curl", "result.json"), "-o", png],
                             capture_output=True, text=True, timeout=120,
                             env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        check(run.returncode == 0 and os.path.getsize(png) > 1000,
              f"plot of a recording: exit {run.returncode}\n{run.stderr}")

    for f in FAILURES:
        print("FAIL", f)
    print(f"{len(FAILURES)} failures")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
