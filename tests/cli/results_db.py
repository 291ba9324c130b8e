#!/usr/bin/env python3
"""The results database (--db FILE.sqlite) read as an analyst reads it, with Python's sqlite3,
and checked against the JSON results and the trace of the same runs: run (a crowd scenario),
sweep (run ids as in runs.csv) and leaderboard; and a bad --db path is refused before any run.

usage: results_db.py PACING_LAB SOURCE_DIR WORK_DIR
"""

import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys

LAB, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL", what)


def lab(*args, expect=0):
    done = subprocess.run([LAB, *args], capture_output=True, text=True, timeout=600)
    check(done.returncode == expect,
          f"pacing-lab {' '.join(args)}: exit {done.returncode}, expected {expect}: {done.stderr}")
    return done


def scenario(name):
    return os.path.join(SOURCE, "scenarios", name)


def close(a, b):
    return a == b or (a is not None and b is not None and abs(a - b) <= 1e-9 * max(1, abs(b)))


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

# --- run: one crowd run, with result.json and the trace beside the database ------------------
db_file = os.path.join(WORK, "run.sqlite")
lab("run", scenario("policy-crowd.json"), "--set", "/seed=7", "--out", os.path.join(WORK, "run"),
    "--trace", os.path.join(WORK, "run.jsonl"), "--db", db_file)
result = json.load(open(os.path.join(WORK, "run", "result.json")))
trace = [json.loads(line) for line in open(os.path.join(WORK, "run.jsonl"))]
db = sqlite3.connect(db_file)
db.row_factory = sqlite3.Row

meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
check(meta.get("schema_version") == "2" and meta.get("command") == "run", f"meta: {meta}")
runs = db.execute("SELECT * FROM runs").fetchall()
check(len(runs) == 1, f"runs: {len(runs)} rows")
check(runs[0]["scenario"] == result["scenario"] and runs[0]["strategy"] == result["strategy"]
      and runs[0]["seed"] == 7, f"runs row: {dict(runs[0])}")
check(json.loads(runs[0]["parameters"]) == {"/seed": 7}, f"parameters: {runs[0]['parameters']}")

summary = dict(db.execute("SELECT * FROM summary WHERE run = 0").fetchone())
for key in ["requests", "completed", "succeeded", "gave_up", "failed", "aborted", "refusals",
            "retries", "makespan", "fairness"]:
    check(close(summary[key], result["summary"][key]), f"summary.{key}: {summary[key]} vs "
          f"{result['summary'][key]}")
for p in ["p50", "p95", "p99"]:
    check(close(summary["latency_" + p], result["summary"]["latency"][p]), f"latency_{p}")

hosts = {r["host"]: dict(r) for r in db.execute("SELECT * FROM hosts WHERE run = 0")}
check(set(hosts) == set(result["hosts"]), f"hosts: {sorted(hosts)}")
for host, figures in result["hosts"].items():
    for key in ["starts", "refusals", "retries", "gave_up", "max_in_flight", "max_interval"]:
        check(close(hosts[host][key], figures[key]), f"hosts.{host}.{key}")

# Every scalar is the number at its JSON pointer; a fairness figure of a population among them.
for name, value in db.execute("SELECT name, value FROM scalars WHERE run = 0"):
    node = result
    for token in name.split("/")[1:]:
        node = node[token.replace("~1", "/").replace("~0", "~")]
    check(close(value, float(node) if node is not None else None), f"scalar {name}")
population = next(iter(result["clients"]))
jain = db.execute("SELECT value FROM scalars WHERE run = 0 AND name = ?",
                  (f"/clients/{population}/fairness/jain",)).fetchone()
check(jain is not None and close(jain[0], result["clients"][population]["fairness"]["jain"]),
      "the population's Jain index is a scalar")

# The attempts table is the trace, row for row.
attempts = db.execute("SELECT * FROM attempts WHERE run = 0 ORDER BY rowid").fetchall()
check(len(attempts) == len(trace), f"attempts: {len(attempts)} rows, trace {len(trace)} lines")
for row, line in zip(attempts, trace):
    for key, value in line.items():
        if not close(row[key], value):
            check(False, f"attempt {line['request']}/{line['attempt']}.{key}: {row[key]} vs {value}")
            break
# The orders number the run's sends and ends together, 0, 1, 2, ...: each row's end comes in table
# order, each send before its end, a request that never started has none; replayed in that order,
# the instants never go back, and each host's in-flight count peaks at its max_in_flight.
events = []
for row in attempts:
    check((row["sent_order"] is None) == (row["sent"] is None), f"sent_order of {dict(row)}")
    if row["sent_order"] is not None:
        check(row["sent_order"] < row["settled_order"], f"sent after its end: {dict(row)}")
        events.append((row["sent_order"], row["sent"], row["host"], +1))
    events.append((row["settled_order"], row["settled"], row["host"], -1))
check([row["settled_order"] for row in attempts] == sorted(row["settled_order"] for row in attempts),
      "ends are numbered in the order the rows were written")
events.sort()
check([e[0] for e in events] == list(range(len(events))), "orders 0, 1, 2, ... without a gap")
check(all(a[1] <= b[1] for a, b in zip(events, events[1:])), "replayed, the instants never go back")
level, peak = {}, {}
for _, _, host, step in events:
    level[host] = level.get(host, 0) + step
    peak[host] = max(peak.get(host, 0), level[host])
for host, figures in result["hosts"].items():
    check(peak.get(host, 0) == figures["max_in_flight"],
          f"{host}: replayed peak {peak.get(host, 0)}, max_in_flight {figures['max_in_flight']}")
# Starts per host: attempts that were sent (the contract's starts).
for host, starts in db.execute(
        "SELECT host, COUNT(*) FROM attempts WHERE run = 0 AND sent IS NOT NULL GROUP BY host"):
    check(starts == result["hosts"][host]["starts"], f"starts of {host} from attempts")

# Series: every [t, value] point of every host's in-flight series, in order.
for host, figures in result["hosts"].items():
    points = db.execute("SELECT t, value FROM series WHERE run = 0 AND owner = ? AND "
                        "name = 'in_flight' ORDER BY rowid", (f"/hosts/{host}",)).fetchall()
    check([list(p) for p in points] == figures["series"]["in_flight"],
          f"series in_flight of {host}")
for pop, figures in result["clients"].items():
    rows = db.execute("SELECT completed, goodput FROM clients WHERE run = 0 AND population = ? "
                      "ORDER BY client", (pop,)).fetchall()
    check([r[0] for r in rows] == figures["per_client"]["completed"], f"clients {pop} completed")
    check(all(close(r[1], g) for r, g in zip(rows, figures["per_client"]["goodput"])),
          f"clients {pop} goodput")
db.close()

# --- sweep: one file, a run id on every row, the same figures as runs.csv -------------------
sweep_db = os.path.join(WORK, "sweep.sqlite")
lab("sweep", scenario("tune-qlever.json"), "--grid", "/client/hosts/qlever.example.org/perSecond=1,2",
    "--replications", "2", "--jobs", "2", "--out", os.path.join(WORK, "sweep"), "--db", sweep_db)
rows = list(csv.DictReader(open(os.path.join(WORK, "sweep", "runs.csv"))))
db = sqlite3.connect(sweep_db)
got = {r[0]: r[1:] for r in db.execute(
    "SELECT run, seed, combination, replication, parameters, makespan, refusals "
    "FROM runs JOIN summary USING (run)")}
check(len(got) == len(rows) == 4, f"sweep: {len(got)} runs in the database, {len(rows)} in csv")
for r in rows:
    seed, combination, replication, parameters, makespan, refusals = got[int(r["run"])]
    check(seed == int(r["seed"]) and combination == int(r["combination"])
          and replication == int(r["replication"]), f"sweep run {r['run']} identity")
    check(json.loads(parameters) == {"/client/hosts/qlever.example.org/perSecond":
                                     json.loads(r["/client/hosts/qlever.example.org/perSecond"])},
          f"sweep run {r['run']} parameters {parameters}")
    check(close(makespan, float(r["makespan"])) and close(refusals, float(r["refusals"])),
          f"sweep run {r['run']} figures")
orphans = db.execute("SELECT COUNT(*) FROM attempts WHERE run NOT IN (SELECT run FROM runs)")
check(orphans.fetchone()[0] == 0, "every attempt names a run of the sweep")
db.close()

# The database may live in the sweep's --out folder, made by the sweep as `run --out` makes its.
inside = os.path.join(WORK, "fresh-out")
lab("sweep", scenario("tune-qlever.json"), "--replications", "1", "--jobs", "1",
    "--out", inside, "--db", os.path.join(inside, "runs.sqlite"))
check(os.path.isfile(os.path.join(inside, "runs.sqlite")), "sweep --db inside a new --out folder")

# --- leaderboard ------------------------------------------------------------------------------
board_db = os.path.join(WORK, "board.sqlite")
lab("leaderboard", scenario("kgf-burst.json"), "--strategies", "throttle,unpaced",
    "--replications", "2", "--out", os.path.join(WORK, "board"), "--db", board_db)
db = sqlite3.connect(board_db)
strategies = db.execute("SELECT strategy, COUNT(*) FROM runs GROUP BY strategy").fetchall()
check(sorted(strategies) == [("throttle", 2), ("unpaced", 2)], f"leaderboard runs: {strategies}")
db.close()

# --- bad paths: exit 2 before any run, nothing written --------------------------------------
os.makedirs(os.path.join(WORK, "a-folder"))
for bad in [os.path.join(WORK, "a-folder"), os.path.join(WORK, "no", "such", "x.sqlite"),
            "/dev/null"]:
    done = lab("run", scenario("kgf-burst.json"), "--db", bad, expect=2)
    check(bad in done.stderr and "database" in done.stderr, f"--db {bad}: {done.stderr}")
leftovers = [f for f in os.listdir(WORK) if ".tmp-" in f]
check(not leftovers, f"temporary files left: {leftovers}")

print(f"{len(FAILURES)} failures" if FAILURES else "ok")
sys.exit(1 if FAILURES else 0)
