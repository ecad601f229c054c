#!/usr/bin/env python3
"""LinkBench's load and request phases through fairbench and through the Java
LinkBench itself, on the same MariaDB server, the tools alternating: wall
time, links/s, requests/s and client CPU per request (user + system time of
the client process, from getrusage of the finished child; for Java that
includes the JVM's start, JIT and GC, as a user of it pays them).

    eval "$(bash scripts/servers.sh start)"      # or reuse running servers
    cargo build --release
    (cd /path/to/linkbench && mvn -DskipTests package)   # built outside this repository
    python3 bench/linkbench.py --linkbench /path/to/linkbench --maxid1 100001 \\
        --reps 2 --seconds 30

The LinkBench directory (--linkbench or $LINKBENCH_HOME) must hold
target/FacebookLinkBench.jar, config/LinkConfigMysql.properties and the
README.md whose CREATE TABLE statements set up its database. Both tools read
that same properties file, with the same -D overrides (maxid1, requesters,
maxtime, ...); the server comes from $FAIRBENCH_TEST_MYSQL_URL. Java loads
into database `linkdb` (its dbid), tables created from its README (16
partitions by id1, id1_type index from the start); fairbench loads into the
URL's database with --linkbench-partitions 16 (its index built last).
Each repetition drops and loads both again, then runs S seconds of requests
at --requesters on what it loaded. Writes bench/RESULTS-linkbench.md and .json.

With --graph, the script instead loads once with each tool and compares the
graphs they loaded (both from the same data_file, LinkBench's
config/Distribution.dat): total links, links per node, the share of nodes with
0, 1, 2-10, 11-100 and over 100 links, and the mean payload length of nodes
and links. Writes bench/RESULTS-linkbench-graph.md.

PostgreSQL is not measured here: upstream LinkBench speaks MySQL only.
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
JAVA_DB = "linkdb"
BIG = 1_000_000_000  # requests: the run is bounded by maxtime instead

LOAD_RE = re.compile(r"LOAD PHASE COMPLETED\.\s+Loaded (\d+) nodes.*?Loaded (\d+) links.*?Took ([\d.]+) seconds\.\s+Links/second = (\d+)")
REQ_RE = re.compile(r"REQUEST PHASE COMPLETED\.\s+(\d+) requests done in ([\d.]+) seconds\.\s+Requests/second = ([\d.]+)")


def run_child(cmd, env, cwd=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-3000:]}")
    return p.stdout, wall, r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime


def mysql(a, sql, db=None):
    cmd = ["mysql", "-h", a.host, "-P", a.port, "-u", a.user, f"-p{a.password}", "-N", "-B"]
    if db:
        cmd.append(db)
    return subprocess.run(cmd, input=sql, text=True, check=True, stdout=subprocess.PIPE).stdout


DEGREE_BANDS = [("0", 0, 0), ("1", 1, 1), ("2-10", 2, 10), ("11-100", 11, 100), (">100", 101, None)]


def graph_shape(a, db):
    """What a load put in database `db`: links, nodes, the share of nodes per
    out-degree band (all link types together), mean payload lengths."""
    def one(sql):
        return mysql(a, sql, db).strip()
    nodes = int(one("SELECT COUNT(*) FROM nodetable"))
    links = int(one("SELECT COUNT(*) FROM linktable"))
    rows = mysql(a, "SELECT c, COUNT(*) FROM (SELECT id1, COUNT(*) AS c FROM linktable GROUP BY id1) d GROUP BY c", db)
    by_degree = {}
    for line in rows.splitlines():
        c, k = line.split()
        by_degree[int(c)] = int(k)
    by_degree[0] = nodes - sum(by_degree.values())
    shares = {}
    for name, lo, hi in DEGREE_BANDS:
        shares[name] = sum(k for c, k in by_degree.items() if c >= lo and (hi is None or c <= hi)) / nodes
    return {"nodes": nodes, "links": links, "links_per_node": links / nodes, "degree_share": shares,
            "max_degree": max(by_degree), "node_data_mean": float(one("SELECT AVG(LENGTH(data)) FROM nodetable")),
            "link_data_mean": float(one("SELECT AVG(LENGTH(data)) FROM linktable"))}


def graph(a, env):
    java_load(a, env)
    fairbench_load(a, env)
    shapes = {"java": graph_shape(a, JAVA_DB), "fairbench": graph_shape(a, a.db)}
    rows = [("links", "links", "{:,}"), ("links per node", "links_per_node", "{:.3f}"), ("largest out-degree", "max_degree", "{:,}")]
    rows += [(f"nodes with {n} links", ("degree_share", n), "{:.3%}") for n, _, _ in DEGREE_BANDS]
    rows += [("mean node data bytes", "node_data_mean", "{:.2f}"), ("mean link data bytes", "link_data_mean", "{:.2f}")]

    def get(s, k):
        return s[k[0]][k[1]] if isinstance(k, tuple) else s[k]
    out = [f"# LinkBench graph: fairbench vs the Java LinkBench at maxid1={a.maxid1}\n",
           f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; both loaded from {a.config} "
           f"(data_file from LINKBENCH_HOME={a.linkbench}) into one MariaDB; `python3 bench/linkbench.py --graph` reruns it.\n",
           "| | Java LinkBench | fairbench | fairbench / Java |", "|---|---|---|---|"]
    for label, key, fmt in rows:
        j, f = get(shapes["java"], key), get(shapes["fairbench"], key)
        out.append(f"| {label} | {fmt.format(j)} | {fmt.format(f)} | {f / j if j else float('nan'):.4f} |")
    table = "\n".join(out) + "\n"
    with open(os.path.join(HERE, "RESULTS-linkbench-graph.md"), "w") as f:
        f.write(table)
    print(table)


def java_schema(a):
    """LinkBench's own CREATE TABLE statements, taken from its README so the
    Java side runs on exactly the schema its authors give."""
    text = open(os.path.join(a.linkbench, "README.md")).read()
    stmts = re.findall(r"^\s*(CREATE TABLE `\w+` \(.*?\) ENGINE=.*?;)", text, re.S | re.M)
    if len(stmts) != 3:
        raise SystemExit(f"{a.linkbench}/README.md: expected 3 CREATE TABLE statements, found {len(stmts)}")
    return "\n".join(re.sub(r"^\s+", "", s, flags=re.M) for s in stmts)


def defines(a, extra):
    out = []
    for k, v in [("maxid1", a.maxid1), *extra]:
        out += ["-D", f"{k}={v}"]
    return out


def parse(out, regex, what):
    m = regex.search(out)
    if not m:
        raise SystemExit(f"no '{what}' line in the output:\n{out[-3000:]}")
    return m


def load_result(out, wall, u, s):
    m = parse(out, LOAD_RE, "LOAD PHASE COMPLETED")
    nodes, links, took, lps = int(m.group(1)), int(m.group(2)), float(m.group(3)), float(m.group(4))
    return {"nodes": nodes, "links": links, "took_s": took, "links_per_s": lps, "wall_s": wall,
            "wall_links_per_s": links / wall, "cpu_s": u + s, "cpu_us_per_link": (u + s) / max(links, 1) * 1e6}


def request_result(out, wall, u, s):
    m = parse(out, REQ_RE, "REQUEST PHASE COMPLETED")
    n, secs, rps = int(m.group(1)), float(m.group(2)), float(m.group(3))
    return {"requests": n, "seconds": secs, "requests_per_s": rps, "wall_s": wall, "cpu_s": u + s,
            "cpu_us_per_request": (u + s) / max(n, 1) * 1e6}


def java_cmd(a, phase, extra):
    return ["java", "-cp", os.path.join(a.linkbench, "target", "FacebookLinkBench.jar"),
            "com.facebook.LinkBench.LinkBenchDriver", "-c", a.config,
            "-D", f"host={a.host}", "-D", f"port={a.port}", "-D", f"user={a.user}",
            "-D", f"password={a.password}", "-D", f"dbid={JAVA_DB}", *defines(a, extra), phase]


def java_load(a, env):
    mysql(a, f"DROP DATABASE IF EXISTS {JAVA_DB}; CREATE DATABASE {JAVA_DB};")
    mysql(a, a.schema, JAVA_DB)
    return load_result(*run_child(java_cmd(a, "-l", []), env, cwd=a.linkbench))


def java_requests(a, env):
    extra = [("requesters", a.requesters), ("maxtime", a.seconds), ("requests", BIG), ("warmup_time", 0)]
    return request_result(*run_child(java_cmd(a, "-r", extra), env, cwd=a.linkbench))


def fairbench_load(a, env):
    base = ["linkbench", "--target", a.url]
    subprocess.run([a.fairbench, "cleanup", *base], env=env, check=True, stdout=subprocess.DEVNULL)
    cmd = [a.fairbench, "prepare", *base, "-c", a.config, "--linkbench-partitions", "16", *defines(a, [])]
    return load_result(*run_child(cmd, env))


def fairbench_requests(a, env):
    extra = [("requesters", a.requesters), ("maxtime", a.seconds), ("requests", BIG), ("warmup_time", 0)]
    cmd = [a.fairbench, "run", "linkbench", "--target", a.url, "-c", a.config, "--no-save", *defines(a, extra)]
    return request_result(*run_child(cmd, env))


def spread(xs):
    return (min(xs), max(xs))


def summarise(runs, keys):
    return {k: {"median": statistics.median(r[k] for r in runs), "spread": spread([r[k] for r in runs])} for k in keys}


LOAD_KEYS = ("nodes", "links", "took_s", "links_per_s", "wall_s", "wall_links_per_s", "cpu_us_per_link")
REQ_KEYS = ("requests", "requests_per_s", "cpu_us_per_request")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fairbench", default=os.path.join(HERE, "..", "target", "release", "fairbench"))
    ap.add_argument("--linkbench", default=os.environ.get("LINKBENCH_HOME"),
                    help="the built Java LinkBench directory (default $LINKBENCH_HOME)")
    ap.add_argument("--maxid1", type=int, default=100001)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--seconds", type=int, default=30, help="request phase length")
    ap.add_argument("--requesters", type=int, default=16)
    ap.add_argument("--graph", action="store_true", help="compare the loaded graphs instead of timing the phases")
    a = ap.parse_args()
    if not a.linkbench or not os.path.isfile(os.path.join(a.linkbench, "target", "FacebookLinkBench.jar")):
        raise SystemExit("give the built LinkBench directory: --linkbench DIR or LINKBENCH_HOME (needs target/FacebookLinkBench.jar)")
    a.linkbench = os.path.abspath(a.linkbench)
    a.config = os.path.join(a.linkbench, "config", "LinkConfigMysql.properties")
    a.url = os.environ.get("FAIRBENCH_TEST_MYSQL_URL") or ""
    m = re.match(r"mysql://([^:]+):([^@]+)@([^:/]+):(\d+)/(\w+)", a.url)
    if not m:
        raise SystemExit("FAIRBENCH_TEST_MYSQL_URL must be mysql://user:password@host:port/db (scripts/servers.sh start prints it)")
    a.user, a.password, a.host, a.port, a.db = m.groups()
    a.schema = java_schema(a)
    # LinkBench resolves workload_file and its data file from LINKBENCH_HOME.
    env = dict(os.environ, LINKBENCH_HOME=a.linkbench)
    if a.graph:
        graph(a, env)
        return

    load0 = os.getloadavg()[0]
    loads = {"fairbench": [], "java": []}
    reqs = {"fairbench": [], "java": []}
    tools = {"fairbench": (fairbench_load, fairbench_requests), "java": (java_load, java_requests)}
    for rep in range(a.reps):
        # Alternate which tool goes first, so drift favours neither.
        order = ["fairbench", "java"] if rep % 2 == 0 else ["java", "fairbench"]
        for name in order:
            r = tools[name][0](a, env)
            loads[name].append(r)
            print(f"rep {rep} {name} load: {r['links']} links in {r['wall_s']:.1f} s wall ({r['took_s']:.1f} s own), "
                  f"{r['links_per_s']:.0f} links/s, {r['cpu_us_per_link']:.2f} us CPU/link", flush=True)
        for name in order:
            r = tools[name][1](a, env)
            reqs[name].append(r)
            print(f"rep {rep} {name} requests x{a.requesters}: {r['requests_per_s']:.0f} req/s, "
                  f"{r['cpu_us_per_request']:.1f} us CPU/request", flush=True)
    load1 = os.getloadavg()[0]

    summary = {"load": {k: summarise(v, LOAD_KEYS) for k, v in loads.items()},
               "requests": {k: summarise(v, REQ_KEYS) for k, v in reqs.items()}}
    server = subprocess.run(["mysql", "-h", a.host, "-P", a.port, "-u", a.user, f"-p{a.password}", "-N", "-B", "-e", "SELECT VERSION()"],
                            stdout=subprocess.PIPE, text=True).stdout.strip()
    java = subprocess.run(["java", "-version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout.splitlines()[0]
    lb_rev = subprocess.run(["git", "-C", a.linkbench, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True).stdout.strip() or "unknown"
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "uname": os.uname().release, "cores": os.cpu_count(),
            "server": server, "java": java, "linkbench_rev": lb_rev, "maxid1": a.maxid1, "reps": a.reps,
            "seconds": a.seconds, "requesters": a.requesters, "loadavg": [load0, load1]}
    with open(os.path.join(HERE, "RESULTS-linkbench.json"), "w") as f:
        json.dump({"meta": meta, "summary": summary, "loads": loads, "requests": reqs}, f, indent=1)
    table = render(meta, summary)
    with open(os.path.join(HERE, "RESULTS-linkbench.md"), "w") as f:
        f.write(table)
    print(table)


def cell(s, key, fmt):
    d = s[key]
    lo, hi = d["spread"]
    return f"{d['median']:{fmt}} ({lo:{fmt}}..{hi:{fmt}})"


def ratio(s, key):
    j = s["java"][key]["median"]
    return s["fairbench"][key]["median"] / j if j else float("nan")


def render(meta, summary):
    L, R = summary["load"], summary["requests"]
    out = [f"# LinkBench: fairbench vs the Java LinkBench ({meta['linkbench_rev']})\n",
           f"{meta['date']}; {meta['cores']} cores shared by clients and server (Linux {meta['uname']}), "
           f"MariaDB {meta['server']} over TCP 127.0.0.1, {meta['java']}. "
           f"maxid1={meta['maxid1']}, both tools from the same LinkConfigMysql.properties (loaders=10, "
           f"loader_chunk_size=2048), {meta['reps']} repetitions alternating, median (min..max). "
           f"Requests: {meta['requesters']} requesters, {meta['seconds']} s on each tool's freshly loaded data.",
           f"Client CPU is user + system time of the client process (Java: JVM start, JIT and GC included). "
           f"Load average (1 min) {meta['loadavg'][0]:.1f} at the start, {meta['loadavg'][1]:.1f} at the end.\n",
           "## Load\n",
           "| tool | nodes | links | wall s | own 'Took' s | links/s (own line) | links/s (wall) | client CPU us/link |",
           "|---|---|---|---|---|---|---|---|"]
    for t in ("fairbench", "java"):
        s = L[t]
        out.append(f"| {t} | {s['nodes']['median']:.0f} | {s['links']['median']:.0f} | {cell(s, 'wall_s', '.1f')} | "
                   f"{cell(s, 'took_s', '.1f')} | {cell(s, 'links_per_s', '.0f')} | {cell(s, 'wall_links_per_s', '.0f')} | "
                   f"{cell(s, 'cpu_us_per_link', '.2f')} |")
    out.append(f"\nfairbench / Java: links/s (own line) {ratio(L, 'links_per_s'):.2f}, links/s (wall) {ratio(L, 'wall_links_per_s'):.2f}, "
               f"wall time {ratio(L, 'wall_s'):.2f}, client CPU per link {ratio(L, 'cpu_us_per_link'):.2f}.\n")
    out += ["## Requests\n", "| tool | requests | requests/s | client CPU us/request |", "|---|---|---|---|"]
    for t in ("fairbench", "java"):
        s = R[t]
        out.append(f"| {t} | {s['requests']['median']:.0f} | {cell(s, 'requests_per_s', '.0f')} | {cell(s, 'cpu_us_per_request', '.1f')} |")
    out.append(f"\nfairbench / Java: requests/s {ratio(R, 'requests_per_s'):.2f}, client CPU per request {ratio(R, 'cpu_us_per_request'):.2f}.\n")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
