#!/usr/bin/env python3
"""Keeps docs/design.md true: every test it names must exist, and it must not point outside the
repository (users clone the repository alone).

Usage: design_names.py DESIGN_MD TEST_BINARY...

Each TEST_BINARY is a GoogleTest program; its --gtest_list_tests output gives the tests that
exist. The design names a test as `Suite.TestName` in backticks. Parameterized and typed tests
are listed as `Prefix/Suite.` with `Test/0  # GetParam() = ...`; they are matched without the
instantiation prefix, the `/N` suffixes and the comments, as a reader would name them.
Exit 0 when every name exists, 1 (listing what is wrong) otherwise, 2 on bad usage.
"""

import re
import subprocess
import sys

# A backticked token that reads as a test name: `Suite.TestName`.
NAME = re.compile(r"^[A-Z][A-Za-z0-9_]*\.[A-Z][A-Za-z0-9_]*$")
BACKTICKED = re.compile(r"`([^`\n]+)`")
# The repository's sibling folder: a path there exists on the founders' machine only. Spelled in
# two parts so that a search of the repository for it finds only what this check must catch.
OUTSIDE = "/".join(["..", "shared"])


def listed_tests(binary):
    """Every test a GoogleTest program lists, as exact names and as plain `Suite.Test` names."""
    try:
        out = subprocess.run([binary, "--gtest_list_tests"], check=True, capture_output=True,
                             text=True, timeout=120).stdout
    except (OSError, subprocess.SubprocessError) as error:
        sys.exit(f"design_names.py: cannot list the tests of {binary}: {error}")
    names = set()
    suite = None
    for line in out.splitlines():
        text = line.split("#", 1)[0].rstrip()
        if not text.strip():
            continue
        if not line.startswith(" "):
            if text.endswith("."):
                suite = text[:-1]
            else:
                suite = None  # "Running main() from ...", not a suite
            continue
        if suite is None:
            continue
        test = text.strip()
        names.add(f"{suite}.{test}")
        suite_plain = [p for p in suite.split("/") if p and not p.isdigit()]
        test_plain = test.split("/", 1)[0]
        # 'Prefix/Suite' (value-parameterized) and 'Suite/0' (typed): either piece may be meant.
        for s in suite_plain:
            names.add(f"{s}.{test_plain}")
    return names


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    design, binaries = argv[1], argv[2:]
    try:
        with open(design, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        print(f"design_names.py: {design}: {error}", file=sys.stderr)
        return 2

    existing = set()
    for binary in binaries:
        existing |= listed_tests(binary)

    named = {}
    for number, line in enumerate(text.splitlines(), start=1):
        for token in BACKTICKED.findall(line):
            if NAME.match(token):
                named.setdefault(token, number)

    problems = []
    for token, number in sorted(named.items(), key=lambda item: item[1]):
        if token not in existing:
            problems.append(f"{design}:{number}: `{token}` is not a test of {', '.join(binaries)}")
    for number, line in enumerate(text.splitlines(), start=1):
        if OUTSIDE in line:
            problems.append(f"{design}:{number}: points outside the repository ({OUTSIDE})")

    if problems:
        print("\n".join(problems), file=sys.stderr)
        print(f"design_names.py: {len(problems)} problem(s); {len(named)} test names checked",
              file=sys.stderr)
        return 1
    print(f"design_names.py: all {len(named)} test names in {design} exist")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
