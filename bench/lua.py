#!/usr/bin/env python3
"""Debian's sysbench Lua scripts through fairbench and through sysbench on
the same server, the tools alternating: client CPU per event (user + system
of the tool's process over its whole run, divided by its events) and
events/s; then memory per client: the tool's peak RSS with 1,000 clients
against 1 client, over 999.

    bash bench/lua.sh [--engine maria|pg] [--time 10] [--reps 3] [--clients 4]

Writes bench/RESULTS-lua.md and bench/RESULTS-lua.json. Uses the servers of
FAIRBENCH_TEST_* (scripts/servers.sh start).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

SCRIPTS = "/usr/share/sysbench"


def db_args(engine):
    e = os.environ
    if engine == "maria":
        return ["--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={e['FAIRBENCH_TEST_MYSQL_PORT']}", "--mysql-user=fb", "--mysql-password=fbpass", "--mysql-db=fbtest"]
    return ["--db-driver=pgsql", "--pgsql-host=127.0.0.1", f"--pgsql-port={e['FAIRBENCH_TEST_PG_PORT']}", "--pgsql-user=fb", "--pgsql-password=fbpass", "--pgsql-db=fbtest"]


def measured(cmd):
    """Runs cmd; returns (stdout, cpu seconds, peak RSS in KiB, exit status)."""
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        _, status, ru = os.wait4(p.pid, 0)
        out.seek(0)
        text = out.read().decode(errors="replace")
    return text, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(status)


def events(text):
    m = re.search(r"total number of events:\s+(\d+)", text)
    return int(m.group(1)) if m else 0


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def tool_cmd(tool, fb, script, engine, args, command):
    path = f"{SCRIPTS}/{script}.lua"
    if tool == "fairbench":
        return [fb, path, *db_args(engine), *args, "--no-save", "--report-interval=0", command]
    return ["sysbench", path, *db_args(engine), *args, command]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fairbench", required=True)
    ap.add_argument("--engine", default="maria", choices=["maria", "pg"])
    ap.add_argument("--time", type=int, default=10)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--table-size", type=int, default=100000)
    ap.add_argument("--many", type=int, default=1000)
    a = ap.parse_args()
    fb = a.fairbench
    data = [f"--tables=4", f"--table-size={a.table_size}"]
    subprocess.run(tool_cmd("fairbench", fb, "oltp_read_write", a.engine, data, "cleanup"), check=True, capture_output=True)
    subprocess.run(tool_cmd("fairbench", fb, "oltp_read_write", a.engine, [*data, "--threads=4"], "prepare"), check=True, capture_output=True)
    rows = []
    for script in ("oltp_point_select", "oltp_read_write"):
        res = {"fairbench": [], "sysbench": []}
        for rep in range(a.reps):
            order = ["fairbench", "sysbench"] if rep % 2 == 0 else ["sysbench", "fairbench"]
            for tool in order:
                args = [*data, f"--threads={a.clients}", f"--time={a.time}", "--rand-type=uniform"]
                text, cpu, _, rc = measured(tool_cmd(tool, fb, script, a.engine, args, "run"))
                n = events(text)
                if rc != 0 or n == 0:
                    sys.exit(f"{tool} {script} failed (exit {rc}):\n{text[-2000:]}")
                res[tool].append({"cpu_us_per_event": cpu / n * 1e6, "eps": n / a.time})
                print(f"{script} {tool} rep {rep}: {cpu / n * 1e6:.1f} us/event, {n / a.time:.0f} events/s", flush=True)
        rows.append((script, res))
    mem = {}
    for tool in ("fairbench", "sysbench"):
        rss = {}
        for clients in (1, a.many):
            args = [*data, f"--threads={clients}", "--time=5", "--rand-type=uniform"]
            text, _, peak, rc = measured(tool_cmd(tool, fb, "oltp_point_select", a.engine, args, "run"))
            rss[clients] = peak if rc == 0 and events(text) > 0 else None
            if rss[clients] is None:
                print(f"{tool} with {clients} clients failed (exit {rc}): {text.strip().splitlines()[-1:]}", flush=True)
        mem[tool] = rss
        if all(rss.values()):
            print(f"memory {tool}: {rss[1]} KiB with 1 client, {rss[a.many]} KiB with {a.many}: {(rss[a.many] - rss[1]) / (a.many - 1):.0f} KiB per client", flush=True)
    subprocess.run(tool_cmd("fairbench", fb, "oltp_read_write", a.engine, data, "cleanup"), check=True, capture_output=True)
    eng = {"maria": "MariaDB (TCP)", "pg": "PostgreSQL (TCP)"}[a.engine]
    md = [f"# sysbench Lua scripts: fairbench vs sysbench ({eng})", "",
          f"{a.clients} clients, 4 x {a.table_size} rows, {a.time} s runs, {a.reps} repetitions (median), tools alternating, "
          "release build. Client CPU is the tool's process (user + system) over its run, per event.", "",
          "| script | fairbench µs/event | sysbench µs/event | fairbench events/s | sysbench events/s |", "|---|---|---|---|---|"]
    for script, res in rows:
        f, s = res["fairbench"], res["sysbench"]
        md.append(f"| {script} | {median([x['cpu_us_per_event'] for x in f]):.1f} | {median([x['cpu_us_per_event'] for x in s]):.1f} | "
                  f"{median([x['eps'] for x in f]):.0f} | {median([x['eps'] for x in s]):.0f} |")
    md += ["", f"Memory per client (peak RSS with {a.many} clients minus 1 client, over {a.many - 1}), oltp_point_select:", ""]
    for tool, rss in mem.items():
        if all(rss.values()):
            md.append(f"- {tool}: {(rss[a.many] - rss[1]) / (a.many - 1):.0f} KiB per client ({rss[1] / 1024:.0f} MiB with 1, {rss[a.many] / 1024:.0f} MiB with {a.many})")
        else:
            md.append(f"- {tool}: failed with {a.many} clients")
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "RESULTS-lua.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(here, "RESULTS-lua.json"), "w") as f:
        json.dump({"engine": a.engine, "rows": rows, "memory": mem, "time": time.time()}, f, indent=1)
    print("\n".join(md))


if __name__ == "__main__":
    main()
