#!/usr/bin/env python3
"""layers.py — the shape of locksim's tree, checked and drawn from
tools/layers.txt (the layers, bottom first).

  layers.py check   the lint `make test` runs (tests/tidy.sh): every
                    include is written "folder/file.h" and names a file that
                    exists; no folder includes from a folder above it; no
                    one includes another folder's private *_int.h; every C
                    file is in a listed folder; and nothing in a
                    deterministic folder reads the wall clock or draws
                    unseeded randomness. Prints file:line: error: ... and
                    exits 1 on a finding.
  layers.py graph   the include graph between folders as a table: for each
                    folder, the folders it includes from (with the number
                    of include lines), upward edges and cycles marked.
  layers.py dot     the same graph in Graphviz dot.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# Folders outside the layering: they may include anything.
FREE = ("tests", "bench", "tools")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
# Calls that read the wall clock or draw unseeded randomness, and what to
# use instead (TigerBeetle tidy.zig).
BANNED = [
    (re.compile(r"(^|[^_a-zA-Z0-9.>])rand\s*\("), "rand(", "sim_choose() or sim_stream()"),
    (re.compile(r"(^|[^_a-zA-Z0-9])srand\s*\("), "srand(", "sim_new(seed)"),
    (re.compile(r"(^|[^_a-zA-Z0-9.>])time\s*\("), "time(", "sim_now() or a node clock"),
    (re.compile(r"gettimeofday"), "gettimeofday", "sim_now() or a node clock"),
    (re.compile(r"clock_gettime"), "clock_gettime", "sim_now() or a node clock"),
    (re.compile(r"fiu_enable_random"), "fiu_enable_random", "fiu_enable_external with sim_choose()"),
    (re.compile(r"(^|[^_a-zA-Z0-9])host_[a-z_]+\s*\("), "host_*()", "sim_now(): the host is not deterministic"),
    (re.compile(r'#\s*include\s+"sim/kernel/host\.h"'), "sim/kernel/host.h", "the sim context"),
]


def load_layers():
    layers = []
    with open(os.path.join(ROOT, "tools", "layers.txt")) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            layers.append({"folder": line[0], "det": line[1] == "yes", "exempt": set(line[2:])})
    return layers


def sources():
    """Every .c and .h file of the tree, relative to ROOT (build folders and
    git's aside)."""
    out = []
    for d, subs, files in os.walk(ROOT):
        rel = os.path.relpath(d, ROOT)
        subs[:] = [s for s in subs if not s.startswith((".", "build", "out"))]
        for f in files:
            if f.endswith((".c", ".h")):
                out.append(os.path.normpath(os.path.join(rel, f)))
    return sorted(out)


def strip(text):
    """The text with string literals emptied and comments blanked, line
    numbers kept (a banned word in a message is not a call)."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    text = re.sub(r'"([^"\\\n]|\\.)*"', '""', text)
    return re.sub(r"//[^\n]*", "", text)


def includes(path):
    with open(os.path.join(ROOT, path), errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield n, m.group(1)


def edges(layers):
    """(from folder, to folder) -> number of include lines; plus findings."""
    index = {l["folder"]: i for i, l in enumerate(layers)}
    graph, errors = {}, []
    for path in sources():
        folder = os.path.dirname(path)
        if folder.split("/")[0] in FREE:
            continue
        if folder not in index:
            errors.append("%s:1: error: %s is in no layer of tools/layers.txt" % (path, folder))
            continue
        for n, inc in includes(path):
            if path.startswith("build") or inc.startswith(("gen/",)):
                continue
            where = "%s:%d: error:" % (path, n)
            if "/" not in inc:
                errors.append('%s include "%s" is not written folder/file.h' % (where, inc))
                continue
            if not os.path.exists(os.path.join(ROOT, inc)):
                errors.append('%s include "%s" names no file' % (where, inc))
                continue
            to = os.path.dirname(inc)
            if to not in index:
                errors.append('%s include "%s" is from %s, in no layer' % (where, inc, to))
                continue
            graph[(folder, to)] = graph.get((folder, to), 0) + 1
            if index[to] > index[folder]:
                errors.append('%s include "%s": %s is above %s (tools/layers.txt)' % (where, inc, to, folder))
            if to != folder and inc.endswith("_int.h"):
                errors.append('%s include "%s": another folder\'s private header' % (where, inc))
    return graph, errors


def determinism(layers):
    errors = []
    for l in layers:
        if not l["det"]:
            continue
        for path in sources():
            if os.path.dirname(path) != l["folder"] or path in l["exempt"]:
                continue
            with open(os.path.join(ROOT, path), errors="replace") as f:
                raw = f.read()
            lines = strip(raw).split("\n")
            rawlines = raw.split("\n")
            for n, line in enumerate(lines, 1):
                for pat, name, use in BANNED:
                    hay = rawlines[n - 1] if name.endswith(".h") else line
                    if pat.search(hay):
                        errors.append("%s:%d: error: '%s' is banned in the deterministic folder %s, use %s"
                                      % (path, n, name, l["folder"], use))
    return errors


def cycles(graph, folders):
    """Folder cycles (self loops aside), as lists."""
    adj = {f: sorted(t for (a, t) in graph if a == f and t != f) for f in folders}
    found, state, stack = [], {}, []

    def visit(f):
        state[f] = 1
        stack.append(f)
        for t in adj.get(f, []):
            if state.get(t) == 1:
                found.append(stack[stack.index(t):] + [t])
            elif not state.get(t):
                visit(t)
        stack.pop()
        state[f] = 2

    for f in folders:
        if not state.get(f):
            visit(f)
    return found


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "check"
    layers = load_layers()
    folders = [l["folder"] for l in layers]
    graph, errors = edges(layers)
    if mode == "check":
        errors += determinism(layers)
        for c in cycles(graph, folders):
            errors.append("tools/layers.txt:1: error: folder cycle %s" % " -> ".join(c))
        for e in errors:
            print(e)
        if errors:
            print("tidy: %d finding(s)" % len(errors))
            return 1
        print("tidy: %d folders in layer order, %d include edges between them, none upward, no cycle; "
              "no wall clock or unseeded randomness in the deterministic folders"
              % (len(folders), sum(1 for (a, b) in graph if a != b)))
        return 0
    index = {f: i for i, f in enumerate(folders)}
    if mode == "dot":
        print("digraph locksim {\n  rankdir=BT; node [shape=box, fontname=monospace];")
        for (a, b), n in sorted(graph.items()):
            if a != b:
                print('  "%s" -> "%s" [label=%d%s];' % (a, b, n, ", color=red" if index[b] > index[a] else ""))
        print("}")
        return 0
    print("| # | folder | includes from (include lines) |")
    print("|---|---|---|")
    up = 0
    for i, f in enumerate(folders):
        outs = sorted(((b, n) for (a, b), n in graph.items() if a == f and b != f), key=lambda x: index[x[0]])
        cells = []
        for b, n in outs:
            mark = " **UPWARD**" if index[b] > i else ""
            up += index[b] > i
            cells.append("%s (%d)%s" % (b, n, mark))
        print("| %d | %s | %s |" % (i + 1, f, ", ".join(cells) or "—"))
    cyc = cycles(graph, folders)
    print("\n%d folders, %d edges, %d upward, %d cycles" % (len(folders), sum(1 for (a, b) in graph if a != b),
                                                         up, len(cyc)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
