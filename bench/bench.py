#!/usr/bin/env python3
"""fairbench against the reference load generators, side by side.

Run through bench/run.sh. Every figure comes from the same session against
the same servers, tools alternating within each repetition, so drift on a
shared machine hits both sides alike; each row reports the median of the
repetitions and the spread (min..max) of the ratio.

Measured per run:
  qps               the tool's own report
  client CPU/query  utime+stime of the tool's process (wait4 rusage) / queries
  server CPU/query  utime+stime of the server processes over the run / queries
                    (PostgreSQL: the postmaster, its live backends, and the
                    backends that exited, via the postmaster's cutime/cstime)
  ceiling share     qps / (cores / server CPU per query): how close the run
                    came to what the server alone could do on this machine
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TCK = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1
WORKDIR = tempfile.mkdtemp(prefix="fairbench-bench.")
SECTIONS = ("prepare", "oltp", "tls", "many", "tpcc")  # in table order
BUILDS_HEAD = """# fairbench builds against each other

Each section: two or more builds of fairbench and sysbench, alternating in
rotating order on the same servers (`bash bench/run.sh --builds OLD NEW`).
Rows named after a build compare it with sysbench, then with the build named before it;
the ratio is the median's, the spread the per-repetition ratios' min..max.
"rest of host" is everything the machine did during the run except the tool
itself (the server mostly, and the kernel's side of their traffic).
"""


def log(*a):
    print("bench:", *a, file=sys.stderr, flush=True)


def run_child(cmd, env=None, timeout=None):
    """Run cmd; returns (stdout+stderr, wall s, user s, sys s, maxrss KB)."""
    t0 = time.monotonic()
    # In a scratch directory: fairbench keeps a results store in its working directory.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True, cwd=WORKDIR)
    out = []
    th = threading.Thread(target=lambda: out.append(p.stdout.read()))
    th.start()
    deadline = None if timeout is None else t0 + timeout
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if deadline and time.monotonic() > deadline:
            p.kill()
        time.sleep(0.02)
    p.returncode = os.waitstatus_to_exitcode(status)
    th.join()
    wall = time.monotonic() - t0
    text = out[0] if out else ""
    if p.returncode != 0:
        log(f"warning: {' '.join(cmd[:3])}... exited {p.returncode}: {text.strip().splitlines()[-1:] }")
    return text, wall, ru.ru_utime, ru.ru_stime, ru.ru_maxrss, p.returncode


def machine_ticks():
    """(idle, total, nice) clock ticks of all cores so far, from /proc/stat:
    idle counts time waiting for I/O too, total stops at steal (guest time
    is already inside user); nice is the user time of lowered-priority work
    (a build in the background), left out of what a run made the host do."""
    f = [int(x) for x in open("/proc/stat").readline().split()[1:9]]
    return f[3] + f[4], sum(f), f[1]


def proc_cpu(pid, children=False):
    try:
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # fields after the comm: state=0 ... utime=11 stime=12 cutime=13 cstime=14
    v = int(f[11]) + int(f[12])
    if children:
        v += int(f[13]) + int(f[14])
    return v / TCK


def pg_children(ppid):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                f = open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(f[1]) == ppid:
                out.append(int(d))
    return out


class Server:
    def __init__(self, engine, pid):
        self.engine, self.pid = engine, pid

    def cpu(self):
        if self.engine == "mysql":
            return proc_cpu(self.pid)
        return proc_cpu(self.pid, children=True) + sum(proc_cpu(c) for c in pg_children(self.pid))


def against_floor(below):
    """Where a target stands against a measured floor."""
    return "below this floor, no client can reach it" if below else "above this floor"


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


# ---------------------------------------------------------------- tools


def parse_sysbench(text):
    m = re.search(r"queries:\s+(\d+)\s+\(([\d.]+) per sec", text)
    return (int(m.group(1)), float(m.group(2))) if m else (None, None)


def fb_server_us(text):
    """fairbench's own figure for the server's CPU per query (µs): the
    "srv cpu/q" column of its hardware table (last level), whose values are
    right-aligned under their headings; None when it was not measured."""
    lines = text.splitlines()
    for head, row in zip(lines, lines[1:]):
        at = head.find("srv cpu/q")
        if at >= 0:
            end = at + len("srv cpu/q")
            for m in re.finditer(r"\S+", row):
                if m.end() == end:
                    try:
                        return float(m.group())
                    except ValueError:
                        return None
    return None


def parse_pgbench(text):
    tx = re.search(r"number of transactions actually processed: (\d+)", text)
    tps = re.search(r"tps = ([\d.]+) \(without initial", text)
    return (int(tx.group(1)), float(tps.group(1))) if tx and tps else (None, None)


class Bench:
    def __init__(self, a):
        self.a = a
        self.fb = a.fairbench
        self.env = dict(os.environ, PGSSLMODE="disable")
        self.my_sock = os.environ["FAIRBENCH_TEST_MYSQL_SOCKET"]
        self.my_port = os.environ["FAIRBENCH_TEST_MYSQL_PORT"]
        self.pg_port = os.environ["FAIRBENCH_TEST_PG_PORT"]
        self.db = re.search(r"/([^/?]+)(\?|$)", os.environ["FAIRBENCH_TEST_MYSQL_URL"]).group(1)
        tmp = os.environ["FAIRBENCH_TEST_TMP"]
        self.my = Server("mysql", int(open(f"{tmp}/mysql/mysqld.pid").read().split()[0]))
        self.pg = Server("pg", int(open(f"{tmp}/pg/data/postmaster.pid").read().split()[0]))
        self.rows = []  # (section, label, metric, fb values, ref values, ref name)

    # targets
    def fb_target(self, kind):
        return {
            "maria-socket": f"mysql://fb:fbpass@localhost/{self.db}?socket={self.my_sock}",
            "maria-tcp": f"mysql://fb:fbpass@127.0.0.1:{self.my_port}/{self.db}",
            "pg-tcp": f"postgres://fb:fbpass@127.0.0.1:{self.pg_port}/{self.db}?sslmode=disable",
            "pg-tls": f"postgres://fb:fbpass@127.0.0.1:{self.pg_port}/{self.db}?sslmode=require",
        }[kind]

    def sb_env(self, kind):
        """sysbench's environment: libpq takes TLS from PGSSLMODE (sysbench
        1.0 has no --pgsql-sslmode)."""
        return {**self.env, "PGSSLMODE": "require"} if kind == "pg-tls" else None

    def sb_args(self, kind):
        if kind == "maria-socket":
            return ["--db-driver=mysql", f"--mysql-socket={self.my_sock}", "--mysql-user=fb", "--mysql-password=fbpass", f"--mysql-db={self.db}"]
        if kind == "maria-tcp":
            return ["--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={self.my_port}", "--mysql-user=fb", "--mysql-password=fbpass", f"--mysql-db={self.db}"]
        return ["--db-driver=pgsql", "--pgsql-host=127.0.0.1", f"--pgsql-port={self.pg_port}", "--pgsql-user=fb", "--pgsql-password=fbpass", f"--pgsql-db={self.db}"]

    def server(self, kind):
        return self.pg if kind.startswith("pg") else self.my

    def measured(self, kind, cmd, parse, env=None, timeout=None):
        srv = self.server(kind)
        c0, m0 = srv.cpu(), machine_ticks()
        text, wall, u, s, rss, rc = run_child(cmd, env=env, timeout=timeout)
        m1 = machine_ticks()
        time.sleep(0.3)  # let exited backends be reaped into the postmaster's totals
        c1 = srv.cpu()
        q, qps = parse(text)
        if not q:
            return None
        scpu = (c1 - c0) / q
        # Everything the machine did over the run but the tool itself: the
        # server mostly, and the kernel's share of the network between them.
        busy = ((m1[1] - m1[0] - m1[2]) - (m0[1] - m0[0] - m0[2])) / TCK
        return {"qps": qps, "self_server_us": fb_server_us(text), "client_us": (u + s) / q * 1e6, "client_sys_us": s / q * 1e6, "server_us": scpu * 1e6, "share": qps * scpu / CORES,
                "rest_us": max(0.0, busy - (u + s)) / q * 1e6,
                "idle": (m1[0] - m0[0]) / max(1, m1[1] - m0[1]), "rss_mb": rss / 1024, "cpu_s": u + s, "wall": wall}

    @staticmethod
    def where_time_went(res, clients, kind):
        """Where the cores went during the point selects (medians): the
        server's share, the client's and idle time, for fairbench and
        sysbench, and what the share target leaves to the client and idle
        time together."""
        def split(runs):
            srv = median([x["share"] for x in runs])
            cli = median([x["qps"] * x["client_us"] / 1e6 / CORES for x in runs])
            return srv, cli, median([x["idle"] for x in runs])

        (fs, fc, fi), (ss, sc, si) = split(res["fairbench"]), split(res["sysbench"])
        text = (f"where the {CORES} cores went: server {fs:.0%}, fairbench {fc:.0%}, idle {fi:.0%} (waiting on the disk included); "
                f"with sysbench: server {ss:.0%}, sysbench {sc:.0%}, idle {si:.0%}")
        target = {"maria": 0.88, "pg": 0.85}[kind.split("-")[0]] if clients == 4 else None
        if target:
            text += f"; a {target:.0%} share leaves {1 - target:.0%} of the cores to the client and idle time together, against {fc + fi:.0%} measured"
        return text + "."

    # sections
    def prepare_data(self, compare=True):
        a = self.a
        sizes = f"--tables={a.tables} --table-size={a.table_size}"
        if not compare:
            # The OLTP rows only need the data: prepare once, untimed.
            for kind in ("maria-socket", "pg-tcp"):
                self.cleanup(kind)
                run_child([self.fb, "prepare", "--target", self.fb_target(kind), *sizes.split(), "--threads=4"])
            self.pgbench_init()
            return
        for kind in ("maria-socket", "pg-tcp"):
            eng = "MariaDB" if kind.startswith("maria") else "PostgreSQL"
            fb, ref = [], []
            for rep in range(a.prep_reps):
                for tool in ("sysbench", "fairbench"):
                    self.cleanup(kind)
                    if tool == "sysbench":
                        cmd = ["sysbench", "oltp_read_write", *self.sb_args(kind), *sizes.split(), "--threads=4", "prepare"]
                    else:
                        cmd = [self.fb, "prepare", "--target", self.fb_target(kind), *sizes.split(), "--threads=4"]
                    text, wall, u, s, rss, rc = run_child(cmd)
                    rows = a.tables * a.table_size
                    (ref if tool == "sysbench" else fb).append({"wall": wall, "rows_s": rows / wall, "client_s": u + s})
                    log(f"prepare {eng} {tool}: {wall:.1f}s")
            label = f"{eng} {a.tables} x {a.table_size:,} rows"
            self.rows.append(("prepare", label, "wall time", [x["wall"] for x in fb], [x["wall"] for x in ref], "sysbench prepare"))
            self.rows.append(("prepare", label, "rows/s", [x["rows_s"] for x in fb], [x["rows_s"] for x in ref], "sysbench prepare"))
            self.floor("prepare", kind, [f"sbtest{i}" for i in range(1, a.tables + 1)], f"prepare {eng}", label, [x["wall"] for x in fb], [x["wall"] for x in ref], "sysbench", {"MariaDB": 0.6, "PostgreSQL": 0.35}[eng])
        self.pgbench_init()

    def floor(self, section, kind, tables, what, label, fb, ref, ref_name, target):
        """The server-alone row for a load (fairbench's walls against the
        floor) and a note placing the target against that floor."""
        tried = self.server_alone(kind, tables, self.a.prep_reps) or {("shared", 4): []}
        alone = tried[min(tried, key=lambda k: median(tried[k]) or float("inf"))]
        self.rows.append((section, label, "wall time", fb, alone, "server alone"))
        fl, r, mine = median(alone), median(ref), median(fb)
        if fl and r:
            how = ", ".join(f"{'shared' if layout == 'shared' else 'whole'} tables on {n} sessions {median(w):.1f} s"
                            for (layout, n), w in sorted(tried.items()) if w)
            if mine and mine / r <= target:
                verdict = f"fairbench meets it at {mine / r:.2f}x" + (", faster than this floor: the server alone is no tighter bound here" if mine < fl else "")
            elif mine and mine < fl:
                verdict = (f"not met at {mine / r:.2f}x, though fairbench is already faster than the server alone here: "
                           f"no way of loading these rows measured on this machine reaches {target}x")
            else:
                verdict = against_floor(fl / r > target)
            self.notes.append((section,
                f"{what}: the server alone (each table's rows read back from files on the server's side in pieces of about 100k rows, "
                f"a statement and transaction each, nothing generated or sent by a client; sessions either sharing each table's pieces, "
                f"table by table, its indexes built as soon as it is in, or taking whole tables followed by their indexes; {how}) "
                f"takes {fl:.1f} s at best = {fl / r:.2f}x {ref_name}'s {r:.1f} s; the {target}x target: {verdict}."
            ))

    def server_alone(self, kind, tables, reps):
        """Wall times of the server loading the rows of `tables` (as a load
        left them) with no client in the way: each table is dumped in pieces
        (ranges of its first primary-key column: a warehouse, 100k ids) to
        files the server reads back itself (LOAD DATA INFILE / COPY FROM a
        file) into a copy with its primary key only, each piece its own
        statement and transaction. Two layouts: sessions sharing each
        table's pieces, table by table (biggest first), a table's secondary
        indexes built as soon as its last piece is in while the next tables
        load; or each session taking whole tables, each followed by its
        indexes (no two sessions extending one table). Each with four
        sessions and, on a machine with fewer cores, one per core: the
        fastest is the floor for any load generator here.
        Returns {(layout, sessions): [wall, ...]}."""
        d = tempfile.mkdtemp(prefix="alone.", dir=WORKDIR)
        os.chmod(WORKDIR, 0o777)
        os.chmod(d, 0o777)  # the server's own user writes and reads the files
        plan = sorted((self.alone_plan(kind, t, f"{d}/{t}") for t in tables), key=lambda p: -p["size"])
        walls = {(layout, n): [] for layout in ("shared", "whole") for n in sorted({4, min(4, CORES)})}
        for rep in range(reps):
            for layout, n in walls:
                for p in plan:
                    self.sql(kind, p["create"])
                self.settle(kind)
                t0 = time.monotonic()
                if not self.alone_run(kind, plan, n, layout == "whole"):
                    log(f"server alone {kind}: a load failed")
                    return {}
                walls[layout, n].append(time.monotonic() - t0)
                log(f"server alone {kind} {tables[0]}..., {layout} tables, {n} sessions: {walls[layout, n][-1]:.1f}s")
        for p in plan:
            self.sql(kind, p["drop"])
        shutil.rmtree(d, ignore_errors=True)
        return walls

    def alone_run(self, kind, plan, sessions, whole):
        """One timed reload of `plan` on `sessions` sessions, the pieces of
        a table shared out or (`whole`) loaded by one session followed by
        its indexes; False if a statement failed."""
        lock = threading.Lock()
        if whole:
            pieces = [(None, p["loads"] + p["indexes"]) for p in plan]
            left = {}
        else:
            pieces = [(p["name"], st) for p in plan for st in p["loads"]]
            left = {p["name"]: len(p["loads"]) for p in plan}
        indexes = {p["name"]: p["indexes"] for p in plan}
        ready = []  # index lists of loaded tables, in order of release
        failed = []

        def worker():
            while not failed:
                with lock:
                    if ready:
                        job = (None, ready.pop(0))
                    elif pieces:
                        job = pieces.pop(0)
                    elif any(left.values()):
                        job = None
                    else:
                        return
                if job is None:
                    time.sleep(0.02)
                    continue
                table, stmts = job
                if self.sql(kind, stmts).returncode != 0:
                    failed.append(table)
                    return
                if table is not None:
                    with lock:
                        left[table] -= 1
                        if left[table] == 0 and indexes[table]:
                            ready.append(indexes[table])
        threads = [threading.Thread(target=worker) for _ in range(sessions)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return not failed

    def alone_plan(self, kind, t, f):
        """How the server alone reloads table t from files f.N: the copy's
        DDL (primary key only), one load per piece, the secondary indexes,
        the total size of the files."""
        a = f"alone_{t}"
        if kind.startswith("pg"):
            pk = self.query_rows(kind, f"SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = '{t}'::regclass AND contype = 'p'")
            first = re.match(r"PRIMARY KEY \((\w+)", pk[0][0]).group(1) if pk else None
            defs = self.query_rows(kind, f"SELECT indexdef FROM pg_indexes i WHERE tablename = '{t}' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.contype = 'p')")
            create = [f"DROP TABLE IF EXISTS {a}", f"CREATE TABLE {a} (LIKE {t} INCLUDING DEFAULTS)", *(f"ALTER TABLE {a} ADD {r[0]}" for r in pk)]
            # Index names are schema-wide on PostgreSQL: the copy's get a prefix.
            indexes = [re.sub(r"^CREATE (UNIQUE )?INDEX (\S+) ON \S+ ", lambda m: f"CREATE {m.group(1) or ''}INDEX alone_{m.group(2)} ON {a} ", r[0]) for r in defs]
            dump = lambda where, fn: f"COPY (SELECT * FROM {t} WHERE {where}) TO '{fn}' (FORMAT binary)"
            load = lambda fn: f"COPY {a} FROM '{fn}' (FORMAT binary)"
        else:
            first = self.value(kind, f"SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '{t}' AND INDEX_NAME = 'PRIMARY' AND SEQ_IN_INDEX = 1")
            idx = self.query_rows(kind, f"SELECT INDEX_NAME, NON_UNIQUE, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '{t}' AND INDEX_NAME <> 'PRIMARY' GROUP BY INDEX_NAME, NON_UNIQUE")
            # LIKE copies the secondary indexes (not the foreign keys): drop them, to build after the load.
            create = [f"DROP TABLE IF EXISTS {a}", f"CREATE TABLE {a} LIKE {t}", *(f"ALTER TABLE {a} DROP INDEX {r[0]}" for r in idx)]
            indexes = [f"CREATE {'' if r[1] == '1' else 'UNIQUE '}INDEX {r[0]} ON {a} ({r[2]})" for r in idx]
            dump = lambda where, fn: f"SELECT * FROM {t} WHERE {where} INTO OUTFILE '{fn}' CHARACTER SET binary"
            load = lambda fn: f"LOAD DATA INFILE '{fn}' INTO TABLE {a} CHARACTER SET binary"
        # About 100k rows a piece, but never less than one key value; a table
        # without a primary key (history) is one piece.
        ranges = ["1=1"]
        if first:
            lo, hi, rows = (int(float(v or 0)) for v in self.query_rows(kind, f"SELECT MIN({first}), MAX({first}), COUNT(*) FROM {t}")[0])
            n = max(1, min(hi - lo + 1, round(rows / 100_000)))
            step = (hi - lo + 1 + n - 1) // n
            ranges = [f"{first} >= {start} AND {first} < {start + step}" for start in range(lo, hi + 1, step)]
        files = []
        for k, where in enumerate(ranges):
            fn = f"{f}.{k}"
            self.sql(kind, dump(where, fn))
            files.append(fn)
        return {"name": t, "create": create, "loads": [load(fn) for fn in files], "indexes": indexes,
                "size": sum(os.path.getsize(fn) for fn in files), "drop": f"DROP TABLE IF EXISTS {a}"}

    def client(self, kind):
        """The engine's command-line client, logged in to the bench database,
        and its environment (password, no NOTICE chatter)."""
        if kind.startswith("pg"):
            cmd = ["psql", "-h", "127.0.0.1", "-p", self.pg_port, "-U", "fb", "-d", self.db]
        else:
            cmd = ["mariadb", f"--socket={self.my_sock}", "-ufb", "-pfbpass", self.db]
        return cmd, {**self.env, "PGPASSWORD": "fbpass", "PGOPTIONS": "-c client_min_messages=warning"}

    def sql(self, kind, stmts, wait=True):
        """Statements through the engine's command-line client, in one session."""
        stmts = [stmts] if isinstance(stmts, str) else stmts
        cmd, env = self.client(kind)
        if kind.startswith("pg"):
            cmd += ["-q", "-v", "ON_ERROR_STOP=1"] + [x for st in stmts for x in ("-c", st)]
        else:
            cmd += ["-e", ";".join(stmts)]
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
        if wait:
            p.wait()
        return p

    def pgbench_init(self):
        a = self.a
        if not self.pgbench_ready:
            text, *_ = run_child(["pgbench", "-i", "-q", "-s", str(max(1, a.table_size // 100000)), "-h", "127.0.0.1", "-p", self.pg_port, "-U", "fb", self.db], env={**self.env, "PGPASSWORD": "fbpass"})
            self.pgbench_ready = True

    def cleanup(self, kind):
        run_child([self.fb, "cleanup", "--target", self.fb_target(kind), f"--tables={self.a.tables}"])
        self.settle(kind)

    def settle(self, kind):
        """Start every timed load from the same state, the previous load's
        dirty pages written out (PostgreSQL: a checkpoint; MariaDB: the
        buffer pool flushed), so that no tool pays for the one before it."""
        if kind.startswith("pg"):
            self.sql(kind, "CHECKPOINT")
            return
        pct = self.value(kind, "SELECT @@innodb_max_dirty_pages_pct")
        self.sql(kind, "SET GLOBAL innodb_max_dirty_pages_pct=0")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if int(self.value(kind, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME='INNODB_BUFFER_POOL_PAGES_DIRTY'") or 0) < 100:
                break
            time.sleep(0.5)
        self.sql(kind, f"SET GLOBAL innodb_max_dirty_pages_pct={pct}")

    def query_rows(self, kind, query):
        """A query's rows, each a list of column texts."""
        cmd, env = self.client(kind)
        cmd += ["-At", "-F", "\t", "-c", query] if kind.startswith("pg") else ["-N", "-B", "-e", query]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env).stdout
        return [line.split("\t") for line in out.splitlines() if line]

    def value(self, kind, query):
        """The first column of the first row of a query, as text."""
        rows = self.query_rows(kind, query)
        return rows[0][0] if rows else None

    def cached(self):
        """Hold the OLTP tables in memory for the OLTP rows, on both engines:
        PostgreSQL reads through the OS page cache, but MariaDB reads past
        it (O_DIRECT), so with a buffer pool smaller than the tables its
        point selects wait on the disk and the rows measure the disk, not the
        clients. The buffer pool is raised to hold the tables and both are
        prewarmed; returns the pool size to restore afterwards (None if left
        alone)."""
        db = self.db
        data = int(float(self.value("maria-socket", "SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables "
                                    f"WHERE table_schema = '{db}' AND table_name LIKE 'sbtest%'") or 0))
        was = int(self.value("maria-socket", "SELECT @@innodb_buffer_pool_size") or 0)
        chunk = 128 << 20
        want = -(-(data * 5 // 4 + chunk) // chunk) * chunk
        restore = None
        if was and want > was:
            self.sql("maria-socket", f"SET GLOBAL innodb_buffer_pool_size = {want}")
            restore = was
            self.notes.append(("oltp", f"MariaDB's buffer pool was raised from {was >> 20} MB to {want >> 20} MB for the OLTP rows, to hold the "
                               f"{data >> 20} MB of tables as the OS page cache holds PostgreSQL's; both engines' tables were prewarmed first."))
        for kind in ("maria-socket", "pg-tcp"):
            run_child([self.fb, "prewarm", "oltp_point_select", "--target", self.fb_target(kind), f"--tables={self.a.tables}", f"--table-size={self.a.table_size}"])
        return restore

    def oltp(self):
        restore = self.cached()
        busy = self.busy_loops(self.a.busy)
        try:
            self.oltp_rows()
        finally:
            for p in busy:
                p.kill()
            if restore:
                self.sql("maria-socket", f"SET GLOBAL innodb_buffer_pool_size = {restore}")

    @staticmethod
    def busy_loops(n):
        """`--busy N`: N endless loops at the lowest priority (nice 19) beside
        the OLTP rows, as a build or a monitoring agent would run beside a
        benchmark; their CPU is left out of the rest of the host's."""
        if n:
            log(f"{n} nice-19 busy loop(s) beside the OLTP rows")
        return [subprocess.Popen(["nice", "-n", "19", "sh", "-c", "while :; do :; done"]) for _ in range(n)]

    def oltp_rows(self):
        a = self.a
        combos = []
        for test in a.tests:
            for clients in a.clients:
                for kind in a.kinds:
                    combos.append((test, clients, kind))
        builds = self.builds or [("fairbench", self.fb)]
        names = [n for n, _ in builds]
        for test, clients, kind in combos:
            res = {n: [] for n in names + ["sysbench", "pgbench", "floor", "floor-fb"]}
            tools = names + ["sysbench"]
            if not self.builds:
                tools += ["pgbench"] if kind == "pg-tcp" and test == "oltp_point_select" else []
                # The kernel's floor per round trip (bench/floor.py) beside the point selects.
                if test == "oltp_point_select" and kind != "pg-tls":
                    tools.append("floor")
                    # The floor asking what fairbench's wire client asks (an INT8
                    # parameter, binary formats): the server's cost of those asks.
                    if kind == "pg-tcp":
                        tools.append("floor-fb")
            for rep in range(a.reps):
                # Each tool first, middle and last alike over the repetitions.
                k = rep % len(tools)
                order = tools[k:] + tools[:k]
                if rep // len(tools) % 2:
                    order = order[::-1]
                for tool in order:
                    if tool in names:
                        fb = dict(builds)[tool]
                        cmd = [fb, "run", test, "--target", self.fb_target(kind), f"--tables={a.tables}", f"--table-size={a.table_size}", f"--threads={clients}", f"--time={a.time}", "--rand-type=uniform", "--no-prepare"]
                        r = self.measured(kind, cmd, parse_sysbench)
                    elif tool == "sysbench":
                        # sysbench 1.0 defaults to --rand-type=special (a small hot set that
                        # stays cached); both tools are given the same distribution.
                        cmd = ["sysbench", test, *self.sb_args(kind), f"--tables={a.tables}", f"--table-size={a.table_size}", f"--threads={clients}", f"--time={a.time}", "--rand-type=uniform", "--db-ps-mode=auto", "run"]
                        r = self.measured(kind, cmd, parse_sysbench, env=self.sb_env(kind))
                    elif tool in ("floor", "floor-fb"):
                        where = {"maria-socket": [f"--socket={self.my_sock}"], "maria-tcp": ["--host=127.0.0.1", f"--port={self.my_port}"], "pg-tcp": ["--pg", "--host=127.0.0.1", f"--port={self.pg_port}"]}[kind]
                        asks = ["--int8", "--binary"] if tool == "floor-fb" else []
                        cmd = [sys.executable, os.path.join(HERE, "floor.py"), *where, *asks, "--user=fb", "--password=fbpass", f"--db={self.db}", f"--clients={clients}", f"--time={a.time}", f"--tables={a.tables}", f"--table-size={a.table_size}"]
                        r = self.measured(kind, cmd, parse_sysbench)
                    else:
                        cmd = ["pgbench", "-S", "-M", "prepared", "-n", "-c", str(clients), "-j", str(min(clients, CORES)), "-T", str(a.time), "-h", "127.0.0.1", "-p", self.pg_port, "-U", "fb", self.db]
                        r = self.measured(kind, cmd, parse_pgbench, env={**self.env, "PGPASSWORD": "fbpass"})
                    if r:
                        res[tool].append(r)
                        log(f"{test} {clients} {kind} {tool}: {r['qps']:.0f} qps, client {r['client_us']:.1f} us/q, server {r['server_us']:.1f} us/q, rest of host {r['rest_us']:.1f} us/q, share {r['share']:.0%}")
            label = f"{test} {clients}cl {kind}"
            if self.builds:
                self.build_rows(label, names, res)
                continue
            fl, sb = median([x["client_sys_us"] for x in res["floor"]]), median([x["client_us"] for x in res["sysbench"]])
            if fl is not None and sb is not None:
                self.notes.append(("oltp",
                    f"{label}: the kernel alone costs {fl:.1f} µs of client CPU per query (system time of floor.py, one send and one receive per query); "
                    f"a third of sysbench's client CPU is {sb / 3:.1f} µs, so that target is {against_floor(fl > sb / 3)}."
                ))
                # With client and server sharing the cores, the best share of the
                # server-only ceiling a client at the floor could reach.
                srv = median([x["server_us"] for x in res["fairbench"]])
                if srv:
                    self.notes.append(("oltp", f"{label}: with the server at {srv:.1f} µs per query and a client at that floor, the share of the server-only ceiling cannot pass {srv / (srv + fl):.0%} on a machine the two share."))
                own = median([x["self_server_us"] for x in res["fairbench"]])
                if srv and own:
                    self.notes.append(("oltp", f"{label}: fairbench's own figure for the server's CPU per query (its hardware table, the level's window) is {own:.1f} µs; this harness measured {srv:.1f} µs over the whole process, connections included."))
            if test == "oltp_point_select" and res["fairbench"] and res["sysbench"]:
                self.notes.append(("oltp", f"{label}: {self.where_time_went(res, clients, kind)}"))
            for ref in tools[1:]:
                # Against the floor only the kernel's part of the client's CPU
                # means anything (the floor's own user time is Python's), and
                # the server's CPU per query: the floor reads the same rows, so
                # whatever the server spends beyond it, fairbench asked for.
                metrics = ("client_sys_us", "server_us") if ref.startswith("floor") else ("qps", "client_us", "client_sys_us", "server_us", "rest_us", "share", "idle")
                for metric in metrics:
                    self.rows.append(("oltp", label, metric, [x[metric] for x in res["fairbench"]], [x[metric] for x in res[ref]], ref))

    def build_rows(self, label, names, res):
        """Builds against each other: each build against sysbench, then
        each build against the one named before it (a walk through
        history compares each change with its parent), metric by metric."""
        metrics = ("qps", "client_us", "server_us", "rest_us")
        for n in names:
            for metric in metrics:
                self.rows.append(("oltp", f"{label} {n}", metric, [x[metric] for x in res[n]], [x[metric] for x in res["sysbench"]], "sysbench"))
        for before, n in zip(names, names[1:]):
            for metric in metrics:
                self.rows.append(("oltp", f"{label} {n}", metric, [x[metric] for x in res[n]], [x[metric] for x in res[before]], before))

    def tls(self):
        restore = self.cached()
        try:
            self.tls_rows()
        finally:
            if restore:
                self.sql("maria-socket", f"SET GLOBAL innodb_buffer_pool_size = {restore}")

    def tls_target(self, kind):
        if kind == "maria-tcp":
            return f"mysql://fbssl:fbpass@127.0.0.1:{self.my_port}/{self.db}?ssl-mode=REQUIRED"
        return self.fb_target(kind).replace("sslmode=disable", "sslmode=require")

    def sysbench_tls_files(self):
        """sysbench 1.0's --mysql-ssl=on loads client-key.pem, client-cert.pem
        and cacert.pem from its working directory and fails without them: a
        client certificate signed by the test servers' CA."""
        tls = os.path.join(os.environ["FAIRBENCH_TEST_TMP"], "tls")
        ext = os.path.join(WORKDIR, "client-ext.cnf")
        open(ext, "w").write("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n")
        for cmd in (["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=sysbench", "-keyout", "client-key.pem", "-out", "client.csr"],
                    ["openssl", "x509", "-req", "-in", "client.csr", "-CA", f"{tls}/ca.pem", "-CAkey", f"{tls}/ca.key", "-CAcreateserial", "-CAserial", "ca.srl", "-days", "2", "-extfile", ext, "-out", "client-cert.pem"]):
            subprocess.run(cmd, cwd=WORKDIR, capture_output=True, check=True)
        shutil.copy(f"{tls}/ca.pem", os.path.join(WORKDIR, "cacert.pem"))

    def tls_rows(self):
        """Point selects, 4 clients, TLS on both tools and neither checking
        the certificate: fairbench ssl-mode=REQUIRED / sslmode=require,
        sysbench --mysql-ssl=on (1.0's spelling of REQUIRED) / libpq's
        PGSSLMODE=require (sysbench 1.0 has no --pgsql-sslmode). On MariaDB
        both tools log in as the account that may only connect over TLS, so
        a run that counts queries was encrypted."""
        a = self.a
        self.sysbench_tls_files()
        for kind in ("maria-tcp", "pg-tcp"):
            res = {"fairbench": [], "sysbench": []}
            for rep in range(a.reps):
                for tool in ("fairbench", "sysbench") if rep % 2 == 0 else ("sysbench", "fairbench"):
                    common = [f"--tables={a.tables}", f"--table-size={a.table_size}", "--threads=4", f"--time={a.time}", "--rand-type=uniform"]
                    if tool == "fairbench":
                        r = self.measured(kind, [self.fb, "run", "oltp_point_select", "--target", self.tls_target(kind), *common, "--no-prepare"], parse_sysbench)
                    else:
                        args = self.sb_args(kind)
                        if kind == "maria-tcp":
                            args = [x.replace("--mysql-user=fb", "--mysql-user=fbssl") for x in args] + ["--mysql-ssl=on"]
                        cmd = ["sysbench", "oltp_point_select", *args, *common, "--db-ps-mode=auto", "run"]
                        r = self.measured(kind, cmd, parse_sysbench, env={**self.env, "PGSSLMODE": "require"})
                    if r:
                        res[tool].append(r)
                        log(f"tls point select 4 {kind} {tool}: {r['qps']:.0f} qps, client {r['client_us']:.1f} us/q, server {r['server_us']:.1f} us/q")
            label = f"oltp_point_select 4cl {kind} TLS"
            for metric in ("qps", "client_us", "client_sys_us", "server_us"):
                self.rows.append(("tls", label, metric, [x[metric] for x in res["fairbench"]], [x[metric] for x in res["sysbench"]], "sysbench"))

    def many(self):
        a = self.a
        self.sql("maria-socket", "SET GLOBAL max_connections=12000")
        for kind, counts in (("maria-socket", a.many_maria), ("pg-tcp", a.many_pg)):
            for n in counts:
                rate = max(100, n // 10)
                res = {"fairbench": [], "sysbench": []}
                for tool in ("fairbench", "sysbench"):
                    if tool == "fairbench":
                        cmd = [self.fb, "run", "oltp_point_select", "--target", self.fb_target(kind), f"--tables={a.tables}", f"--table-size={a.table_size}", f"--threads={n}", f"--rate={rate}", f"--time={a.time}", "--no-prepare"]
                    else:
                        cmd = ["sysbench", "oltp_point_select", *self.sb_args(kind), f"--tables={a.tables}", f"--table-size={a.table_size}", f"--threads={n}", f"--rate={rate}", f"--time={a.time}", "run"]
                    text, wall, u, s, rss, rc = run_child(cmd, timeout=a.time * 10 + 300)
                    q, qps = parse_sysbench(text)
                    ok = rc == 0 and q
                    res[tool].append({"rss_mb": rss / 1024 if ok else None, "cpu_s": (u + s) if ok else None})
                    log(f"many {kind} {n} {tool}: rc={rc} rss {rss/1024:.0f} MB cpu {u+s:.1f}s qps {qps}")
                label = f"{n} clients, rate {rate}/s, {kind}"
                self.rows.append(("many", label, "client RSS MB", [x["rss_mb"] for x in res["fairbench"]], [x["rss_mb"] for x in res["sysbench"]], "sysbench"))
                self.rows.append(("many", label, "client CPU s", [x["cpu_s"] for x in res["fairbench"]], [x["cpu_s"] for x in res["sysbench"]], "sysbench"))

    def tpcc(self):
        gotpc = shutil.which("go-tpc") or (os.path.join(HERE, "tools", "go-tpc") if os.path.exists(os.path.join(HERE, "tools", "go-tpc")) else None)
        if not gotpc:
            self.notes.append(("tpcc", "TPC-C load: go-tpc not found, so fairbench's load time is shown alone (put go-tpc on PATH or at bench/tools/go-tpc to compare: `go install github.com/pingcap/go-tpc/cmd/go-tpc@latest`, or `go build ./cmd/go-tpc` in its source)."))
        w = self.a.warehouses
        for kind, eng in (("maria-tcp", "mysql"), ("pg-tcp", "postgres")):
            fb_load = [self.fb, "prepare", "tpcc", "--target", self.fb_target(kind), f"--warehouses={w}", "--threads=4"]
            fb_cleanup = [self.fb, "cleanup", "tpcc", "--target", self.fb_target(kind)]
            fb, ref = [], []
            for rep in range(self.a.prep_reps):
                run_child(fb_cleanup)
                self.settle(kind)
                _, wall, *_ = run_child(fb_load)
                fb.append(wall)
                log(f"TPC-C load {w} W {kind} fairbench: {wall:.1f}s")
                run_child(fb_cleanup)
                if not gotpc:
                    continue
                port = self.my_port if eng == "mysql" else self.pg_port
                args = [gotpc, "tpcc", "-H", "127.0.0.1", "-P", port, "-U", "fb", "-p", "fbpass", "-D", self.db, "--warehouses", str(w), "-T", "4"]
                if eng == "postgres":
                    args += ["-d", "postgres", "--conn-params", "sslmode=disable"]
                run_child(args + ["cleanup"])  # go-tpc hangs on tables left with data
                self.settle(kind)
                _, wall, *_ = run_child(args + ["prepare", "--no-check"], timeout=1800)
                ref.append(wall)
                run_child(args + ["cleanup"])
            label = f"TPC-C load {w} warehouses, {kind}"
            self.rows.append(("tpcc", label, "wall time", fb, ref, "go-tpc" if gotpc else "(none)"))
            # The floor reloads the tables fairbench's load leaves behind.
            run_child(fb_load)
            tables = [f"{t}1" for t in ("warehouse", "district", "customer", "history", "orders", "new_orders", "order_line", "stock", "item")]
            self.floor("tpcc", kind, tables, f"TPC-C load {'MariaDB' if eng == 'mysql' else 'PostgreSQL'}", label, fb, ref, "go-tpc", 0.5)
            run_child(fb_cleanup)

    # report
    def versions(self):
        def first(cmd):
            try:
                return subprocess.run(cmd, capture_output=True, text=True, env={**self.env, "PGPASSWORD": "fbpass"}).stdout.strip().splitlines()[0]
            except Exception:
                return "?"

        cpu = "?"
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        return {
            "machine": f"{platform.node()}, {CORES} cores ({cpu}), {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') // 2**30} GB, Linux {platform.release()}",
            "fairbench": first([self.fb, "--version"]),
            "sysbench": first(["sysbench", "--version"]),
            "pgbench": first(["pgbench", "--version"]),
            "MariaDB": self.value("maria-socket", "SELECT VERSION()") or "?",
            "PostgreSQL": self.value("pg-tcp", "SHOW server_version") or "?",
        }

    def report(self):
        def fmt(v, metric):
            if v is None:
                return "-"
            if metric in ("share", "idle"):
                return f"{v:.0%}"
            if metric in ("client_us", "client_sys_us", "server_us"):
                return f"{v:.1f}"
            if metric in ("qps", "rows/s"):
                return f"{v:,.0f}"
            return f"{v:.1f}"

        names = {"qps": "QPS", "client_us": "client CPU µs/query", "client_sys_us": "client system CPU µs/query", "server_us": "server CPU µs/query",
                 "rest_us": "rest of host CPU µs/query", "share": "share of server-only ceiling", "idle": "machine idle"}
        lines = []
        v = self.versions()
        mode = "quick" if self.a.quick else "full"
        if self.builds:
            lines.append(f"## {' against '.join(reversed([n for n, _ in self.builds]))}: {', '.join(self.a.kinds)}, {', '.join(map(str, self.a.clients))} clients\n")
            lines.append(f"- command: `bash bench/run.sh {' '.join(self.a.command)}`")
        else:
            lines.append(f"# fairbench vs reference tools ({mode} run)\n")
        lines.append(f"- date: {self.date}")
        for k in ("machine", "fairbench", "sysbench", "pgbench", "MariaDB", "PostgreSQL"):
            if k == "fairbench" and self.builds:
                for n, path in self.builds:
                    lines.append(f"- fairbench {n}: {subprocess.run([path, '--version'], capture_output=True, text=True).stdout.strip()}")
                continue
            lines.append(f"- {k}: {v[k]}")
        loads = "" if self.builds else f", {self.a.prep_reps} per load row"
        lines.append(f"- repetitions: {self.a.reps} per OLTP row ({self.a.time} s each, tools alternating){loads}; median, spread = min..max of the per-repetition ratio")
        lines.append(f"- tables: {self.a.tables} x {self.a.table_size:,} rows; fairbench talks to the servers with its built-in wire clients (FAIRBENCH_WIRE=auto)")
        if self.a.busy:
            lines.append(f"- beside the OLTP rows: {self.a.busy} busy loop(s) at nice 19 (`--busy`), left out of the rest of the host's CPU")
        if not self.builds:
            lines.append("- floor: bench/floor.py, one send and one receive per point select, the rows drawn as the benchmark draws them (uniform over every table); "
                         "floor-fb: the same floor asking what fairbench's PostgreSQL client asks (an INT8 parameter, binary parameter and result formats)")
        lines.append("")
        lines.append("| what | metric | reference | fairbench | reference value | ratio fb/ref | spread |")
        lines.append("|---|---|---|---:|---:|---:|---|")
        for sec, label, metric, fb, ref, refname in self.rows:
            mf, mr = median(fb), median(ref)
            ratio = mf / mr if mf is not None and mr else None
            pairs = [f / r for f, r in zip(fb, ref) if f is not None and r]
            spread = f"{min(pairs):.2f}..{max(pairs):.2f}" if len(pairs) > 1 else ""
            lines.append(f"| {label} | {names.get(metric, metric)} | {refname} | {fmt(mf, metric)} | {fmt(mr, metric)} | {'-' if ratio is None else f'{ratio:.2f}'} | {spread} |")
        if self.notes:
            lines.append("")
            lines.extend(f"- {n}" for _, n in self.notes)
        text = "\n".join(lines) + "\n"
        print(text)
        if self.builds:
            # One section per comparison, added to the file's earlier ones.
            out = self.a.out or os.path.join(HERE, "RESULTS-builds.md")
            if not os.path.exists(out):
                open(out, "w").write(BUILDS_HEAD)
            open(out, "a").write("\n" + text)
            log(f"added to {out}")
            return
        out = self.a.out or os.path.join(HERE, "RESULTS.md" if not self.a.quick else "RESULTS-quick.md")
        open(out, "w").write(text)
        json.dump({"rows": self.rows, "notes": self.notes, "runs": self.runs}, open(out.replace(".md", ".json"), "w"))
        log(f"wrote {out}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fairbench", required=True)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", default="prepare,oltp,tls,many,tpcc")
    p.add_argument("--out")
    p.add_argument("--keep", help="a RESULTS .json whose rows of sections not run this time are kept in the table")
    p.add_argument("--seconds", type=int, help="length of each OLTP run (default 5 quick, 20 full)")
    p.add_argument("--reps", type=int, help="repetitions of each OLTP row (default 2 quick, 3 full)")
    p.add_argument("--clients", help="client counts of the OLTP rows, e.g. 4,16 (default 4 quick, 4,16 full)")
    p.add_argument("--tests", default="oltp_point_select,oltp_read_write", help="workloads of the OLTP rows")
    p.add_argument("--kinds", default="maria-socket,maria-tcp,pg-tcp", help="servers and transports of the OLTP rows (also pg-tls)")
    p.add_argument("--tables", type=int, default=4, help="tables of the OLTP rows")
    p.add_argument("--table-size", type=int, help="rows per table (default 100000 quick, 1000000 full)")
    p.add_argument("--builds", help="NAME=PATH,...: fairbench builds run against each other and sysbench (OLTP rows only)")
    p.add_argument("--busy", type=int, default=0, help="nice-19 busy loops running beside the OLTP rows")
    a = p.parse_args()
    # As run.sh was given it (run.sh turns --builds REVS into NAME=PATH pairs).
    a.command = os.environ.get("FB_BENCH_COMMAND", " ".join(sys.argv[1:])).split()
    table_size = a.table_size
    seconds, reps, clients = a.seconds, a.reps, a.clients
    if a.quick:
        a.table_size, a.reps, a.prep_reps, a.time, a.clients = 100_000, 2, 1, 5, [4]
        a.many_maria, a.many_pg, a.warehouses = [2000], [1000], 2
    else:
        a.table_size, a.reps, a.prep_reps, a.time, a.clients = 1_000_000, 3, 3, 20, [4, 16]
        a.many_maria, a.many_pg, a.warehouses = [2000, 10000], [1000], 10
    a.table_size = table_size or a.table_size
    a.time = seconds or a.time
    a.reps = reps or a.reps
    a.clients = [int(c) for c in clients.split(",")] if clients else a.clients
    a.tests = a.tests.split(",")
    a.kinds = a.kinds.split(",")
    b = Bench(a)
    b.builds = [tuple(x.split("=", 1)) for x in a.builds.split(",")] if a.builds else []
    if b.builds:
        a.only = "oltp"
    b.date = f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}"
    b.notes = []
    b.pgbench_ready = False
    only = a.only.split(",")
    if "prepare" in only or "oltp" in only or "tls" in only:
        b.prepare_data(compare="prepare" in only)
    if "oltp" in only:
        b.oltp()
    if "tls" in only:
        b.tls()
    if "many" in only:
        b.many()
    if "tpcc" in only:
        b.tpcc()
    # When each section's rows were measured (kept sections keep their date).
    b.runs = {sec: b.date for sec in only if sec in SECTIONS}
    if a.keep:
        kept = json.load(open(a.keep))
        if isinstance(kept, list):  # rows only, as the first versions wrote
            kept = {"rows": kept, "notes": [], "runs": {}}
        old = [sec for sec in SECTIONS if sec not in only and any(r[0] == sec for r in kept["rows"])]
        # A section rerun in part (--tests, --clients) keeps its rows that were not measured again.
        fresh = {(r[0], r[1]) for r in b.rows}
        partly = [r for r in kept["rows"] if r[0] in only and (r[0], r[1]) not in fresh]
        if partly:
            b.notes.append(("keep", f"Rows kept from {kept['runs'].get(partly[0][0], 'an earlier run')}: " + "; ".join(sorted({r[1] for r in partly})) + "."))
        b.rows = sorted([tuple(r) for r in kept["rows"] if r[0] in old] + [tuple(r) for r in partly] + b.rows, key=lambda r: SECTIONS.index(r[0]) if r[0] in SECTIONS else len(SECTIONS))
        b.notes = [tuple(n) for n in kept["notes"] if n[0] in old or (n[0] in only and any(n[1].startswith(r[1] + ":") for r in partly))] + b.notes
        for sec in old:
            b.runs[sec] = kept["runs"].get(sec, f"an earlier run ({os.path.basename(a.keep)})")
        if old:
            b.notes.append(("keep", "When each section's rows and notes were measured: " + ", ".join(f"{sec} {b.runs[sec]}" for sec in SECTIONS if sec in b.runs) + "."))
    b.report()


if __name__ == "__main__":
    main()
