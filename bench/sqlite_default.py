#!/usr/bin/env python3
"""The README's first command (`fairbench run --threads 4 --time 10` on the
embedded SQLite default), run by several fairbench binaries in turn, each time
on a fresh database file; prints events/s, latency percentiles, max latency
and the threads' fairness (stddev of events per thread as a share of the mean)
as medians with the range over the repetitions.

    python3 bench/sqlite_default.py --reps 3 NAME=BINARY [NAME=BINARY ...]

Used to compare a build with an earlier one (for example the writers' turns
against SQLite's busy handler); the binaries alternate within each repetition.
"""

import argparse
import os
import re
import statistics
import subprocess
import tempfile

FIELDS = ("events/s", "p99 ms", "p99.9 ms", "max ms", "fairness stddev %")


def one_run(binary, seconds):
    with tempfile.TemporaryDirectory(prefix="fb-sqlite-default.") as d:
        out = subprocess.run([binary, "run", "--threads", "4", "--time", str(seconds), "--no-save"], cwd=d, capture_output=True, text=True, timeout=seconds + 120).stdout
    num = lambda pat: float(re.search(pat, out, re.M).group(1))
    avg, dev = (float(x) for x in re.search(r"events \(avg/stddev\):\s+([\d.]+)/([\d.]+)", out).groups())
    return {
        "events/s": num(r"events/s \(eps\):\s+([\d.]+)"),
        "p99 ms": num(r"^\s+p99\s+([\d.]+)"),
        "p99.9 ms": num(r"^\s+p99\.9\s+([\d.]+)"),
        "max ms": num(r"^\s+max\s+([\d.]+)$"),
        "fairness stddev %": 100 * dev / avg if avg else 0.0,
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--seconds", type=int, default=10)
    p.add_argument("builds", nargs="+", help="NAME=BINARY")
    a = p.parse_args()
    builds = [(n, os.path.abspath(b)) for n, b in (x.split("=", 1) for x in a.builds)]
    res = {name: [] for name, _ in builds}
    for rep in range(a.reps):
        order = builds if rep % 2 == 0 else builds[::-1]
        for name, binary in order:
            r = one_run(binary, a.seconds)
            res[name].append(r)
            print(f"rep {rep + 1} {name}: " + ", ".join(f"{k} {v:.1f}" for k, v in r.items()), flush=True)
    print()
    print("| build | " + " | ".join(FIELDS) + " |")
    print("|---|" + "---:|" * len(FIELDS))
    for name, _ in builds:
        cells = []
        for f in FIELDS:
            xs = [r[f] for r in res[name]]
            cells.append(f"{statistics.median(xs):,.1f} ({min(xs):,.1f}-{max(xs):,.1f})")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
