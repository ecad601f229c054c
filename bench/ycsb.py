#!/usr/bin/env python3
"""YCSB's core workloads A-F through fairbench and through go-ycsb (PingCAP's
Go YCSB, the reference), on the same MariaDB and PostgreSQL servers, the
tools alternating: operations/s, client CPU per operation (user + system
time of the client process, from wait4's rusage of the finished child), the
operation mix each tool's own figures show, and the key skew each tool's
statements show in the server's statement log.

    bash scripts/build-go-ycsb.sh                 # once: ~/.cache/fairbench/bin/go-ycsb
    eval "$(bash scripts/servers.sh start)"       # or reuse running servers
    cargo build --release
    python3 bench/ycsb.py [--workloads a,b,c,d,e,f] [--engines mysql,pg] \\
        [--reps 5] [--seconds 10] [--threads 4] [--recordcount 10000] [--only go-ycsb]

Servers come from $FAIRBENCH_TEST_MYSQL_URL and $FAIRBENCH_TEST_PG_URL.

Both tools read the same workload file (YCSB's canonical A-F values, written
by this script; --workload-set go-ycsb takes the values of the files go-ycsb
ships instead, which differ: A, B, C, F uniform, E's maxscanlength=1), with
the same recordcount, fieldcount, fieldlength, operationcount and threads.
Each tool loads and runs against a table of its own (go-ycsb's hashed keys
are not YCSB's, see below; --table-mode shared makes both run on one table
loaded by --load-with). Tables are loaded once per engine and loaded again
before each run of a workload that inserts (D, E), so every run starts from
recordcount rows.

Throughput passes run without any statement log. go-ycsb v1.0.3 has no time
limit (its maxexecutiontime property is declared but never read), so it gets
a large operationcount and SIGINT after --seconds; on SIGINT it stops its
workers and prints its final figures. Its ops/s is its operations (READ +
UPDATE + INSERT + SCAN - READ_MODIFY_WRITE, as a read-modify-write's read and
update are counted under READ and UPDATE too) over its own "Run finished,
takes" time. fairbench runs with -p maxexecutiontime and prints YCSB's
[OVERALL] block. With inserts and a zipfian key choice (E) the operationcount
widens the key range (YCSB's recordcount + 2 x insertproportion x
operationcount), so it is not made large there: --operationcount, or by
default 10000 x --seconds for E-like workloads (whichever of count or time
comes first ends the run; ops/s is over the time it took).

The key-skew pass (--skew-seconds, default 5, at --skew-target ops/s,
default 2000, for workloads whose requestdistribution is not uniform) runs
each tool once more with the server's statement log on and counts the share
of statements (reads, scans' start keys, updates, inserts) whose key is among
the 1% most frequent keys of that tool's pass (1% of recordcount keys), and
how many of the two tools' hot keys are the same. MariaDB: the general log (SET GLOBAL, as the URL's user if
it may, else root over $FAIRBENCH_TEST_MYSQL_SOCKET) into a file of this
script's, turned off and pointed back afterwards; its lines show a prepared
statement's execution with its values. PostgreSQL: a login role of this
script's (a member of the URL's user) with log_statement=all set on it only,
dropped afterwards, so other clients of the server are not logged; the
server's log is read from where its stderr goes (or pg_current_logfile()).

Writes bench/RESULTS-ycsb.md and .json (--out for another name).
"""

import argparse
import atexit
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import urlsplit, unquote

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CACHE_BIN = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "fairbench", "bin")
WORKDIR = tempfile.mkdtemp(prefix="fairbench-ycsb-bench.")
atexit.register(shutil.rmtree, WORKDIR, True)
TOOLS = ("go-ycsb", "fairbench")
TABLES = {"go-ycsb": "goycsb_usertable", "fairbench": "fbycsb_usertable"}
LOG_ROLE = "fbycsb_log"  # PostgreSQL: the role whose sessions are logged in the skew pass
OPS = ("read", "update", "insert", "scan", "rmw")
BIG = 100_000_000

# YCSB's workloads/workloada..f (the values; recordcount and operationcount are
# given on the command line).
CANONICAL = {
    "a": dict(readproportion=0.5, updateproportion=0.5, scanproportion=0, insertproportion=0, requestdistribution="zipfian"),
    "b": dict(readproportion=0.95, updateproportion=0.05, scanproportion=0, insertproportion=0, requestdistribution="zipfian"),
    "c": dict(readproportion=1, updateproportion=0, scanproportion=0, insertproportion=0, requestdistribution="zipfian"),
    "d": dict(readproportion=0.95, updateproportion=0, scanproportion=0, insertproportion=0.05, requestdistribution="latest"),
    "e": dict(readproportion=0, updateproportion=0, scanproportion=0.95, insertproportion=0.05, requestdistribution="zipfian",
              maxscanlength=100, scanlengthdistribution="uniform"),
    "f": dict(readproportion=0.5, updateproportion=0, scanproportion=0, insertproportion=0, readmodifywriteproportion=0.5,
              requestdistribution="zipfian"),
}
# The files go-ycsb v1.0.3 ships in its module's workloads/: the same mixes,
# but uniform where YCSB says zipfian, and E scans one row at most.
GO_YCSB_SHIPPED = {k: dict(v) for k, v in CANONICAL.items()}
for _k in "abcef":
    GO_YCSB_SHIPPED[_k]["requestdistribution"] = "uniform"
GO_YCSB_SHIPPED["e"]["maxscanlength"] = 1


# ------------------------------------------------------------ command lines
# fairbench's YCSB interface, YCSB's own flags; adjust here if it changes.

def fairbench_load_cmd(a, e, wfile, table):
    return [a.fairbench, "load", "ycsb", "-P", wfile, *common_props(a, table), "-threads", str(a.threads), "--target", e.url]


def fairbench_run_cmd(a, e, wfile, table, seconds, opcount, url=None, extra=()):
    return [a.fairbench, "run", "ycsb", "-P", wfile, *common_props(a, table), "-p", f"operationcount={opcount}", *extra,
            "-p", f"maxexecutiontime={seconds}", "-threads", str(a.threads), "--target", url or e.url]


def go_load_cmd(a, e, wfile, table):
    return [a.go_ycsb, "load", e.go_db, "-P", wfile, *common_props(a, table), *e.go_props(), *GO_EXTRA, "--threads", str(a.threads)]


def go_run_cmd(a, e, wfile, table, opcount, user=None, extra=()):
    return [a.go_ycsb, "run", e.go_db, "-P", wfile, *common_props(a, table), "-p", f"operationcount={opcount}", *extra,
            *e.go_props(user), *GO_EXTRA, "--threads", str(a.threads)]


# go-ycsb serves pprof on :6060 (all addresses) unless told otherwise.
GO_EXTRA = ["-p", "debug.pprof=127.0.0.1:0"]


def common_props(a, table):
    return ["-p", f"recordcount={a.recordcount}", "-p", f"fieldcount={a.fieldcount}", "-p", f"fieldlength={a.fieldlength}",
            "-p", f"table={table}"]


# ------------------------------------------------------------ servers

class Engine:
    def __init__(self, kind, url):
        self.kind, self.url = kind, url
        u = urlsplit(url)
        self.user, self.password = unquote(u.username or ""), unquote(u.password or "")
        self.host, self.port, self.db = u.hostname or "127.0.0.1", str(u.port or (3306 if kind == "mysql" else 5432)), u.path.lstrip("/")
        self.go_db = "mysql" if kind == "mysql" else "pg"
        self.name = "MariaDB" if kind == "mysql" else "PostgreSQL"
        self.admin = None  # how to run SQL that needs more than the URL's user may do

    def go_props(self, user=None):
        pre = "mysql" if self.kind == "mysql" else "pg"
        return ["-p", f"{pre}.host={self.host}", "-p", f"{pre}.port={self.port}", "-p", f"{pre}.user={user or self.user}",
                "-p", f"{pre}.password={self.password}", "-p", f"{pre}.db={self.db}"]

    def url_as(self, user):
        u = urlsplit(self.url)
        netloc = f"{user}:{u.password}@{u.hostname}:{u.port}" if u.port else f"{user}:{u.password}@{u.hostname}"
        return u._replace(netloc=netloc).geturl()

    def client(self):
        if self.kind == "mysql":
            return ["mysql", "-h", self.host, "-P", self.port, "-u", self.user, f"-p{self.password}", "-N", "-B", self.db], None
        return ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", self.host, "-p", self.port, "-U", self.user, self.db], \
            dict(os.environ, PGPASSWORD=self.password)

    def sql(self, stmt, check=True, admin=False):
        cmd, env = self.admin if admin and self.admin else self.client()
        r = subprocess.run(cmd, input=stmt, text=True, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if check and r.returncode != 0:
            raise SystemExit(f"{self.name}: {stmt!r} failed: {r.stderr.strip()}")
        return r.stdout if r.returncode == 0 else None

    def value(self, stmt):
        return self.sql(stmt).strip()

    def version(self):
        return self.value("SELECT VERSION()" if self.kind == "mysql" else "SHOW server_version").splitlines()[0]

    def drop(self, table):
        self.sql(f"DROP TABLE IF EXISTS {table}")

    def rows(self, table):
        return int(self.value(f"SELECT COUNT(*) FROM {table}"))

    def columns(self, table):
        """[(name, type)] of a table, in order."""
        if self.kind == "mysql":
            q = (f"SELECT column_name, column_type FROM information_schema.columns WHERE table_schema = DATABASE() "
                 f"AND table_name = '{table}' ORDER BY ordinal_position")
        else:
            q = (f"SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a WHERE a.attrelid = '{table}'::regclass "
                 f"AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")
        out = self.sql(q, check=False) or ""
        return [tuple(l.split("\t" if self.kind == "mysql" else "|", 1)) for l in out.splitlines() if l.strip()]

    def key_column(self, table):
        cols = self.columns(table)
        return cols[0][0] if cols else "YCSB_KEY"


# ------------------------------------------------------------ children

def run_child(cmd, stop_after=None, timeout=None):
    """Run cmd in a scratch directory; SIGINT after stop_after seconds (go-ycsb's
    way to end a run), SIGKILL after timeout. Returns (output, wall s, user s,
    sys s, exit code)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=WORKDIR)
    out = []
    th = threading.Thread(target=lambda: out.append(p.stdout.read()))
    th.start()
    interrupted = False
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        now = time.monotonic() - t0
        if stop_after is not None and not interrupted and now >= stop_after:
            p.send_signal(signal.SIGINT)
            interrupted = True
        if timeout is not None and now > timeout:
            p.kill()
        time.sleep(0.01)
    p.returncode = os.waitstatus_to_exitcode(status)
    th.join()
    return (out[0] if out else ""), time.monotonic() - t0, ru.ru_utime, ru.ru_stime, p.returncode


def checked(cmd, res):
    text, _, _, _, rc = res
    if rc != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({rc}):\n{text[-3000:]}")
    return res


GO_DURATION = re.compile(r"([\d.]+)(ns|us|µs|ms|s|m|h)")
GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def go_duration(s):
    return sum(float(v) * GO_UNITS[u] for v, u in GO_DURATION.findall(s))


GO_LINE = re.compile(r"^(\S+)\s+- Takes\(s\): ([\d.]+), Count: (\d+), OPS: ([\d.]+), Avg\(us\): (\d+)", re.M)
GO_NAMES = {"READ": "read", "UPDATE": "update", "INSERT": "insert", "SCAN": "scan", "READ_MODIFY_WRITE": "rmw"}


def parse_go(text):
    """go-ycsb's final figures: counts per operation (OK and _ERROR) and its run time."""
    m = re.search(r"^Run finished, takes (\S+)$", text, re.M)
    if not m:
        raise SystemExit(f"no 'Run finished' line in go-ycsb's output:\n{text[-3000:]}")
    counts, errors = {}, 0
    for name, _, count, _, _ in GO_LINE.findall(text[m.end():]):
        if name.endswith("_ERROR"):
            errors += int(count)
        elif name in GO_NAMES:
            counts[GO_NAMES[name]] = int(count)
    return {"seconds": go_duration(m.group(1)), "counts": counts, "errors": errors, "inner_counted": True}


JAVA_LINE = re.compile(r"^\[([A-Z_-]+)\], ([^,]+), ([\d.eE+-]+|NaN)\s*$", re.M)
JAVA_NAMES = {"READ": "read", "UPDATE": "update", "INSERT": "insert", "SCAN": "scan", "READ-MODIFY-WRITE": "rmw"}


def parse_java_block(text):
    """YCSB's [OVERALL] / [OP] block (fairbench prints it at the end of a phase)."""
    run_ms = thr = None
    counts, errors, not_found = {}, 0, 0
    for sect, key, val in JAVA_LINE.findall(text):
        if sect == "OVERALL" and key == "RunTime(ms)":
            run_ms = float(val)
        elif sect == "OVERALL" and key == "Throughput(ops/sec)":
            thr = float(val)
        elif sect in JAVA_NAMES and key == "Operations":
            counts[JAVA_NAMES[sect]] = int(float(val))
        elif sect in JAVA_NAMES and key.startswith("Return="):
            if key == "Return=NOT_FOUND":
                not_found += int(float(val))
            elif key != "Return=OK":
                errors += int(float(val))
    if run_ms is None or thr is None:
        raise SystemExit(f"no [OVERALL] RunTime/Throughput lines in fairbench's output:\n{text[-3000:]}")
    ops = thr * run_ms / 1000.0
    # Does [READ]/[UPDATE] include a read-modify-write's own read and update (YCSB's DBWrapper does)?
    s, rmw = sum(counts.get(k, 0) for k in ("read", "update", "insert", "scan")), counts.get("rmw", 0)
    inner = rmw > 0 and abs(s - rmw - ops) < abs(s + rmw - ops)
    return {"seconds": run_ms / 1000.0, "counts": counts, "errors": errors, "not_found": not_found, "ops": ops, "inner_counted": inner}


def mix_and_ops(r):
    """Operations and their shares by kind, a read-modify-write counted once."""
    c = r["counts"]
    rmw = c.get("rmw", 0)
    inner = rmw if r["inner_counted"] else 0
    kinds = {"read": max(0, c.get("read", 0) - inner), "update": max(0, c.get("update", 0) - inner),
             "insert": c.get("insert", 0), "scan": c.get("scan", 0), "rmw": rmw}
    ops = sum(kinds.values())
    return ops, {k: (v / ops if ops else 0.0) for k, v in kinds.items()}


# ------------------------------------------------------------ workloads

def workload_files(a):
    d = os.path.join(WORKDIR, "workloads")
    os.makedirs(d, exist_ok=True)
    src = GO_YCSB_SHIPPED if a.workload_set == "go-ycsb" else CANONICAL
    files = {}
    for w in a.workloads:
        path = os.path.join(a.workload_dir, f"workload{w}") if a.workload_dir else os.path.join(d, f"workload{w}")
        if not a.workload_dir:
            with open(path, "w") as f:
                f.write("recordcount=1000\noperationcount=1000\nworkload=site.ycsb.workloads.CoreWorkload\nreadallfields=true\n")
                for k, v in src[w].items():
                    f.write(f"{k}={v}\n")
        files[w] = path
    return files


def props_of(path):
    p = {}
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            k, v = line.split("=", 1)
            p[k.strip()] = v.strip()
    return p


def opcount_for(a, props):
    if a.operationcount:
        return a.operationcount
    if float(props.get("insertproportion", 0)) > 0 and props.get("requestdistribution", "uniform") == "zipfian":
        return 10000 * max(a.seconds, a.skew_seconds)
    return BIG


# ------------------------------------------------------------ the passes

def load(a, e, tool, wfile):
    table = TABLES[tool]
    e.drop(table)
    cmd = go_load_cmd(a, e, wfile, table) if tool == "go-ycsb" else fairbench_load_cmd(a, e, wfile, table)
    text, wall, u, s, _ = checked(cmd, run_child(cmd, timeout=3600))
    n = e.rows(table)
    if n != a.recordcount:
        raise SystemExit(f"{tool} loaded {n} rows into {e.name} {table}, not {a.recordcount}:\n{text[-2000:]}")
    return {"rows": n, "wall_s": wall, "cpu_us_per_row": (u + s) / n * 1e6, "cmd": cmd}


def run_once(a, e, tool, wfile, opcount, seconds, user=None, extra=()):
    table = TABLES[tool]
    if tool == "go-ycsb":
        cmd = go_run_cmd(a, e, wfile, table, opcount, user, extra)
        text, wall, u, s, rc = run_child(cmd, stop_after=seconds, timeout=seconds + 60)
        if rc != 0:
            raise SystemExit(f"{' '.join(cmd)} failed ({rc}):\n{text[-3000:]}")
        r = parse_go(text)
    else:
        cmd = fairbench_run_cmd(a, e, wfile, table, seconds, opcount, e.url_as(user) if user else None, extra)
        text, wall, u, s, _ = checked(cmd, run_child(cmd, timeout=seconds + 120))
        r = parse_java_block(text)
    ops, mix = mix_and_ops(r)
    return {"ops": ops, "seconds": r["seconds"], "ops_per_s": ops / r["seconds"] if r["seconds"] else 0.0,
            "cpu_s": u + s, "cpu_us_per_op": (u + s) / ops * 1e6 if ops else None, "wall_s": wall, "mix": mix,
            "counts": r["counts"], "errors": r["errors"], "not_found": r.get("not_found"), "cmd": cmd}


# ------------------------------------------------------------ statement logs

class MysqlLog:
    """The general log into a file of ours while a pass runs."""

    def __init__(self, e):
        self.e = e
        self.dir = tempfile.mkdtemp(prefix="fairbench-ycsb-log.")
        os.chmod(self.dir, 0o777)  # the server writes it
        if e.sql("SET GLOBAL general_log = @@global.general_log", check=False) is None:
            sock = os.environ.get("FAIRBENCH_TEST_MYSQL_SOCKET")
            if not sock:
                raise RuntimeError(f"{e.user} may not SET GLOBAL and no FAIRBENCH_TEST_MYSQL_SOCKET for root")
            e.admin = (["mysql", "-S", sock, "-u", "root", "-N", "-B", e.db], None)
        state = e.sql("SELECT @@global.general_log, @@global.general_log_file", admin=True).split("\t")
        self.saved = (state[0].strip(), state[1].strip())

    def start(self, name):
        self.path = os.path.join(self.dir, name + ".log")
        self.e.sql(f"SET GLOBAL general_log_file = '{self.path}'; SET GLOBAL general_log = ON", admin=True)

    def stop(self):
        self.e.sql(f"SET GLOBAL general_log = {self.saved[0]}; SET GLOBAL general_log_file = '{self.saved[1]}'", admin=True)
        with open(self.path, errors="replace") as f:
            text = f.read()
        os.unlink(self.path)
        return statements_mysql(text)

    def close(self):
        self.e.sql(f"SET GLOBAL general_log = {self.saved[0]}; SET GLOBAL general_log_file = '{self.saved[1]}'", admin=True, check=False)
        try:
            os.rmdir(self.dir)
        except OSError:
            pass


class PgLog:
    """log_statement=all on a role of ours while a pass runs as that role."""

    def __init__(self, e):
        self.e = e
        if e.value("SELECT rolsuper FROM pg_roles WHERE rolname = current_user") != "t":
            sock = os.environ.get("FAIRBENCH_TEST_PG_SOCKET_DIR")
            if not sock:
                raise RuntimeError(f"{e.user} is no superuser and no FAIRBENCH_TEST_PG_SOCKET_DIR for postgres")
            e.admin = (["runuser", "-u", "postgres", "--", "psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                        "-h", sock, "-p", e.port, e.db], None)
        self.path = self.logfile()
        pw = e.password.replace("'", "''")
        e.sql(f"DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{LOG_ROLE}') THEN "
              f"CREATE ROLE {LOG_ROLE} LOGIN PASSWORD '{pw}' IN ROLE {e.user}; END IF; END$$", admin=True)

    def logfile(self):
        f = self.e.sql("SELECT pg_current_logfile()", admin=True).strip()
        if f:
            return f if f.startswith("/") else os.path.join(self.e.sql("SHOW data_directory", admin=True).strip(), f)
        # No logging collector: the server's stderr is its log.
        data = self.e.sql("SHOW data_directory", admin=True).strip()
        with open(os.path.join(data, "postmaster.pid")) as f:
            postmaster = int(f.readline())
        return os.readlink(f"/proc/{postmaster}/fd/2")

    def start(self, name):
        self.e.sql(f"ALTER ROLE {LOG_ROLE} SET log_statement = 'all'", admin=True)
        self.offset = os.path.getsize(self.path)

    def stop(self):
        self.e.sql(f"ALTER ROLE {LOG_ROLE} RESET log_statement", admin=True)
        time.sleep(0.2)
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            text = f.read().decode(errors="replace")
        return statements_pg(text)

    def close(self):
        self.e.sql(f"ALTER ROLE {LOG_ROLE} RESET log_statement", admin=True, check=False)
        self.e.sql(f"REASSIGN OWNED BY {LOG_ROLE} TO {self.e.user}; DROP OWNED BY {LOG_ROLE}; DROP ROLE IF EXISTS {LOG_ROLE}",
                   admin=True, check=False)


MYSQL_LINE = re.compile(r"^(?:\d{6}\s+\d{1,2}:\d{2}:\d{2})?\s+\d+\s+(Query|Execute)\t(.*)$")


def statements_mysql(text):
    """(SQL with its values) of each query or executed prepared statement."""
    return [(m.group(2), None) for m in map(MYSQL_LINE.match, text.splitlines()) if m]


PG_LINE = re.compile(r"\[(\d+)\][^\n]*?\b(LOG|DETAIL):\s+(.*)$")
PG_PARAM = re.compile(r"\$(\d+) = ('(?:[^']|'')*'|NULL)")


def statements_pg(text):
    """(SQL, {n: value}) of each logged statement, a DETAIL's parameters with
    the statement of the same backend before it."""
    out, last = [], {}
    for line in text.splitlines():
        m = PG_LINE.search(line)
        if not m:
            continue
        pid, kind, body = m.groups()
        if kind == "LOG":
            sm = re.match(r"(?:statement|execute [^:]*):\s+(.*)$", body)
            if sm:
                last[pid] = [sm.group(1), {}]
                out.append(last[pid])
        elif kind == "DETAIL" and pid in last and body.startswith("parameters:"):
            last[pid][1] = {int(n): (v[1:-1].replace("''", "'") if v != "NULL" else None) for n, v in PG_PARAM.findall(body)}
    return [tuple(x) for x in out]


def sql_values(s):
    """The comma-separated items of a VALUES (...) list: placeholders or quoted literals."""
    items, cur, quote, i = [], "", False, 0
    while i < len(s):
        ch = s[i]
        if quote:
            if ch == "\\" and i + 1 < len(s):
                cur += s[i:i + 2]
                i += 2
                continue
            if ch == "'":
                if s[i + 1:i + 2] == "'":
                    cur += "''"
                    i += 2
                    continue
                quote = False
            cur += ch
        elif ch == "'":
            quote = True
            cur += ch
        elif ch == ",":
            items.append(cur.strip())
            cur = ""
        elif ch == ")":
            items.append(cur.strip())
            return items
        else:
            cur += ch
        i += 1
    items.append(cur.strip())
    return items


def bound(tok, params):
    """A literal's text, or the value a placeholder was bound to ($n; ? is not resolvable)."""
    if tok.startswith("'"):
        return tok[1:-1].replace("''", "'")
    if tok.startswith("$") and params:
        return params.get(int(tok[1:]))
    return None


def key_accesses(stmts, table, keycol):
    """[(kind, key)] of the statements on `table`."""
    out = []
    t = re.compile(rf"\b{re.escape(table)}\b", re.I)
    cmp_ = re.compile(rf"\b{re.escape(keycol)}\b`?\s*(>=|=)\s*(\$\d+|\?|'(?:[^'\\]|''|\\.)*')", re.I)
    ins = re.compile(r"^\s*(?:INSERT|REPLACE)\b[^(]*\(([^)]*)\)\s*VALUES\s*\((.*)$", re.I | re.S)
    for sql, params in stmts:
        if not t.search(sql):
            continue
        head = sql.lstrip()[:6].upper()
        m = ins.match(sql) if head in ("INSERT", "REPLAC") else None
        if m:
            cols = [c.strip().strip('`"').lower() for c in m.group(1).split(",")]
            if keycol.lower() in cols:
                vals = sql_values(m.group(2))
                i = cols.index(keycol.lower())
                if i < len(vals):
                    k = bound(vals[i], params)
                    if k is not None:
                        out.append(("insert", k))
            continue
        m = cmp_.search(sql)
        if m and head in ("SELECT", "UPDATE", "DELETE"):
            k = bound(m.group(2), params)
            if k is not None:
                kind = "scan" if m.group(1) == ">=" else ("read" if head == "SELECT" else head.lower())
                out.append((kind, k))
    return out


def skew(accesses, hot_n):
    counts = {}
    for _, k in accesses:
        counts[k] = counts.get(k, 0) + 1
    top = sorted(counts.items(), key=lambda kv: -kv[1])[:hot_n]
    total = len(accesses)
    return {"statements": total, "distinct_keys": len(counts), "hot_keys": hot_n,
            "hot_share": sum(c for _, c in top) / total if total else None, "hot": [k for k, _ in top]}


# ------------------------------------------------------------ summary

def spread(xs):
    return (min(xs), max(xs)) if xs else (None, None)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def cell(xs, fmt):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    m, (lo, hi) = med(xs), spread(xs)
    return f"{m:{fmt}} ({lo:{fmt}}..{hi:{fmt}})" if len(xs) > 1 else f"{m:{fmt}}"


def mix_text(runs):
    if not runs:
        return "-"
    parts = []
    for k in OPS:
        v = med([r["mix"][k] for r in runs])
        if v:
            parts.append(f"{k} {v:.1%}")
    return ", ".join(parts) or "-"


# What go-ycsb v1.0.3 does (read from its source, seen in the servers' logs);
# written under the tables so a rerun keeps it.
GO_YCSB_NOTES = """## go-ycsb v1.0.3, the reference

- Built by `scripts/build-go-ycsb.sh` from its Go module, unmodified, no build tags (as its Makefile without
  FoundationDB/RocksDB/SQLite libraries); drivers go-sql-driver/mysql v1.6.0 and lib/pq v1.1.1.
- Each thread holds one connection and prepares each statement text once (server-side: MySQL COM_STMT_PREPARE /
  EXECUTE, PostgreSQL a named Parse then Bind/Execute/Sync per operation); autocommit, no BEGIN/COMMIT, one round
  trip per statement. A read-modify-write is a read then an update, two autocommitted statements.
- Table: `CREATE TABLE IF NOT EXISTS T (YCSB_KEY VARCHAR(64) PRIMARY KEY, FIELD0 VARCHAR(100), ..., FIELD9
  VARCHAR(100))` (`/*T![clustered_index] CLUSTERED */` after PRIMARY KEY for db `mysql`/`tidb`, a comment to MariaDB).
  After a MySQL load it runs `ANALYZE TABLE T`; not on PostgreSQL.
- Statements (readallfields=true names the fields, it does not `SELECT *`):
  read ``SELECT field0,...,field9 FROM T FORCE INDEX(`PRIMARY`) WHERE YCSB_KEY = ?`` (mysql.force_index=true;
  PostgreSQL without it, `$1`); scan `... WHERE YCSB_KEY >= ? LIMIT ?` with no ORDER BY (PostgreSQL may answer it with a sequential scan,
  not the next keys); update `UPDATE T SET fieldN= ? WHERE YCSB_KEY = ?` (PostgreSQL `fieldN = $1 ... $2`); insert
  `INSERT IGNORE INTO T (YCSB_KEY ,field0 ,...) VALUES (? ,? ,...)`, PostgreSQL `INSERT INTO ... ON CONFLICT DO NOTHING`.
  Load: one row per INSERT (batch.size=1); batch.size>1 makes one multi-row INSERT IGNORE on MySQL, row by row on
  PostgreSQL. Values are fieldlength letters [a-zA-Z]. dropdata=true drops the table on a MySQL load, and on any
  PostgreSQL load or run.
- Keys: `user` + hash of the key number, zero-padded to zeropadding (1). Its hash is FNV-1a over the number's 8
  bytes big-endian; YCSB's Utils.fnvhash64 takes them little-endian, so only key number 0 gives the same key
  (user6284781860667377211) and consecutive numbers give neighbouring keys (they differ by multiples of the FNV
  prime): "hashed" inserts arrive almost in key order, D's latest keys sit together, an E scan returns the rows
  of neighbouring key numbers.
- Zipfian picks are not redrawn past the last inserted key as YCSB does: some reads miss (count as OK; a read
  that finds no row is no error in go-ycsb). Its shipped workloads/ use uniform for A, B, C, E, F and E has
  maxscanlength=1; this script writes YCSB's values unless --workload-set go-ycsb.
- It reads threadcount (default 1 through --threads; the drivers size their pool from 200), target,
  operationcount, recordcount, insertstart/insertcount, fieldcount (10), fieldlength (100),
  fieldlengthdistribution (constant), readallfields (true), writeallfields (false), the proportions,
  requestdistribution (uniform), zeropadding (1), insertorder (hashed), min/maxscanlength (1/1000),
  scanlengthdistribution (uniform), hotspot*, batch.size (1), warmuptime, measurementtype (histogram),
  measurement.interval (10 s), dropdata, keyprefix (user), debug.pprof (:6060). maxexecutiontime is declared
  but never read: runs end at operationcount or on SIGINT, after which it prints its final figures (on MariaDB
  each thread's operation in flight then ends as an _ERROR).
- Output: its own format, no `[OVERALL]` block: `Run finished, takes 4.944257264s` then one line per operation,
  sorted by name, `READ   - Takes(s): 4.9, Count: 31035, OPS: 6277.8, Avg(us): 267, Min(us): 32, Max(us): 9047,
  50th(us): 214, 90th(us): 480, 95th(us): 600, 99th(us): 951, 99.9th(us): 2479, 99.99th(us): 6891`, failed
  operations as `READ_ERROR - ...`, READ_MODIFY_WRITE on its own line while its read and update are also counted
  under READ and UPDATE, and TOTAL (all reads, updates, inserts, scans; not READ_MODIFY_WRITE).
"""


def render(meta, results, loads, shapes, skews):
    only = meta["only"]
    out = [f"# YCSB: fairbench vs go-ycsb {meta['go_ycsb_version']}\n"]
    if only == "go-ycsb":
        out.append("**go-ycsb half only**: fairbench's YCSB workload was not run (`--only go-ycsb`); its columns are empty.\n")
    out += [f"{meta['date']}; {meta['cores']} cores shared by clients and servers (Linux {meta['uname']}); "
            + "; ".join(f"{n} {v}" for n, v in meta["servers"].items()) + " over TCP 127.0.0.1.",
            f"Workloads: {meta['workload_source']}; recordcount={meta['recordcount']}, fieldcount={meta['fieldcount']}, "
            f"fieldlength={meta['fieldlength']}, {meta['threads']} threads, {meta['reps']} repetitions of {meta['seconds']} s "
            f"each, the tools alternating (which goes first alternates too); median (min..max); ratio = fairbench / go-ycsb, "
            f"the median of the repetitions' ratios (min..max). Tables: {meta['table_mode']}. Client CPU = user + system time "
            f"of the client process over its whole life (start, connecting, the run) / its operations. "
            f"Load average (1 min) {meta['loadavg'][0]:.1f} at the start, {meta['loadavg'][1]:.1f} at the end.",
            f"`{meta['command']}` reruns it.\n",
            "## Throughput and client CPU\n",
            "| workload | engine | go-ycsb ops/s | fairbench ops/s | ratio | go-ycsb CPU µs/op | fairbench CPU µs/op | ratio |",
            "|---|---|---|---|---|---|---|---|"]
    for (w, eng), rs in results.items():
        g, f = rs["go-ycsb"], rs["fairbench"]
        pairs = list(zip(g, f))
        r_ops = [b["ops_per_s"] / x["ops_per_s"] for x, b in pairs if x["ops_per_s"]]
        r_cpu = [b["cpu_us_per_op"] / x["cpu_us_per_op"] for x, b in pairs if x["cpu_us_per_op"] and b["cpu_us_per_op"]]
        out.append(f"| {w.upper()} | {eng} | {cell([r['ops_per_s'] for r in g], '.0f')} | {cell([r['ops_per_s'] for r in f], '.0f')} | "
                   f"{cell(r_ops, '.2f')} | {cell([r['cpu_us_per_op'] for r in g], '.1f')} | {cell([r['cpu_us_per_op'] for r in f], '.1f')} | "
                   f"{cell(r_cpu, '.2f')} |")
    out += ["\n## Operation mix (each tool's own counts, a read-modify-write once)\n",
            "| workload | engine | go-ycsb | fairbench | go-ycsb errors | fairbench errors / not found |", "|---|---|---|---|---|---|"]
    for (w, eng), rs in results.items():
        g, f = rs["go-ycsb"], rs["fairbench"]
        fe = f"{sum(r['errors'] for r in f)} / {sum(r['not_found'] or 0 for r in f)}" if f else "-"
        out.append(f"| {w.upper()} | {eng} | {mix_text(g)} | {mix_text(f)} | {sum(r['errors'] for r in g) if g else '-'} | {fe} |")
    if skews:
        tgt = meta.get("skew_target")
        out += [f"\n## Key skew ({meta['skew_seconds']} s per tool with the statement log on"
                + (f", target {tgt} ops/s" if tgt else "") + ")\n",
                "Share of the statements (reads, scans by start key, updates, inserts) on the 1% most frequent keys of "
                "the pass; 'same hot keys' is how many of go-ycsb's hot keys are fairbench's too. The draws themselves "
                "differ: YCSB's scrambled zipfian over 10001 key numbers puts 23.0% of draws on the hottest 100 (a "
                "simulation of 600k draws), go-ycsb's, with its other hash, 21.5%; latest's hot keys move with the "
                "inserts, so its share depends on the rate.\n",
                "| workload | distribution | engine | go-ycsb statements | go-ycsb hot share | fairbench statements | fairbench hot share | same hot keys |",
                "|---|---|---|---|---|---|---|---|"]
        for (w, eng), s in skews.items():
            g, f = s.get("go-ycsb"), s.get("fairbench")

            def pct(x):
                return f"{x['hot_share']:.1%}" if x and x["hot_share"] is not None else "-"
            same = f"{len(set(g['hot']) & set(f['hot']))}/{g['hot_keys']}" if g and f else "-"
            out.append(f"| {w.upper()} | {s['distribution']} | {eng} | {g['statements'] if g else '-'} | {pct(g)} | "
                       f"{f['statements'] if f else '-'} | {pct(f)} | {same} |")
    out += ["\n## Loads and tables\n", "| engine | tool | loads | rows | wall s | client CPU µs/row | columns |", "|---|---|---|---|---|---|---|"]
    for (eng, tool), ls in loads.items():
        cols = shapes.get((eng, tool)) or []
        ctext = ", ".join(f"{n} {t}" for n, t in cols[:2]) + (f", ... ({len(cols)} columns)" if len(cols) > 2 else "")
        out.append(f"| {eng} | {tool} | {len(ls)} | {ls[0]['rows']} | {cell([l['wall_s'] for l in ls], '.2f')} | "
                   f"{cell([l['cpu_us_per_row'] for l in ls], '.1f')} | {ctext} |")
    if meta.get("common_keys"):
        out.append("")
        for eng, (n, total) in meta["common_keys"].items():
            out.append(f"{eng}: {n} of fairbench's {total} loaded keys are in go-ycsb's table too.")
    out += ["\n## Command lines\n"] + [f"- {k}: `{v}`" for k, v in meta["commands"].items()]
    out += ["", GO_YCSB_NOTES]
    return "\n".join(out)


def rerender(base):
    with open(base + ".json") as f:
        d = json.load(f)

    def pairs(m):
        return {tuple(k.split("/", 1)): v for k, v in m.items()}
    table = render(d["meta"], pairs(d["results"]), pairs(d["loads"]), {k: [tuple(c) for c in v] for k, v in pairs(d["shapes"]).items()},
                   pairs(d["skews"]))
    with open(base + ".md", "w") as f:
        f.write(table)
    print(table)


# ------------------------------------------------------------ main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fairbench", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "fairbench"))
    ap.add_argument("--go-ycsb", default=os.path.join(CACHE_BIN, "go-ycsb"), help="the go-ycsb binary (bash scripts/build-go-ycsb.sh builds it)")
    ap.add_argument("--only", choices=TOOLS, help="run one tool only")
    ap.add_argument("--workloads", default="a,b,c,d,e,f")
    ap.add_argument("--engines", default="mysql,pg")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=10, help="length of each throughput run")
    ap.add_argument("--skew-seconds", type=int, default=5, help="length of each key-skew pass (0: none)")
    ap.add_argument("--skew-target", type=int, default=2000, help="ops/s both tools aim at in the key-skew pass (0: unlimited), "
                    "so both draw about as many keys and latest's hot set moves as fast")
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--recordcount", type=int, default=10000)
    ap.add_argument("--fieldcount", type=int, default=10)
    ap.add_argument("--fieldlength", type=int, default=100)
    ap.add_argument("--operationcount", type=int, default=0, help="the same for both (default: large, or 10000 x seconds where "
                    "inserts and a zipfian key choice make it widen the key range)")
    ap.add_argument("--workload-set", choices=("canonical", "go-ycsb"), default="canonical",
                    help="YCSB's values for A-F, or those of the files go-ycsb ships")
    ap.add_argument("--workload-dir", help="take workloadX files from this directory instead")
    ap.add_argument("--table-mode", choices=("own", "shared"), default="own",
                    help="each tool on the table it loaded, or both on one table loaded by --load-with")
    ap.add_argument("--load-with", choices=TOOLS, default="go-ycsb")
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS-ycsb.md"))
    ap.add_argument("--rerender", action="store_true", help="only write the .md again from the .json beside it")
    a = ap.parse_args()
    if a.rerender:
        rerender(os.path.splitext(a.out)[0])
        return
    a.workloads = [w.strip().lower().removeprefix("workload") for w in a.workloads.split(",") if w.strip()]
    bad = [w for w in a.workloads if w not in CANONICAL]
    if bad:
        raise SystemExit(f"unknown workloads {bad}: a..f")
    tools = [a.only] if a.only else list(TOOLS)
    if "go-ycsb" in tools and not os.access(a.go_ycsb, os.X_OK):
        raise SystemExit(f"{a.go_ycsb} not found: bash scripts/build-go-ycsb.sh")
    if "fairbench" in tools and not os.access(a.fairbench, os.X_OK):
        raise SystemExit(f"{a.fairbench} not found: cargo build --release (or --only go-ycsb)")
    if a.table_mode == "shared":
        for t in TOOLS:
            TABLES[t] = TABLES[a.load_with]
    engines = []
    for kind in a.engines.split(","):
        var = {"mysql": "FAIRBENCH_TEST_MYSQL_URL", "pg": "FAIRBENCH_TEST_PG_URL"}[kind.strip()]
        url = os.environ.get(var)
        if not url:
            raise SystemExit(f"${var} is not set (scripts/servers.sh start prints it; source /tmp/fbenv)")
        engines.append(Engine(kind.strip(), url))

    files = workload_files(a)
    load0 = os.getloadavg()[0]
    results, loads, shapes, skews, commands, common = {}, {}, {}, {}, {}, {}
    hot_n = max(1, a.recordcount // 100)
    loaders = [a.load_with] if a.table_mode == "shared" else tools
    for e in engines:
        dirty = {t: True for t in loaders}  # a table to load (again) before its next run

        def fresh(tool, wfile):
            lt = a.load_with if a.table_mode == "shared" else tool
            if dirty[lt]:
                r = load(a, e, lt, wfile)
                loads.setdefault((e.name, lt), []).append(r)
                commands.setdefault(f"{lt} load ({e.name})", " ".join(r["cmd"]))
                print(f"{e.name} {lt} load: {r['rows']} rows in {r['wall_s']:.2f} s, {r['cpu_us_per_row']:.1f} us CPU/row", flush=True)
                dirty[lt] = False
                shapes[(e.name, lt)] = e.columns(TABLES[lt])
                if a.table_mode == "own" and len(tools) == 2 and e.name not in common and not any(dirty.values()):
                    # Do the tools make the same keys? (go-ycsb's hash of a key number is not YCSB's.)
                    kg, kf = e.key_column(TABLES["go-ycsb"]), e.key_column(TABLES["fairbench"])
                    n = int(e.value(f"SELECT COUNT(*) FROM {TABLES['fairbench']} f JOIN {TABLES['go-ycsb']} g ON g.{kg} = f.{kf}"))
                    common[e.name] = (n, e.rows(TABLES["fairbench"]))

        for w in a.workloads:
            wfile, props = files[w], props_of(files[w])
            inserts = float(props.get("insertproportion", 0)) > 0
            opcount = opcount_for(a, props)
            key = (w, e.name)
            results[key] = {t: [] for t in TOOLS}
            for rep in range(a.reps):
                order = tools if rep % 2 == 0 else list(reversed(tools))
                for t in order:
                    fresh(t, wfile)
                    r = run_once(a, e, t, wfile, opcount, a.seconds)
                    if inserts:
                        dirty[a.load_with if a.table_mode == "shared" else t] = True
                    results[key][t].append(r)
                    commands.setdefault(f"{t} run ({e.name})", " ".join(r["cmd"]))
                    print(f"{w.upper()} {e.name} rep {rep + 1} {t}: {r['ops_per_s']:.0f} ops/s, {r['cpu_us_per_op']:.1f} us CPU/op, "
                          f"{r['ops']} ops in {r['seconds']:.2f} s, errors {r['errors']}, mix "
                          + ", ".join(f"{k} {v:.3f}" for k, v in r["mix"].items() if v), flush=True)
            dist = props.get("requestdistribution", "uniform")
            if a.skew_seconds > 0 and dist != "uniform":
                log = MysqlLog(e) if e.kind == "mysql" else PgLog(e)
                try:
                    s = skews.setdefault(key, {"distribution": dist})
                    for t in tools:
                        fresh(t, wfile)
                        log.start(f"{t}-{w}")
                        try:
                            r = run_once(a, e, t, wfile, opcount, a.skew_seconds, user=LOG_ROLE if e.kind == "pg" else None,
                                         extra=["-p", f"target={a.skew_target}"] if a.skew_target else [])
                        finally:
                            stmts = log.stop()
                        commands.setdefault(f"{t} skew pass ({e.name})", " ".join(r["cmd"]))
                        if inserts:
                            dirty[a.load_with if a.table_mode == "shared" else t] = True
                        acc = key_accesses(stmts, TABLES[t], e.key_column(TABLES[t]))
                        s[t] = skew(acc, hot_n)
                        s[t]["ops"] = r["ops"]
                        print(f"{w.upper()} {e.name} skew {t}: {len(acc)} statements on {s[t]['distinct_keys']} keys ({r['ops']} ops), "
                              f"{s[t]['hot_share']:.1%} on the hottest {hot_n}" if acc else f"{w.upper()} {e.name} skew {t}: no statements found",
                              flush=True)
                finally:
                    log.close()
        for t in loaders:
            e.drop(TABLES[t])
    load1 = os.getloadavg()[0]

    go_version = "v1.0.3"
    if "go-ycsb" in tools:
        v = subprocess.run(["go", "version", "-m", a.go_ycsb], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
        m = re.search(r"^\s*mod\s+github.com/pingcap/go-ycsb\s+(\S+)", v, re.M)
        go_version = m.group(1) if m else go_version
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "uname": os.uname().release, "cores": os.cpu_count(),
            "servers": {e.name: e.version() for e in engines}, "go_ycsb_version": go_version, "only": a.only,
            "workload_source": (f"files from {a.workload_dir}" if a.workload_dir else
                                "YCSB's canonical A-F values" if a.workload_set == "canonical" else "the values of go-ycsb's shipped files"),
            "recordcount": a.recordcount, "fieldcount": a.fieldcount, "fieldlength": a.fieldlength, "threads": a.threads,
            "reps": a.reps, "seconds": a.seconds, "skew_seconds": a.skew_seconds, "skew_target": a.skew_target,
            "table_mode": ("each tool's own (" + ", ".join(f"{t}: {TABLES[t]}" for t in tools) + ")") if a.table_mode == "own"
            else f"one table ({TABLES[a.load_with]}) loaded by {a.load_with}",
            "loadavg": [load0, load1], "command": "python3 bench/ycsb.py " + " ".join(sys.argv[1:]),
            "commands": commands, "common_keys": common}
    out_results = {f"{w}/{eng}": v for (w, eng), v in results.items()}
    out_skews = {f"{w}/{eng}": v for (w, eng), v in skews.items()}
    out_loads = {f"{eng}/{t}": v for (eng, t), v in loads.items()}
    base = os.path.splitext(a.out)[0]
    with open(base + ".json", "w") as f:
        json.dump({"meta": meta, "results": out_results, "skews": out_skews, "loads": out_loads,
                   "shapes": {f"{eng}/{t}": v for (eng, t), v in shapes.items()}}, f, indent=1)
    table = render(meta, results, loads, shapes, skews)
    with open(a.out, "w") as f:
        f.write(table)
    print(table)


if __name__ == "__main__":
    main()
