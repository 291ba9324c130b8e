#!/usr/bin/env python3
"""The lab as a package others use: `cmake --install` into a staging prefix; the installed
pacing-lab answers --version and finds its own scenario library; examples/fetch builds against the
installed core twice (find_package(pacing) and pkg-config) and paces real HTTP requests to a mock
server that the installed `pacing-lab serve` starts on loopback.

usage: install_and_use.py BUILD_DIR SOURCE_DIR WORK_DIR VERSION
"""

import os
import shutil
import signal
import subprocess
import sys

BUILD, SOURCE, WORK, VERSION = sys.argv[1:5]
STAGE = os.path.join(WORK, "stage")
FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL", what, flush=True)


def run(*args, env=None, expect=0):
    done = subprocess.run(list(args), capture_output=True, text=True, timeout=600, env=env)
    check(done.returncode == expect,
          f"{' '.join(args)}: exit {done.returncode}: {done.stdout[-2000:]} {done.stderr[-2000:]}")
    return done


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
run("cmake", "--install", BUILD, "--prefix", STAGE)
for path in ["bin/pacing-lab", "share/pacing-lab/scenarios/kgf-burst.json",
             "share/pacing-lab/scenarios/schema/scenario.schema.json",
             "include/pacing/core/engine.hpp", "include/pacing/asio/beast_transport.hpp",
             "lib/libpacing_core.a", "lib/libpacing_asio.a", "lib/cmake/pacing/pacingConfig.cmake",
             "lib/pkgconfig/pacing-core.pc", "lib/pkgconfig/pacing-asio.pc"]:
    check(os.path.exists(os.path.join(STAGE, path)), f"installed {path}")
headers = [f for _, _, files in os.walk(os.path.join(STAGE, "include")) for f in files]
check(headers and all(f.endswith(".hpp") for f in headers), f"only headers in include/: {headers}")

lab = os.path.join(STAGE, "bin", "pacing-lab")
check(run(lab, "--version").stdout.strip() == f"pacing-lab {VERSION}", "installed --version")
scenarios = os.path.join(STAGE, "share", "pacing-lab", "scenarios")
files = sorted(os.path.join(scenarios, f) for f in os.listdir(scenarios) if f.endswith(".json"))
run(lab, "validate", *files)  # relative policy paths resolve in the installed library
# The installed lab's default library is the installed one (the source tree is not asked).
board = run(lab, "leaderboard", "--strategies", "fixed", "--replications", "1",
            "--out", os.path.join(WORK, "board"), "--jobs", "2")
check("scenarios" in board.stderr and str(len([f for f in files if "/live-" not in f])) in
      board.stderr, f"leaderboard over the installed library: {board.stderr[:300]}")

# examples/fetch against the staged install, with CMake and with pkg-config.
fetch_build = os.path.join(WORK, "fetch-build")
run("cmake", "-S", os.path.join(SOURCE, "examples", "fetch"), "-B", fetch_build,
    f"-DCMAKE_PREFIX_PATH={STAGE}", "-DCMAKE_BUILD_TYPE=Release")
run("cmake", "--build", fetch_build, "-j2")
fetch = os.path.join(fetch_build, "pacing-fetch")
env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(STAGE, "lib", "pkgconfig"))
flags = run("pkg-config", "--cflags", "--libs", "pacing-asio", env=env).stdout.split()
check(any(f.endswith("include/pacing") for f in flags), f"pkg-config flags: {flags}")
fetch_pc = os.path.join(WORK, "pacing-fetch-pc")
run("g++", "-O1", os.path.join(SOURCE, "examples", "fetch", "main.cpp"), "-o", fetch_pc, *flags)

# Real HTTP on loopback: the installed serve hosts a model that answers 200; five requests at
# 10 per second leave 100 ms apart, so the last completes 400 ms after the first left at the
# earliest.
scenario = os.path.join(WORK, "ok.json")
with open(scenario, "w") as f:
    f.write('{"name": "ok", "servers": {"ok.test": {"model": "sequence", '
            '"responses": [{"status": 200}]}}, "queries": []}')
serve = subprocess.Popen([lab, "serve", scenario], stdout=subprocess.PIPE, text=True)
try:
    host, port = serve.stdout.readline().split()
    for program in [fetch, fetch_pc]:
        urls = [f"http://127.0.0.1:{port}/sparql?q={i}" for i in range(5)]
        out = run(program, "--per-second", "10", *urls).stdout.splitlines()
        check(len(out) == 5 and all(line.split()[1] == "200" for line in out),
              f"{program}: {out}")
        check(out and float(out[-1].split()[0]) >= 0.4, f"{program}: not paced: {out}")
finally:
    serve.send_signal(signal.SIGTERM)
    serve.wait(timeout=30)

print(f"{len(FAILURES)} failures" if FAILURES else "ok")
sys.exit(1 if FAILURES else 0)
