#!/usr/bin/env python3
"""The Insert Benchmark through fairbench and through Small Datum's own
iibench.py, on the same MariaDB and PostgreSQL servers, the tools
alternating, step by step as Small Datum's driver scripts (iq.sh, np.sh)
run them: l.i0, l.x, l.i1, l.i2, qr100, qp100, qr500, qp500, qr1000, qp1000.

    eval "$(bash scripts/servers.sh start)"       # or reuse running servers
    cargo build --release
    IIBENCH_PY=/path/to/mytools/bench/ibench/iibench.py \\
        python3 bench/ibench.py [--engines maria,pg] [--rows 100000] [--clients 2] \\
        [--change-rows 100000] [--query-secs 10] [--reps 2]

iibench.py is not part of fairbench: take it from the public repository
mdcallag/mytools (bench/ibench/iibench.py) at the commit pinned below
(IIBENCH_COMMIT); a file of other content is refused, so that two results
files compare the same reference, unless --any-iibench is given (the file's
SHA-256 is then recorded as not the pinned one). Its drivers come from PyPI
(mysqlclient, psycopg2-binary) into a virtual environment under
~/.cache/fairbench/ibench-venv, made on the first run (mysqlclient needs
libmariadb-dev and pkg-config).

For each engine and repetition, each tool runs the whole sequence: iibench.py
as np.sh does, one process per client, each on its own table (pi1, pi2 ...),
a step's clients started together and the step timed from the first start
to the last exit; fairbench as one `fairbench run insert-benchmark`. Per step:
the throughput Small Datum reports (inserts/s for l.i0, l.i1, l.i2, indexed
rows/s for l.x, queries/s for the query steps, with the writers' rate met or
not), the rows the tables hold after it, and after l.x the indexes' columns.
A last pass at a small size runs each step of each tool alone with the
server's statement log on (MariaDB's general log, PostgreSQL's
log_statement for the session user) and compares the statement shapes each
step sent (literals, table names and the rows of a multi-row INSERT folded).

Servers come from $FAIRBENCH_TEST_MYSQL_URL (with $FAIRBENCH_TEST_MYSQL_SOCKET:
iibench.py connects to MySQL through its socket only) and
$FAIRBENCH_TEST_PG_URL (its log at $FAIRBENCH_TEST_TMP/pg/postgres.log, as
scripts/servers.sh starts it).

Writes bench/RESULTS-ibench.md and .json (--out for another name).
"""

import argparse
import atexit
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from urllib.parse import unquote, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "fairbench")
WORK = tempfile.mkdtemp(prefix="fairbench-ibench.")
atexit.register(shutil.rmtree, WORK, True)
STEPS = ["l.i0", "l.x", "l.i1", "l.i2", "qr100", "qp100", "qr500", "qp500", "qr1000", "qp1000"]
IB_PREFIX, FB_PREFIX = "pi", "fbpi"


def url_parts(url):
    u = urlsplit(url)
    return {"user": unquote(u.username or ""), "password": unquote(u.password or ""), "host": u.hostname, "port": u.port, "db": u.path.lstrip("/")}


def venv_python():
    venv = os.path.join(CACHE, "ibench-venv")
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "mysqlclient", "psycopg2-binary"], check=True)
    return py


class Engine:
    def __init__(self, name):
        self.name = name
        self.url = os.environ["FAIRBENCH_TEST_MYSQL_URL" if name == "maria" else "FAIRBENCH_TEST_PG_URL"]
        self.p = url_parts(self.url)

    def sql(self, q):
        p = self.p
        if self.name == "maria":
            cmd = ["mariadb", "-N", "-B", f"-h{p['host']}", f"-P{p['port']}", f"-u{p['user']}", f"-p{p['password']}", p["db"], "-e", q]
            env = None
        else:
            cmd = ["psql", "-X", "-q", "-A", "-t", "-h", p["host"], "-p", str(p["port"]), "-U", p["user"], "-d", p["db"], "-c", q]
            env = dict(os.environ, PGPASSWORD=p["password"])
        return subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout.strip()

    def admin(self, q):
        """A statement that needs the server's privileges: as the URL's user if it may, else as root over the socket."""
        try:
            return self.sql(q)
        except subprocess.CalledProcessError:
            cmd = ["mariadb", "-N", "-B", "-uroot", "-S", os.environ["FAIRBENCH_TEST_MYSQL_SOCKET"], "-e", q]
            return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()

    def rows(self, prefix, clients):
        return sum(int(self.sql(f"SELECT COUNT(*) FROM {prefix}{n}") or 0) for n in range(1, clients + 1))

    def indexes(self, table):
        """Each secondary index's columns, as the server lists them."""
        if self.name == "maria":
            out = self.sql(f"SELECT index_name, GROUP_CONCAT(column_name ORDER BY seq_in_index) FROM information_schema.statistics "
                           f"WHERE table_schema = DATABASE() AND table_name = '{table}' AND index_name <> 'PRIMARY' GROUP BY index_name")
        else:
            out = self.sql(f"SELECT indexname, regexp_replace(indexdef, '.*\\((.*)\\)', '\\1') FROM pg_indexes WHERE tablename = '{table}' AND indexname <> '{table}_pkey'")
        found = {}
        for line in out.splitlines():
            name, cols = re.split(r"[\t|]", line, maxsplit=1)
            found[name[len(table) + 1:]] = cols.replace(" ", "")
        return dict(sorted(found.items()))

    def drop(self, prefix, clients):
        for n in range(1, clients + 1):
            self.sql(f"DROP TABLE IF EXISTS {prefix}{n}")


def ib_flags(step, a, n, engine, nclients):
    """np.sh's flags for client n of a step (iq.sh's sizes)."""
    common = ["--db_name=" + engine.p["db"], "--secs_per_report=1", "--db_host=127.0.0.1", "--db_user=" + engine.p["user"], "--db_password=" + engine.p["password"],
              "--data_length_min=10", "--data_length_max=20", "--dbopt=none", f"--my_id={n}", f"--table_name={IB_PREFIX}{n}", f"--seed={int(time.time()) + n}"]
    if engine.name == "maria":
        common += ["--dbms=mysql", "--engine=innodb", "--engine_options=", "--unique_checks=1", "--bulk_load=0", "--db_socket=" + os.environ["FAIRBENCH_TEST_MYSQL_SOCKET"]]
    else:
        common += ["--dbms=postgres", "--engine=pg", "--unique_checks=1", "--bulk_load=0", "--use_prepared_query"]
    if step == "l.i0":
        return common + ["--setup", "--num_secondary_indexes=0", "--rows_per_commit=100", "--inserts_per_second=0", "--query_threads=0", f"--max_rows={a.rows // nclients}"]
    if step == "l.x":
        return common + ["--secondary_at_end", "--num_secondary_indexes=3", "--rows_per_commit=100", "--inserts_per_second=0", "--query_threads=0", f"--max_rows={100 // nclients if nclients <= 100 else 1}"]
    deletes = ["--delete_per_insert"]
    if step in ("l.i1", "l.i2"):
        total = a.change_rows - a.change_rows // 5 if step == "l.i1" else a.change_rows // 5
        rpc = 50 if step == "l.i1" else 5
        return common + deletes + ["--num_secondary_indexes=3", f"--rows_per_commit={rpc}", "--inserts_per_second=0", "--query_threads=0", f"--max_rows={total // nclients}"]
    rate = int(step[2:])
    q = ["--num_secondary_indexes=3", "--rows_per_commit=50", f"--inserts_per_second={rate}", "--query_threads=1", f"--max_rows={int(a.query_secs * rate)}"]
    return common + deletes + q + (["--query_pk_only"] if step.startswith("qp") else [])


def ib_step(py, ib, step, a, engine):
    """One step of iibench.py: its clients together; (seconds, rows, queries)."""
    env = dict(os.environ, PGPORT=str(engine.p["port"]))
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    # In a directory of its own: iibench.py leaves files of its processes' ids where it runs.
    procs = [subprocess.Popen([py, ib] + ib_flags(step, a, n, engine, a.clients), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=WORK)
             for n in range(1, a.clients + 1)]
    outs = [p.communicate()[0] for p in procs]
    secs = time.monotonic() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    for p, o in zip(procs, outs):
        if p.returncode != 0 or "Done" not in o:
            raise SystemExit(f"iibench.py failed in {step} on {engine.name}:\n{o[-3000:]}")
    rows = queries = 0
    for o in outs:
        stats = [l.split("\t") for l in o.splitlines() if l.count("\t") == 16 and l[0].isdigit()]
        if stats:
            rows += int(float(stats[-1][11]))
            queries += int(float(stats[-1][13]))
    return secs, rows, queries, cpu


def figure(step, secs, rows, queries, a, clients):
    if step == "l.x":
        return (a.rows + 100 * clients) / secs
    return queries / secs if step.startswith("q") else rows / secs


def run_ib(py, ib, a, engine):
    out = {}
    for step in STEPS:
        secs, rows, queries, cpu = ib_step(py, ib, step, a, engine)
        # Per query, per row inserted, and for l.x per row indexed (as fairbench's figure).
        ops = queries if step.startswith("q") else a.rows + 100 * a.clients if step == "l.x" else max(rows, 1)
        r = {"secs": secs, "value": figure(step, secs, rows, queries, a, a.clients), "rows_after": engine.rows(IB_PREFIX, a.clients), "client_cpu_us_per_op": cpu * 1e6 / max(ops, 1)}
        if step.startswith("q"):
            target = int(step[2:]) * a.clients
            r["rate_met"] = rows / secs >= 0.95 * target
        if step == "l.x":
            r["indexes"] = engine.indexes(f"{IB_PREFIX}1")
        out[step] = r
        print(f"  iibench.py {engine.name} {step}: {r['value']:.1f}/s in {secs:.1f} s, {r['rows_after']} rows", flush=True)
    return out


def run_fb(fb, a, engine, store, steps=None, rows=None, query_secs=None):
    cmd = [fb, "run", "insert-benchmark", "--target", engine.url, "--ibench-table", FB_PREFIX, "--rows", str(rows or a.rows), "--clients", str(a.clients),
           "--change-rows", str(a.change_rows if rows is None else rows), "--query-secs", str(query_secs or a.query_secs), "--results", store, "--output", "json",
           # iibench.py runs each step alone, without iq.sh's settle between them.
           "--settle", "off"]
    if steps:
        cmd += ["--steps", ",".join(steps)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    e = json.loads(subprocess.run([fb, "results", "export", "--json", "--results", store], check=True, capture_output=True, text=True).stdout)
    runs = e if isinstance(e, list) else e["runs"]
    return runs[-1]["levels"]


def fb_figures(levels, engine, a, after_all):
    out = {}
    for l in levels:
        s = l["summary"]
        f = s.get("figures", {})
        step = s["step"]
        key = "indexed rows/s" if step == "l.x" else "queries/s" if step.startswith("q") else "inserts/s"
        out[step] = {"secs": l["elapsed_s"], "value": float(f[key])}
        # The process's CPU over the level (its writers' threads too), per row or query.
        ops = l["events"] if step.startswith("q") else float(f.get("rows inserted", 0)) or (a.rows + 100 * a.clients)
        out[step]["client_cpu_us_per_op"] = l["cpu_cores"] * l["elapsed_s"] * 1e6 / max(ops, 1)
        if step.startswith("q"):
            out[step]["rate_met"] = f.get("background rate met") == "yes"
    out["l.x"]["indexes"] = engine.indexes(f"{FB_PREFIX}1")
    out["qp1000"]["rows_after"] = after_all
    return out


# Statement shapes -----------------------------------------------------------

def shape(stmt):
    """A statement's shape: table names (in index names too), literals and
    parameters as T and ?, an INSERT's rows as one, spacing and the
    spellings that mean the same (IF NOT EXISTS on a new table's index,
    PostgreSQL's TIMESTAMP) folded."""
    s = stmt.strip().rstrip(";").lower()
    s = re.sub(r"\b(?:fb)?pi\d+(?=\b|_)", "T", s)
    s = re.sub(r"'[^']*'", "?", s)
    s = re.sub(r"\$\d+", "?", s)
    s = re.sub(r"\b\d+(\.\d+)?\b", "?", s)
    s = re.sub(r"(insert into .*? values)\s*\(.*", r"\1 (...)", s)
    s = re.sub(r"in \(\?(\s*,\s*\?)*\)", "in (?...)", s)
    s = s.replace("timestamp without time zone", "timestamp").replace(" if not exists", "")
    s = re.sub(r"\s*,\s*", ",", s)
    s = re.sub(r"\s*\(\s*", "(", s)
    s = re.sub(r"\s*\)", ")", s)
    return re.sub(r"\s+", " ", s).strip()


def logged(engine, log_file, fn):
    """The statements `fn` sent, from the server's statement log."""
    if engine.name == "maria":
        engine.admin(f"SET GLOBAL general_log_file = '{log_file}'")
        engine.admin("SET GLOBAL general_log = ON")
        try:
            fn()
        finally:
            engine.admin("SET GLOBAL general_log = OFF")
        with open(log_file, errors="replace") as f:
            text = f.read()
        os.remove(log_file)
        return [m.group(1) for m in re.finditer(r"\s(?:Query|Execute)\s+(.*)", text)]
    pglog = os.path.join(os.environ["FAIRBENCH_TEST_TMP"], "pg", "postgres.log")
    start = os.path.getsize(pglog)
    engine.sql(f"ALTER ROLE \"{engine.p['user']}\" SET log_statement = 'all'")
    try:
        fn()
    finally:
        engine.sql(f"ALTER ROLE \"{engine.p['user']}\" RESET log_statement")
    with open(pglog, errors="replace") as f:
        f.seek(start)
        text = f.read()
    stmts = [m.group(2) for m in re.finditer(r"LOG:  (statement|execute [^:]*): (.*)", text)]
    # iibench.py prepares its queries with SQL (PREPARE name (int) AS ...; EXECUTE name (v)):
    # an EXECUTE stands for the statement it runs, as a protocol-level execution does.
    prepared = {}
    for st in stmts:
        m = re.match(r"(?is)prepare\s+(\w+)\s*(\([^)]*\))?\s+as\s+(.*)", st.strip())
        if m:
            prepared[m.group(1).lower()] = m.group(3)
    out = []
    for st in stmts:
        m = re.match(r"(?is)execute\s+(\w+)", st.strip())
        if re.match(r"(?is)prepare\s", st.strip()):
            continue
        out.append(prepared.get(m.group(1).lower(), st) if m else st)
    return out


def shapes_pass(py, ib, fb, a, engine, store):
    small = argparse.Namespace(**{**vars(a), "rows": 2000, "change_rows": 1000, "query_secs": 1})
    # Written by the server's own user: a directory anyone may write to.
    log_file = os.path.join("/tmp", f"fairbench-ibench-general-{os.getpid()}.log")
    out = {}
    for step in STEPS:
        # The statements each tool's session set-up and fairbench's sampler send: not the workload's.
        noise = re.compile(r"(information_schema|performance_schema|pg_stat|pg_catalog|pg_settings|pg_total_relation_size|pg_wal|pg_current|pg_tables|pg_indexes|"
                           r"^show |^set |^select @@|^select version|pg_database|current_setting|pg_is_in_recovery|select 1$|fairbench)", re.I)
        got = {}
        for tool in ("iibench.py", "fairbench"):
            if tool == "iibench.py":
                stmts = logged(engine, log_file, lambda: ib_step(py, ib, step, small, engine))
            else:
                stmts = logged(engine, log_file, lambda: run_fb(fb, small, engine, store, [step], rows=2000, query_secs=1))
            got[tool] = sorted({shape(s) for s in stmts if not noise.search(s.strip())})
        out[step] = got
    if os.path.exists(log_file):
        os.remove(log_file)
    return out


# The iibench.py these results are measured against: mdcallag/mytools at this commit (the
# file's last change; the same content through e1ba3d9, 2026-06-17), and the file's SHA-256.
IIBENCH_COMMIT = "bbdf6295b6436fe7606b3e03d39a9c8caaa9645e"
IIBENCH_SHA256 = "d10a329123f60668ab94d31d47f058636a400c377f16efd3b039741d75931f97"


def iibench_pin(path, any_version):
    """The reference's identity for the results: {commit, sha256, pinned}; exits on a file that
    is not the pinned one unless any_version."""
    import hashlib
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    pinned = digest == IIBENCH_SHA256
    if not pinned and not any_version:
        sys.exit(f"{path} is not iibench.py of mdcallag/mytools at {IIBENCH_COMMIT[:12]} (SHA-256 {digest[:16]}..., "
                 f"pinned {IIBENCH_SHA256[:16]}...): check out that commit, or pass --any-iibench to measure another")
    return {"repository": "mdcallag/mytools", "path": "bench/ibench/iibench.py",
            "commit": IIBENCH_COMMIT if pinned else None, "sha256": digest, "pinned": pinned}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engines", default="maria,pg")
    ap.add_argument("--rows", type=int, default=100000)
    ap.add_argument("--clients", type=int, default=2)
    ap.add_argument("--change-rows", type=int, default=100000)
    ap.add_argument("--query-secs", type=float, default=10)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--fairbench", default=os.path.join(ROOT, "target", "release", "fairbench"))
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS-ibench"))
    ap.add_argument("--no-shapes", action="store_true")
    ap.add_argument("--report-only", action="store_true", help="write the .md again from the .json of an earlier run")
    ap.add_argument("--any-iibench", action="store_true", help="measure an iibench.py other than the pinned one")
    a = ap.parse_args()
    if a.report_only:
        with open(a.out + ".json") as f:
            results = json.load(f)
        with open(a.out + ".md", "w") as f:
            f.write(markdown(results))
        return
    ib = os.environ.get("IIBENCH_PY") or sys.exit("set IIBENCH_PY to iibench.py (mdcallag/mytools, bench/ibench/iibench.py)")
    reference = iibench_pin(ib, a.any_iibench)
    py = venv_python()
    os.makedirs(CACHE, exist_ok=True)
    store = os.path.join(CACHE, f"ibench-bench-{os.getpid()}.sqlite")
    results = {"rows": a.rows, "clients": a.clients, "change_rows": a.change_rows, "query_secs": a.query_secs, "reps": a.reps,
               "iibench_py": reference, "engines": {}}
    for name in a.engines.split(","):
        engine = Engine(name)
        per = {"iibench.py": [], "fairbench": []}
        for rep in range(a.reps):
            # Alternate which tool goes first.
            order = ["iibench.py", "fairbench"] if rep % 2 == 0 else ["fairbench", "iibench.py"]
            for tool in order:
                print(f"{name} repetition {rep + 1}: {tool}", flush=True)
                if tool == "iibench.py":
                    per[tool].append(run_ib(py, ib, a, engine))
                    engine.drop(IB_PREFIX, a.clients)
                else:
                    levels = run_fb(a.fairbench, a, engine, store)
                    per[tool].append(fb_figures(levels, engine, a, engine.rows(FB_PREFIX, a.clients)))
                    engine.drop(FB_PREFIX, a.clients)
        entry = {"runs": per}
        if not a.no_shapes:
            entry["shapes"] = shapes_pass(py, ib, a.fairbench, a, engine, store)
            engine.drop(IB_PREFIX, a.clients)
            engine.drop(FB_PREFIX, a.clients)
        results["engines"][name] = entry
    if os.path.exists(store):
        os.remove(store)
    with open(a.out + ".json", "w") as f:
        json.dump(results, f, indent=1)
    with open(a.out + ".md", "w") as f:
        f.write(markdown(results))
    print(markdown(results))


def reference_line(ref):
    if not ref:
        return "The reference: iibench.py of mdcallag/mytools, version not recorded (results from before the pin)."
    if ref.get("pinned"):
        return f"The reference: iibench.py of {ref['repository']} at commit {ref['commit']} (SHA-256 {ref['sha256']})."
    return f"The reference: an iibench.py that is NOT the pinned one (SHA-256 {ref['sha256']}; pinned: {IIBENCH_COMMIT})."


def markdown(r):
    o = ["# The Insert Benchmark: fairbench against iibench.py", "",
         f"`python3 bench/ibench.py --rows {r['rows']} --clients {r['clients']} --change-rows {r['change_rows']} --query-secs {r['query_secs']} --reps {r['reps']}`",
         "on this kind of machine (2 vCPU), the tools alternating; figures are medians (min-max) over the repetitions.", "",
         reference_line(r.get("iibench_py")), "",
         "Reading it: iibench.py's step time is the wall time of its client processes, as np.sh takes it, so their start and join",
         "(about a second here) are in it: at a small --rows that second is most of l.i0 and l.x, and in query steps shorter than",
         "a few minutes it keeps iibench.py's writers under the 95% of their rate Small Datum's check asks (fairbench's step starts",
         "when its clients do). Client CPU is the tool's own (iibench.py's processes from their rusage, fairbench's process",
         "with its writer threads) per row inserted (load steps) or query (query steps); both tools share the 2 vCPUs with the",
         "server, so the tool that needs more CPU per operation leaves the server less.",
         "The statement pass runs each step alone at 2,000 rows and 1 s of query-step rows: at 100 rows a second a writer's two",
         "batches are in before a client's second query, so a qr100 there may show only some of the three range queries.", ""]
    for name, e in r["engines"].items():
        o += [f"## {'MariaDB' if name == 'maria' else 'PostgreSQL'}", "",
              "| step | figure | iibench.py | fairbench | fairbench / iibench.py | client CPU µs per row or query (iibench.py / fairbench) | rate met (iibench.py / fairbench) |",
              "|---|---|---|---|---|---|---|"]
        for step in STEPS:
            vals = {t: [run[step]["value"] for run in e["runs"][t]] for t in e["runs"]}
            cell = lambda v: f"{statistics.median(v):.0f} ({min(v):.0f}-{max(v):.0f})"
            what = "indexed rows/s" if step == "l.x" else "queries/s" if step.startswith("q") else "inserts/s"
            met = ""
            if step.startswith("q"):
                met = " / ".join(",".join("yes" if run[step]["rate_met"] else "no" for run in e["runs"][t]) for t in ("iibench.py", "fairbench"))
            ratio = statistics.median(vals["fairbench"]) / statistics.median(vals["iibench.py"])
            cpu = " / ".join(f"{statistics.median([run[step]['client_cpu_us_per_op'] for run in e['runs'][t]]):.1f}" for t in ("iibench.py", "fairbench"))
            o.append(f"| {step} | {what} | {cell(vals['iibench.py'])} | {cell(vals['fairbench'])} | {ratio:.2f} | {cpu} | {met} |")
        ib0, fb0 = e["runs"]["iibench.py"][0], e["runs"]["fairbench"][0]
        o += ["", f"Rows after the sequence: iibench.py {ib0['qp1000']['rows_after']}, fairbench {fb0['qp1000']['rows_after']}.",
              f"Indexes after l.x: iibench.py {ib0['l.x']['indexes']}; fairbench {fb0['l.x']['indexes']}.", ""]
        if "shapes" in e:
            o += ["Statement shapes per step (from the server's statement log; literals, table names and the rows of a multi-row INSERT folded):", ""]
            for step, got in e["shapes"].items():
                same = got["iibench.py"] == got["fairbench"]
                o.append(f"- {step}: {'the same' if same else 'they differ'}")
                if not same:
                    o.append(f"  - iibench.py only: {sorted(set(got['iibench.py']) - set(got['fairbench']))}")
                    o.append(f"  - fairbench only: {sorted(set(got['fairbench']) - set(got['iibench.py']))}")
            o.append("")
    return "\n".join(o) + "\n"


if __name__ == "__main__":
    main()
