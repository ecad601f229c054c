#!/usr/bin/env python3
"""One MariaDB server against Vitess with 2 shards of the same MariaDB, on
this machine: oltp_read_write and TPC-C, the tools' runs alternating, each
repeated. Prints and writes bench/RESULTS-vitess.md: throughput, the share of
queries that went to every shard, and the CPU per transaction of each part
(vtgate, the tablets, the MariaDB servers) as fairbench's hardware table
measures it.

    python3 bench/vitess.py [--reps 3] [--seconds 20] [--threads 8]

Both servers are fairbench sandboxes with the durable profile (every shard's
MariaDB syncs each commit as the single server does; each has the profile's
buffer pool). The release build of fairbench runs them (cargo build --release).
"""
import argparse, os, re, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FB = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "fairbench")


def sh(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}\n{r.stdout}\n{r.stderr}")
    return r.stdout


def start(kind, extra):
    """(URL, sandbox name) of a new durable sandbox."""
    r = subprocess.run([FB, "server", "start", kind, "--profile", "durable", "--timeout", "180"] + extra, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"server start {kind} failed:\n{r.stderr}")
    name = re.search(r"^(\S+) started:", r.stderr, re.M).group(1)
    return r.stdout.strip().splitlines()[-1], name


def figures(text):
    """tps, server CPU/t, per-part CPU/t and the scatter share from a run's text output."""
    f = {}
    m = re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", text)
    f["tps"] = float(m.group(1)) if m else None
    rows = [l for l in text.splitlines() if re.match(r"\s+\d+\s+[\d.]+\s+[\d.]+", l)]
    if rows:
        cols = rows[-1].split()
        f["server"] = float(cols[2])
    m = re.search(r"server CPU/t by part at \d+ threads, µs: (.*)", text)
    if m:
        for part in m.group(1).split(", "):
            name, v = part.rsplit(" ", 1)
            f[name] = float(v)
    m = re.search(r"\((\d+)% to every shard\)", text)
    f["scatter"] = float(m.group(1)) if m else None
    return f


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--threads", type=int, default=8)
    a = ap.parse_args()
    if not os.path.exists(FB):
        sys.exit(f"{FB} not found: cargo build --release")
    md, md_name = start("mariadb", [])
    vt, vt_name = start("vitess", ["--shards", "2"])
    store = os.path.join(tempfile.mkdtemp(prefix="fairbench-vitess-bench."), "r.sqlite")
    targets = [("MariaDB", md), ("Vitess, 2 shards", vt)]
    work = [
        ("oltp_read_write", ["--tables", "4", "--table-size", "50000"]),
        ("tpcc", ["--warehouses", "2", "--fk", "nofk"]),
    ]
    results = {}
    try:
        for w, size in work:
            for _, url in targets:
                sh([FB, "prepare", w, "--target", url, "--threads", "4"] + size)
                sh([FB, "prewarm", w, "--target", url] + size)
            for rep in range(a.reps):
                order = targets if rep % 2 == 0 else list(reversed(targets))
                for name, url in order:
                    text = sh([FB, "run", w, "--target", url, "--threads", str(a.threads), "--time", str(a.seconds), "--results", store] + size)
                    f = figures(text)
                    results.setdefault((w, name), []).append(f)
                    print(f"{w} {name} rep {rep + 1}: {f}", flush=True)
    finally:
        subprocess.run([FB, "server", "stop", md_name, vt_name], capture_output=True)

    def med(vals):
        vals = [v for v in vals if v is not None]
        if not vals:
            return "-"
        m = statistics.median(vals)
        return f"{m:.0f} ({min(vals):.0f}..{max(vals):.0f})" if len(vals) > 1 else f"{m:.0f}"

    lines = [
        "# One MariaDB against Vitess with 2 shards, on one machine",
        "",
        f"`python3 bench/vitess.py --reps {a.reps} --seconds {a.seconds} --threads {a.threads}`: {a.threads} clients, {a.seconds} s runs,",
        f"the two targets alternating, {a.reps} repetitions; medians with (min..max). Both durable (every commit",
        "synced on each shard); oltp_read_write on 4 x 50k rows, TPC-C with 2 warehouses (one per shard).",
        "CPU per transaction in µs, from fairbench's hardware table (the server's processes on this host).",
        "",
        "| workload | target | tps | server CPU/t | vtgate | vttablet | mysqld | queries to every shard |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for w, _ in work:
        for name, _ in targets:
            rs = results.get((w, name), [])
            col = lambda k: med([r.get(k) for r in rs])
            sc = med([r.get("scatter") for r in rs])
            lines.append(f"| {w} | {name} | {col('tps')} | {col('server')} | {col('vtgate')} | {col('vttablet')} | {col('mysqld')} | {sc + '%' if sc != '-' else '-'} |")
    lines += ["", f"Machine: {os.cpu_count()} cores; {time.strftime('%Y-%m-%d')}.", ""]
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(ROOT, "bench", "RESULTS-vitess.md"), "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
