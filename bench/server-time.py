#!/usr/bin/env python3
"""What sampling where the server's time goes costs: the same run with
--server-time on and off, alternating, on MariaDB and PostgreSQL, each pair
in both orders, repeated; throughput medians, spread and the difference.

    eval "$(bash scripts/servers.sh start)"       # or reuse running servers
    cargo build --release
    python3 bench/server-time.py [--engines mysql,pg] [--reps 5] [--seconds 20] \\
        [--threads 4] [--workload oltp_read_write] [--table-size 10000]

Servers come from $FAIRBENCH_TEST_MYSQL_URL and $FAIRBENCH_TEST_PG_URL (the
MariaDB test server runs with performance_schema on). Every run is stored in
a scratch results file: the sampler runs only for a stored run, so both sides
sample the server's counters and hardware, and only the waits and
statements differ (PostgreSQL's ten looks a second at pg_stat_activity and
its pg_stat_statements at every sample, MariaDB's five performance_schema
queries at every sample).

Writes bench/RESULTS-server-time.md and .json (--out for another name).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FAIRBENCH = os.path.join(HERE, "..", "target", "release", "fairbench")


def run(args):
    p = subprocess.run([FAIRBENCH] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"fairbench {' '.join(args)} failed ({p.returncode}):\n{p.stderr}{p.stdout}")
    return p.stdout


def tps_of(out):
    """The summary line of --output json: its transactions per second."""
    for line in reversed(out.splitlines()):
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if o.get("type") == "summary":
            return o["tps"]
    sys.exit(f"no summary in:\n{out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engines", default="mysql,pg")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--workload", default="oltp_read_write")
    ap.add_argument("--table-size", type=int, default=10000)
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS-server-time"))
    a = ap.parse_args()
    urls = {"mysql": os.environ.get("FAIRBENCH_TEST_MYSQL_URL"), "pg": os.environ.get("FAIRBENCH_TEST_PG_URL")}
    size = ["--tables", "1", "--table-size", str(a.table_size), "--table-name", "stbench"]
    store = os.path.join(tempfile.mkdtemp(prefix="fairbench-server-time-"), "r.sqlite")
    results = {}
    for engine in a.engines.split(","):
        url = urls[engine]
        if not url:
            sys.exit(f"${'FAIRBENCH_TEST_MYSQL_URL' if engine == 'mysql' else 'FAIRBENCH_TEST_PG_URL'} is not set: start the servers first")
        run(["cleanup", a.workload, "--target", url] + size)
        run(["prepare", a.workload, "--target", url] + size)
        tps = {"on": [], "off": []}
        for rep in range(a.reps):
            # Each pair in both orders: on first, then off first.
            for mode in (("on", "off") if rep % 2 == 0 else ("off", "on")):
                out = run(["run", a.workload, "--target", url, "--threads", str(a.threads), "--time", str(a.seconds),
                           f"--server-time={mode}", "--output", "json", "--results", store] + size)
                tps[mode].append(tps_of(out))
                print(f"{engine} rep {rep + 1} server-time={mode}: {tps[mode][-1]:.1f} tps", flush=True)
        run(["cleanup", a.workload, "--target", url] + size)
        results[engine] = tps
    rows = []
    for engine, tps in results.items():
        on, off = statistics.median(tps["on"]), statistics.median(tps["off"])
        spread = lambda v: (max(v) - min(v)) * 100 / statistics.median(v)
        rows.append((engine, on, spread(tps["on"]), off, spread(tps["off"]), (on - off) * 100 / off))
    md = [
        "# What sampling the server's time costs",
        "",
        f"`python3 bench/server-time.py --reps {a.reps} --seconds {a.seconds} --threads {a.threads} --workload {a.workload} --table-size {a.table_size}`:",
        "the same run with `--server-time=on` and `=off`, alternating (each pair in both orders), on the test servers",
        "of `scripts/servers.sh` (MariaDB with performance_schema on), client and server on one 2-core VM.",
        "",
        "| engine | on: median tps | spread | off: median tps | spread | on against off |",
        "|---|---|---|---|---|---|",
    ]
    for engine, on, son, off, soff, diff in rows:
        md.append(f"| {'MariaDB' if engine == 'mysql' else 'PostgreSQL'} | {on:.1f} | {son:.1f}% | {off:.1f} | {soff:.1f}% | {diff:+.1f}% |")
    md += ["", "Spread: (max - min) / median of the repetitions of one side. A difference smaller than the spread is noise."]
    with open(a.out + ".md", "w") as f:
        f.write("\n".join(md) + "\n")
    with open(a.out + ".json", "w") as f:
        json.dump({"args": vars(a), "tps": results}, f, indent=1)
    print("\n".join(md))


if __name__ == "__main__":
    main()
