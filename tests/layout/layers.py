#!/usr/bin/env python3
"""The folders are layers: a file may include only files of its own folder or of a folder listed
above it (ORDER), and inside a folder the units (a .hpp with its .cpp, and the files named after
it that hold its parts: engine_impl.hpp and engine_answers.cpp are the engine's) include each
other without a circle. A unit with a private implementation (X_impl.hpp: the engine) is judged
by its public header: hiding what the implementation uses is what the implementation is for.
Exit 1, naming every arrow back up and every circle.

usage: layers.py SOURCE_DIR
"""

import os
import re
import sys

# From the bottom up: each folder may use those before it.
ORDER = ["core", "input", "asio", "models", "strategies", "scenario", "results", "observations",
         "checks", "sim",
         "experiments", "mockservers", "live", "recording", "gui", "cli"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def units(source):
    """Every file of the layered folders, by path from the source directory."""
    files = {}
    for folder in ORDER:
        for root, _, names in os.walk(os.path.join(source, folder)):
            for name in names:
                if name.endswith((".hpp", ".cpp", ".h")):
                    path = os.path.relpath(os.path.join(root, name), source)
                    files[path] = INCLUDE.findall(open(os.path.join(source, path)).read())
    return files


def main():
    source = sys.argv[1]
    files = units(source)
    problems = []
    rank = {folder: i for i, folder in enumerate(ORDER)}
    graph = {}
    stems = {os.path.splitext(path)[0] for path in files}

    headers = {os.path.splitext(path)[0] for path in files if path.endswith(".hpp")}

    def unit_of(path):
        """The unit a file belongs to: its stem, or the unit it is a part of (X_impl.hpp, or a
        .cpp of no header of its own named X_something)."""
        stem = os.path.splitext(path)[0]
        for other in sorted(stems, key=len):
            if os.path.dirname(other) != os.path.dirname(stem) or not stem.startswith(other + "_"):
                continue
            if stem == other + "_impl" or (path.endswith(".cpp") and stem not in headers):
                return other
        return stem

    def private(path):
        """A file of a unit's private implementation: its .cpp files, where it has an _impl."""
        unit = unit_of(path)
        return unit + "_impl" in stems and not path == unit + ".hpp"

    for path, includes in files.items():
        folder = path.split("/")[0]
        unit = unit_of(path)
        for included in includes:
            target = included.split("/")[0]
            if target not in rank:
                continue  # a system or third-party header
            if rank[target] > rank[folder]:
                problems.append(f"{path} includes {included}: {target}/ is above {folder}/")
            if (target == folder and os.path.dirname(included) == os.path.dirname(path)
                    and not private(path)):
                other = unit_of(included)
                if other != unit:
                    graph.setdefault(unit, set()).add(other)
    # Circles among the units of one folder.
    state = {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                problems.append("a circle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    for p in problems:
        print(p)
    print(f"{len(files)} files in {len(ORDER)} layers: "
          + ("ok" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
