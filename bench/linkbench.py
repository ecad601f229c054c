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

With --round-trips, the script instead loads once with each tool and runs
each tool's request phase through a relay in front of the server that counts
what the client sends: commands (a MySQL packet with sequence number 0; the
server answers each before the next, so a command is a round trip) and
statements (a prepared statement's execution, or the statements of a query's
text), divided by the requests the tool reports; the server's global
`Questions` delta per request is printed beside them (other clients of the
server add to it). The relay clears CLIENT_SSL in the server's greeting so the
packets stay readable. Writes bench/RESULTS-linkbench-roundtrips.md.

PostgreSQL is not measured here: upstream LinkBench speaks MySQL only.
"""

import argparse
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import threading
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


def statements_in(sql):
    """The statements of a query's text: `;` outside quoted literals, plus a
    last one without it."""
    n, quote, escaped, tail = 0, None, False, False
    for ch in sql:
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == 0x5C:
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in (0x27, 0x22):
            quote, tail = ch, True
        elif ch == 0x3B:
            n, tail = n + 1, False
        elif not chr(ch).isspace():
            tail = True
    return n + int(tail)


class Relay:
    """Counts the commands and statements clients send to the server."""

    def __init__(self, host, port):
        self.server = (host, int(port))
        self.commands = self.statements = 0
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(256)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def counts(self):
        with self.lock:
            return self.commands, self.statements

    def accept(self):
        while True:
            c, _ = self.sock.accept()
            s = socket.create_connection(self.server)
            for x in (c, s):
                x.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self.quietly, args=(self.down, s, c), daemon=True).start()
            threading.Thread(target=self.quietly, args=(self.up, c, s), daemon=True).start()

    @staticmethod
    def quietly(f, src, dst):
        # A side closed by the other thread ends the pair.
        try:
            f(src, dst)
        except OSError:
            for x in (src, dst):
                x.close()

    def down(self, s, c):
        first = True
        while True:
            b = s.recv(65536)
            if not b:
                c.close()
                return
            if first:
                # The greeting: protocol 10, version string, NUL, id (4),
                # scramble (8), filler, capability flags (2): drop CLIENT_SSL.
                b = bytearray(b)
                at = b.index(0, 5) + 1 + 4 + 8 + 1
                b[at + 1] &= ~0x08
                b, first = bytes(b), False
            c.sendall(b)

    def up(self, c, s):
        pending = b""
        while True:
            b = c.recv(65536)
            if not b:
                s.close()
                return
            s.sendall(b)
            pending += b
            at = 0
            while len(pending) - at >= 4:
                n = pending[at] | pending[at + 1] << 8 | pending[at + 2] << 16
                if len(pending) - at < 4 + n:
                    break
                if pending[at + 3] == 0 and n > 0:
                    cmd, body = pending[at + 4], pending[at + 5:at + 4 + n]
                    k = statements_in(body) if cmd == 0x03 else int(cmd == 0x17)
                    with self.lock:
                        self.commands += 1
                        self.statements += k
                at += 4 + n
            pending = pending[at:]


def questions(a):
    return int(mysql(a, "SHOW GLOBAL STATUS LIKE 'Questions'").split()[-1])


def round_trips(a, env):
    """Each tool's request phase through the relay: commands and statements per request."""
    relay = Relay(a.host, a.port)
    java_load(a, env)
    fairbench_load(a, env)
    res = {}
    direct = (a.port, a.url)
    for name, runner in (("java", java_requests), ("fairbench", fairbench_requests)):
        a.port = str(relay.port)
        a.url = re.sub(r"@([^:/]+):(\d+)/", f"@127.0.0.1:{relay.port}/", direct[1]) + "?ssl-mode=DISABLED"
        c0, s0, q0 = *relay.counts(), questions(a)
        r = runner(a, env)
        c1, s1, q1 = *relay.counts(), questions(a)
        a.port, a.url = direct
        n = r["requests"]
        res[name] = {"requests": n, "requests_per_s": r["requests_per_s"], "round_trips": (c1 - c0) / n,
                     "statements": (s1 - s0) / n, "questions": (q1 - q0) / n}
        print(f"{name}: {n} requests, {res[name]['round_trips']:.3f} round trips and {res[name]['statements']:.3f} statements "
              f"per request (server Questions {res[name]['questions']:.3f})", flush=True)
    out = [f"# LinkBench round trips per request: fairbench vs the Java LinkBench at maxid1={a.maxid1}\n",
           f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; each tool's own load, then {a.seconds} s of requests at "
           f"{a.requesters} requesters from {os.path.basename(a.config)} (the FB 2011 mix), through a relay that counts the "
           f"commands (round trips) and statements the client sends; `python3 bench/linkbench.py --round-trips` reruns it. "
           f"Questions is the server's global counter (other clients add to it).\n",
           "| tool | requests | requests/s | round trips / request | statements / request | server Questions / request |",
           "|---|---|---|---|---|---|"]
    for name in ("java", "fairbench"):
        r = res[name]
        out.append(f"| {name} | {r['requests']} | {r['requests_per_s']:.0f} | {r['round_trips']:.3f} | {r['statements']:.3f} | {r['questions']:.3f} |")
    table = "\n".join(out) + "\n"
    with open(os.path.join(HERE, "RESULTS-linkbench-roundtrips.md"), "w") as f:
        f.write(table)
    print(table)


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
    jars = [os.path.join(a.linkbench, "target", "FacebookLinkBench.jar")]
    if a.connector:
        jars.insert(0, a.connector)
    return ["java", "-cp", ":".join(jars),
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
    ap.add_argument("--round-trips", action="store_true", help="count each tool's round trips and statements per request instead")
    ap.add_argument("--connector", help="a mysql-connector-java jar put before LinkBench's own (5.1.22 cannot connect to MariaDB 10.11; 5.1.49 can)")
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
    if a.round_trips:
        round_trips(a, env)
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
