#!/usr/bin/env python3
"""Hostile input through the command line: every case must end in exit 2 with a message naming
the file (and the JSON Pointer where there is one), write nothing, never crash or abort, and stay
within a bounded amount of memory.

usage: hostile_inputs.py PACING_LAB SOURCE_DIR WORK_DIR [--sanitized]
(--sanitized: AddressSanitizer reserves terabytes of address space, so no memory limit is set)
"""

import json
import os
import resource
import shutil
import subprocess
import sys

LAB, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
SANITIZED = "--sanitized" in sys.argv[4:]
# Under the sanitizers (a Debug build, 50-100x slower) the volume cases are a tenth as large: they
# still check that nothing crashes; the memory bounds are checked by the plain build.
SCALE = 10 if SANITIZED else 1
MEMORY_LIMIT = 3 << 29  # address space per run (1.5 GiB): past the 1 GiB budget fails the case
FAILURES = []

MINIMAL = {
    "name": "hostile",
    "until": 5,
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200}]}},
    "queries": [{"name": "q", "requests": [{"host": "a.test", "count": 2}]}],
}


def limit_memory():
    if not SANITIZED:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def write(name, content):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(content if isinstance(content, str) else json.dumps(content))
    return path


def scenario(**changes):
    document = json.loads(json.dumps(MINIMAL))
    document.update(changes)
    return document


def case(name, args, code=2, says=(), absent=(), timeout=120):
    """Runs pacing-lab ARGS and checks its exit code, its message and that nothing was written."""
    try:
        run = subprocess.run([LAB] + args, capture_output=True, text=True, timeout=timeout,
                             preexec_fn=limit_memory)
    except subprocess.TimeoutExpired:
        FAILURES.append(f"{name}: still running after {timeout} s")
        return
    message = run.stderr + run.stdout
    if run.returncode != code:
        FAILURES.append(f"{name}: exit {run.returncode}, expected {code}:\n{message[-1500:]}")
        return
    for text in says:
        if text not in message:
            FAILURES.append(f"{name}: the message lacks {text!r}:\n{message[-1500:]}")
    for path in absent:
        if os.path.exists(path):
            FAILURES.append(f"{name}: {path} was written")
    if len(message.splitlines()) > 40:
        FAILURES.append(f"{name}: {len(message.splitlines())} lines of messages (the cap is 20 defects)")


def full_disk(ok):
    """Commands writing into a full (or read-only) file system: exit 2 and nothing left behind.
    Needs a private mount namespace (root, or unprivileged user namespaces); skipped without."""
    disk = os.path.join(WORK, "disk")
    os.makedirs(disk)
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs {disk}"],
                           capture_output=True)
    if probe.returncode != 0:
        print("skipped: the full-disk cases need a private mount namespace (unshare -m)")
        return
    shard = os.path.join(WORK, "shard")  # made by the merge cases above, or now
    if not os.path.exists(os.path.join(shard, "runs.csv")):
        subprocess.run([LAB, "sweep", ok, "--replications", "2", "--shard", "0/1", "--out", shard],
                       capture_output=True)
    commands = {
        "report": f"{LAB} report {ok} --strategies throttle,unpaced --out {disk}/out",
        "sweep": f"{LAB} sweep {ok} --replications 50 --out {disk}/out",
        "leaderboard": f"{LAB} leaderboard {ok} --replications 2 --out {disk}/out",
        "run": f"{LAB} run {ok} --out {disk}/out --trace {disk}/trace.jsonl",
    }
    for name, command in commands.items():
        # A disk with room for the folder and little else: a few KiB of padding fills it.
        script = (f"mount -t tmpfs -o size=16k tmpfs {disk} && "
                  f"head -c 12000 /dev/zero > {disk}/padding && {command} >/dev/null; code=$?; "
                  f"rm {disk}/padding; ls -A {disk}; exit $code")
        run = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                             timeout=300)
        left = run.stdout.split()
        if run.returncode != 2:
            FAILURES.append(f"{name} on a full disk: exit {run.returncode}, expected 2:\n"
                            f"{run.stderr[-800:]}")
        if left:
            FAILURES.append(f"{name} on a full disk left {left} behind")
    # A read-only --out: refused before anything runs.
    script = (f"mount -t tmpfs -o ro,size=64k tmpfs {disk} && "
              f"{LAB} sweep {ok} --replications 200000 --out {disk}/out")
    run = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                         timeout=60)
    if run.returncode != 2 or "sweep" in run.stderr.split("\n")[0] and "runs" in run.stderr and \
            "cannot" not in run.stderr:
        FAILURES.append(f"sweep --out on a read-only disk: exit {run.returncode}:\n{run.stderr[-800:]}")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    ok = write("ok.json", MINIMAL)
    out = os.path.join(WORK, "out")
    trace = os.path.join(WORK, "trace.jsonl")

    # 1. A directory where a file is expected, for every command that reads one.
    folder = os.path.join(WORK, "a-folder.json")
    os.makedirs(folder)
    for command in (["run"], ["check"], ["validate"], ["compare"], ["fidelity"],
                    ["report", "--out", out], ["sweep", "--out", out]):
        case(f"directory as the scenario ({command[0]})", command + [folder],
             says=[folder, "is a directory"], absent=[out])
    case("directory as a result to plot", ["plot", folder, "-o", os.path.join(WORK, "p.png")],
         says=["is a directory"], absent=[os.path.join(WORK, "p.png")])
    policy = scenario(servers={"a.test": {"model": "policy", "policy": "."}})
    case("directory as the policy", ["run", write("policy-dir.json", policy)],
         says=["/servers/a.test/policy", "is a directory"])

    # 2. Nesting far deeper than any scenario needs (100,000 levels, 400 KB).
    deep = '{"name": "deep", "servers": {}, "expect": [{"metric": "/x", "equals": ' + \
        "[" * 100000 + "]" * 100000 + "}]}"
    case("100,000 levels of nesting", ["run", write("deep.json", deep)],
         says=["deep.json", "nested deeper than 64 levels"])
    case("deep nesting in --set", ["run", ok, "--set", "/name=" + "[" * 50000 + "]" * 50000],
         says=["nested deeper than 64 levels"])

    # Found by fuzzing: a number too large for a double; phases out of order after a phase
    # without "at" (the message read the phase before, which had none).
    case("a number past what a double holds", ["run", write("overflow.json", '{"name": "o", "seed": 1e400}')],
         says=["overflow.json", "not valid JSON"])
    unsorted = scenario(servers={"a.test": {"model": "kgf", "phases": [{"at": 5}, {"x": 1}, {"at": 1}]}})
    case("phases out of order after one without at", ["validate", write("unsorted.json", unsorted)],
         says=["/servers/a.test/phases/2/at", "comes after 5"])

    # 3 and 4. Outputs that cannot be written: refused before the run, nothing left behind.
    case("--out into /proc", ["run", ok, "--out", "/proc/self/pacing", "--trace", trace],
         says=["/proc/self/pacing"], absent=[trace])
    case("--out over a file", ["run", ok, "--out", ok + "/sub", "--trace", trace],
         says=["sub"], absent=[trace])
    case("--trace to a full device", ["run", ok, "--trace", "/dev/full", "--out", out],
         says=["/dev/full", "cannot write"], absent=[os.path.join(out, "result.json")])
    case("--trace into a folder", ["run", ok, "--trace", WORK], says=["is a directory"])
    case("report into /proc", ["report", ok, "--out", "/proc/self/pacing"], says=["/proc/self"])

    # 5. An epoch past what the clocks hold.
    for year in ("2300", "9999", "0000", "1969"):
        case(f"epoch in {year}", ["validate", write("epoch.json", scenario(epoch=f"{year}-01-01T00:00:00Z"))],
             says=["/epoch", "1970-2200"])

    # 6. Input that would take unbounded memory or output.
    phases = [{"at": i * 0.001, "max_concurrent_work": 32 + i % 7} for i in range(30000 // SCALE)]
    big = scenario(servers={"a.test": {"model": "kgf", "service": 0.01, "phases": phases,
                                       "paths": {"/p": {"model": "sequence",
                                                        "responses": [{"status": 200}] * 2000}}}})
    case(f"{30000 // SCALE} phases", ["run", write("phases.json", big)], code=0)
    if not SANITIZED:  # a volume case: it needs the address-space limit to end in seconds
        flood = scenario(until=600, queries=[{"name": "q", "requests": [
            {"host": "a.test", "count": 100000000, "every": 0}]}])
        case("100 million requests waiting at once", ["run", write("flood.json", flood)],
             says=["memory"], timeout=300)
    case("--set far past the end of an array", ["run", ok, "--set", "/queries/100000000=1"],
         says=["an index may be at most 1"])
    case("--set a million past the end", ["run", ok, "--set", "/queries/1000000=1"],
         says=["an index may be at most 1"])
    many = scenario(queries=[{"name": f"q{i}", "requests": [{"host": "nowhere.test"}]}
                             for i in range(100000 // SCALE)])
    case(f"{100000 // SCALE} defects", ["validate", write("defects.json", many)],
         says=["more defects"])
    case("a file of 300 MB", ["run", write("huge.json", " " * (300 << 20))],
         says=["larger than 256 MiB"])

    # 7. CR/LF that would smuggle a second request onto the wire.
    injected = scenario(queries=[{"name": "q", "requests": [
        {"host": "a.test", "method": "GET / HTTP/1.1\r\nX: y", "count": 1,
         "headers": {"X-Note": "a\r\nGET /smuggled HTTP/1.1", "Bad Name": "x"}}]}])
    case("CR/LF in a method and a header", ["validate", write("inject.json", injected)],
         says=["/queries/0/requests/0/method", "/queries/0/requests/0/headers/X-Note",
               "/queries/0/requests/0/headers/Bad Name"])

    # 8. A number that becomes another when narrowed.
    wrapped = scenario(queries=[{"name": "q", "context": {"retryStatusCodes": [4294967796]},
                                 "requests": [{"host": "a.test"}]}])
    case("retryStatusCodes 4294967796", ["validate", write("narrow.json", wrapped)],
         says=["/queries/0/context/retryStatusCodes/0"])
    for field, value in (("inFlight", 2**32 + 1), ("retries", 2**63), ("inFlight", -2**63)):
        case(f"client {field} {value}", ["validate", write("narrow2.json", scenario(client={field: value}))],
             says=[f"/client/{field}"])

    # 9. Numbers past what they stand for (issue 51, class 4).
    for seed in ("-1", "18446744073709551616", "18446744073709551615", "9223372036854775808", "1e3"):
        seeded = os.path.join(WORK, "seeded")
        case(f"--seed {seed}", ["run", ok, "--seed", seed, "--out", seeded], says=["--seed"],
             absent=[seeded])
    overflow = scenario(clients=[{"name": "c", "count": 2,
                                  "headers": {"X-Client-Id": "u-{i-9223372036854775808}"}}])
    case("an index template past 64 bits", ["validate", write("template.json", overflow)],
         says=["/clients/0/headers/X-Client-Id", "up to 10^9"])
    case("a key twice in one object",
         ["validate", write("twice.json", '{"name": "t", "servers": {"a.test": {"model": "qlever",'
                                          ' "rate": 1, "rate": 100}}}')],
         says=["twice.json", "/servers/a.test/rate", "appears twice"])
    case("a server key with a user and password",
         ["validate", write("userinfo.json", scenario(servers={"u:p@a.test": {"model": "sequence",
                                                               "responses": [{"status": 200}]}}))],
         says=["userinfo.json", "/servers/u:p@a.test"])
    case("a million empty arrays", ["validate", write("arrays.json", "[" + "[]," * 6000000 + "[]]")],
         says=["arrays.json", "values"])
    shard = os.path.join(WORK, "shard")
    case("merge: a shard made", ["sweep", ok, "--replications", "2", "--shard", "0/1", "--out", shard],
         code=0)
    runs_csv = os.path.join(shard, "runs.csv")
    with open(runs_csv) as f:
        lines = f.read().splitlines()
    fields = lines[1].split(",")
    fields[5] = "nan"
    with open(runs_csv, "w") as f:
        f.write("\n".join([lines[0], ",".join(fields)] + lines[2:]) + "\n")
    merged = os.path.join(WORK, "merged")
    case("merge: nan in a shard's runs.csv", ["merge", shard, "--out", merged],
         says=["runs.csv", "line 2", "not a number"], absent=[merged])
    manifest = os.path.join(shard, "manifest.json")
    document = json.load(open(manifest))
    document["replications"] = 10**12
    with open(manifest, "w") as f:
        json.dump(document, f)
    case("merge: replications 10^12 in a manifest", ["merge", shard, "--out", merged],
         says=["manifest.json", "/replications"], absent=[merged])
    case("leaderboard --replications 10^7",
         ["leaderboard", ok, "--replications", "10000000", "--out", os.path.join(WORK, "board")],
         says=["--replications"], absent=[os.path.join(WORK, "board")])

    # 11. One memory budget, checked at load (issue 51, class 2).
    crowd = {"name": "c", "count": 100000}
    # (A header line past 8 KiB is refused before the budget, as the live servers would refuse it:
    # these stay just within that and pass the budget by their number.)
    for header in ({"X-Pad": "x" * 65536}, {"X-Id": "{i}" * 20000}):
        document = scenario(clients=[dict(crowd, headers=header)],
                            queries=[{"name": "q", "client": "c", "requests": [{"host": "a.test"}]}])
        case("a header past 8 KiB for 100,000 clients", ["validate", write("header.json", document)],
             says=["header.json", "/clients/0/headers/"])
    for name, clients in (
            ("an 8,000-byte header for 100,000 clients",
             [dict(crowd, headers={"X-Pad": "x" * 8000})]),
            ("{i} 350 times for 100,000 clients",
             [dict(crowd, headers={"X-Id": "{i}" * 350})]),
            ("30 populations of 100,000 clients",
             [dict(crowd, name=f"p{k}") for k in range(30)])):
        document = scenario(clients=clients, queries=[{"name": "q", "client": clients[0]["name"],
                                                       "requests": [{"host": "a.test"}]}])
        path = write("budget.json", document)
        case(name, ["run", path], says=["budget.json", "/clients/", "memory budget"])
        case(name + " (validate)", ["validate", path], says=["memory budget"])
    body = scenario(servers={"a.test": {"model": "sequence",
                                        "responses": [{"status": 200, "service": 10,
                                                       "body": "b" * (4 << 20)}]}},
                    queries=[{"name": "q", "requests": [{"host": "a.test", "count": 600}]}])
    case("a 4 MB body for 600 requests in service", ["run", write("body.json", body)],
         says=["/queries/0/requests/0/count", "memory budget"])
    # A policy of 16,000 rate limiters: each request looked each limiter up by a scan (521 s).
    les = json.load(open(os.path.join(SOURCE, "scenarios", "policies", "les-example.json")))
    capability = les["capability-policies"][0]
    capability["rate-limiters"] = [dict(capability["rate-limiters"][0], name=f"r{k}")
                                   for k in range(16000)]
    many_limiters = scenario(until=60, servers={"a.test": {"model": "policy",
                                                          "policy": write("limiters.json", les)}},
                             queries=[{"name": "q", "requests": [{"host": "a.test", "count": 2000,
                                                                  "every": 0.01}]}])
    case("16,000 rate limiters", ["run", write("many-limiters.json", many_limiters)], code=0,
         timeout=30 * SCALE)
    case("--memory-budget raises the budget", ["validate", write("body.json", body),
                                                "--memory-budget", "8192"], code=0)

    # 10. Outputs never follow a link, and are whole or absent (issue 51, class 3).
    victim = write("victim.txt", "precious")
    result_json = os.path.join(WORK, "one", "result.json")
    case("a run to plot", ["run", ok, "--out", os.path.join(WORK, "one")], code=0)
    link = os.path.join(WORK, "link.png")
    os.symlink(victim, link)
    has_plot = subprocess.run([LAB, "plot", "--help"], capture_output=True).returncode == 0
    if has_plot:
        case("plot -o a link", ["plot", result_json, "-o", link], code=0)
        if open(victim).read() != "precious" or os.path.islink(link):
            FAILURES.append("plot -o LINK wrote through the link")
    report_dir = os.path.join(WORK, "report")
    os.makedirs(report_dir)
    os.symlink(victim, os.path.join(report_dir, "charts.png"))
    os.symlink(victim, os.path.join(report_dir, "report.md"))
    case("report over links", ["report", ok, "--strategies", "throttle", "--out", report_dir], code=0)
    if open(victim).read() != "precious":
        FAILURES.append("report wrote through a link in its --out folder")
    fresh = os.path.join(WORK, "fresh-run")
    case("run failing after making --out", ["run", ok, "--trace", "/dev/full", "--out", fresh],
         says=["/dev/full"], absent=[fresh])
    full_disk(ok)

    for failure in FAILURES:
        print("FAIL " + failure)
    print(f"{len(FAILURES)} failures")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
