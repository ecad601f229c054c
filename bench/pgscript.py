#!/usr/bin/env python3
"""The same pgbench command line through `fairbench pgbench` and through pgbench itself,
on the same PostgreSQL server, the tools alternating: TPS and client CPU
per transaction (user + system time of the client process, from
getrusage of the finished child), both read from pgbench's report by the same
expressions. Then each tool writes its transaction logs (-l, and
--aggregate-interval 1), bench/pgbench_logs.py counts them, and the counts are set
against each tool's report.

    eval "$(bash scripts/servers.sh start)"      # or reuse running servers
    cargo build --release
    python3 bench/pgscript.py --fairbench target/release/fairbench \\
        --clients 1,4 --seconds 10 --reps 3

Scripts: pgbench's select-only, simple-update and tpcb-like built-ins, bench/oltp_ro.sql (sysbench's
OLTP read-only transaction written as a pgbench script, as 002's
pgbench -M prepared -f oltp_ro.sql runs), and bench/tpcb_pipelined.sql
(pgbench's tpcb-like transaction in one pipeline). Both tools take the same
command line: -n -M prepared -c N -j N -T S over TCP to 127.0.0.1. Writes bench/RESULTS-pgscript.md and .json.

Through a pooler: point FAIRBENCH_TEST_PG_URL at it and say so with --through, e.g. pgbouncer 1.24
in transaction pooling, which keeps -M prepared's statements across its server connections:

    fairbench server start pgbouncer --version 1.24.1 --for postgres-15432 --pool-mode transaction --pool-size 4
    FAIRBENCH_TEST_PG_URL=postgres://...:16432/... python3 bench/pgscript.py --out RESULTS-pgscript-pooler \\
        --through "pgbouncer 1.24.1, pool_mode=transaction, 4 server connections" --scripts select-only,tpcb-like --no-logs
"""

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_child(cmd, env):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-3000:]}")
    return p.stdout, wall, r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime


def line(a, script, clients, seconds):
    """pgbench's command line, the same for both tools."""
    cmd = ["-n", "-M", "prepared", "-c", str(clients), "-j", str(clients), "-T", str(seconds), "-h", "127.0.0.1", "-p", a.port, "-U", a.user]
    return cmd + (["-b", script] if not script.endswith(".sql") else ["-f", script])


def tool(name, a):
    return ["pgbench"] if name == "pgbench" else [a.fairbench, "pgbench"]


def measure(name, a, env, script, clients, extra=()):
    cmd = tool(name, a) + line(a, script, clients, a.seconds) + list(extra) + [a.db] + (["--no-save"] if name == "fairbench" else [])
    out, wall, u, s = run_child(cmd, env)
    tx = int(re.search(r"number of transactions actually processed: (\d+)", out).group(1))
    failed = int(re.search(r"number of failed transactions: (\d+)", out).group(1))
    tps = float(re.search(r"tps = ([\d.]+) \(without initial", out).group(1))
    return {"tps": tps, "tx": tx, "failed": failed, "cpu_us_per_tx": (u + s) / tx * 1e6, "user_s": u, "sys_s": s}


def pgbench(a, env, script, clients):
    return measure("pgbench", a, env, script, clients)


def fairbench(a, env, script, clients):
    return measure("fairbench", a, env, script, clients)


def log_counts(a, env):
    """Each tool's logs, counted by bench/pgbench_logs.py, against its own report."""
    import tempfile
    sys_path = os.path.join(HERE, "pgbench_logs.py")
    out = []
    with tempfile.TemporaryDirectory() as d:
        for name in ("fairbench", "pgbench"):
            for agg in ([], ["--aggregate-interval=1"]):
                prefix = os.path.join(d, f"{name}{'-agg' if agg else ''}")
                r = measure(name, a, env, "tpcb-like", 4, ["-l", f"--log-prefix={prefix}"] + agg)
                c = json.loads(subprocess.run(["python3", sys_path, prefix], stdout=subprocess.PIPE, text=True, check=True).stdout)
                out.append({"tool": name, "format": c["format"], "files": c["files"], "log_transactions": c["transactions"], "report_transactions": r["tx"], "log_failed": c["failed"], "report_failed": r["failed"]})
                print(f"logs {name} {c['format']}: {c['transactions']} in the log, {r['tx']} in the report", flush=True)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fairbench", default=os.path.join(HERE, "..", "target", "release", "fairbench"))
    ap.add_argument("--clients", default="1,4")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--scripts", default="select-only,simple-update,tpcb-like,oltp_ro.sql,tpcb_pipelined.sql", help="the rows to run, by name")
    ap.add_argument("--out", default="RESULTS-pgscript", help="bench/OUT.md and bench/OUT.json")
    ap.add_argument("--no-logs", action="store_true", help="leave out the transaction logs' counts")
    ap.add_argument("--through", default="PostgreSQL over TCP 127.0.0.1",
                    help="what FAIRBENCH_TEST_PG_URL reaches, for the table's heading (a pooler in front, ...)")
    a = ap.parse_args()
    a.url = os.environ["FAIRBENCH_TEST_PG_URL"]
    m = re.match(r"postgres://([^:]+):([^@]+)@[^:]+:(\d+)/(\w+)", a.url)
    a.user, password, a.port, a.db = m.group(1), m.group(2), m.group(3), m.group(4)
    env = dict(os.environ, PGPASSWORD=password, PGSSLMODE="disable")
    subprocess.run([a.fairbench, "prepare", "select-only", "--scale", str(a.scale), "--target", a.url], check=True, stdout=subprocess.DEVNULL)
    load0 = os.getloadavg()[0]
    scripts = [os.path.join(HERE, n) if n.endswith(".sql") else n for n in a.scripts.split(",")]
    rows = []
    for script in scripts:
        for clients in [int(c) for c in a.clients.split(",")]:
            res = {"fairbench": [], "pgbench": []}
            for rep in range(a.reps):
                # Alternate which tool goes first, so drift favours neither.
                order = [("fairbench", fairbench), ("pgbench", pgbench)]
                if rep % 2:
                    order.reverse()
                for name, f in order:
                    res[name].append(f(a, env, script, clients))
            med = {k: {m: statistics.median(x[m] for x in v) for m in ("tps", "cpu_us_per_tx")} for k, v in res.items()}
            rows.append({"script": os.path.basename(script), "clients": clients, "median": med, "runs": res})
            print(f"{os.path.basename(script)} x{clients}: fairbench {med['fairbench']['tps']:.0f} tps {med['fairbench']['cpu_us_per_tx']:.1f} us/tx;"
                  f" pgbench {med['pgbench']['tps']:.0f} tps {med['pgbench']['cpu_us_per_tx']:.1f} us/tx", flush=True)
    logs = [] if a.no_logs else log_counts(a, env)
    load1 = os.getloadavg()[0]
    ver = subprocess.run(["pgbench", "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    with open(os.path.join(HERE, a.out + ".json"), "w") as f:
        json.dump({"pgbench": ver, "loadavg": [load0, load1], "seconds": a.seconds, "reps": a.reps, "scale": a.scale, "cores": os.cpu_count(), "rows": rows, "logs": logs}, f, indent=1)
    with open(os.path.join(HERE, a.out + ".md"), "w") as f:
        f.write(f"# pgbench scripts: fairbench vs {ver}\n\n")
        f.write(f"Same server ({a.through}), -M prepared, scale {a.scale}, {a.seconds} s per run, "
                f"{a.reps} runs per tool alternating, medians; {os.cpu_count()} cores shared by client and server.\n"
                "Client CPU is user + system time of the client process per transaction.\n"
                f"Load average (1 min) {load0:.1f} at the start, {load1:.1f} at the end: other work on the machine shows in both tools' figures.\n\n")
        f.write("| script | clients | fairbench TPS | pgbench TPS | fairbench CPU us/tx | pgbench CPU us/tx |\n|---|---|---|---|---|---|\n")
        for r in rows:
            fb, pg = r["median"]["fairbench"], r["median"]["pgbench"]
            f.write(f"| {r['script']} | {r['clients']} | {fb['tps']:.0f} | {pg['tps']:.0f} | {fb['cpu_us_per_tx']:.1f} | {pg['cpu_us_per_tx']:.1f} |\n")
        if not logs:
            return
        f.write("\nTransaction logs (tpcb-like, 4 clients, -j 4, -l), counted by bench/pgbench_logs.py for both tools:\n\n")
        f.write("| tool | log format | files | transactions in the log | in the report | failed in the log | in the report |\n|---|---|---|---|---|---|---|\n")
        for l in logs:
            f.write(f"| {l['tool']} | {l['format']} | {l['files']} | {l['log_transactions']} | {l['report_transactions']} | {l['log_failed']} | {l['report_failed']} |\n")


if __name__ == "__main__":
    main()
