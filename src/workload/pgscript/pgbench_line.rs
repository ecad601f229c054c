//! `fairbench pgbench ARGS`: a pgbench 15-17 command line as typed, rewritten into fairbench's.
//! `-i` becomes `prepare`, anything else `run`, with pgbench's defaults where fairbench's
//! differ (ten transactions per client, one try, one thread, the vacuum before the run), the
//! connection from -h/-p/-U, the database name and the PG* environment as libpq reads them, and
//! `--pgbench-output` so that pgbench's own lines follow fairbench's summary. An option this
//! cannot honour is refused in one line that names it.

use super::script;

/// pgbench's options: (short, long, takes a value).
const OPTIONS: &[(Option<char>, &str, bool)] = &[
    (Some('b'), "builtin", true),
    (Some('c'), "client", true),
    (Some('C'), "connect", false),
    // -d is --debug in pgbench 15 and 16 and --dbname from 17: a word after it is the database
    // either way (15 reads it as the positional name), and -d alone is 15's debug.
    (Some('d'), "dbname", true),
    (None, "debug", false),
    (Some('D'), "define", true),
    (Some('f'), "file", true),
    (Some('F'), "fillfactor", true),
    (Some('h'), "host", true),
    (Some('i'), "initialize", false),
    (Some('I'), "init-steps", true),
    (Some('j'), "jobs", true),
    (Some('l'), "log", false),
    (Some('L'), "latency-limit", true),
    (Some('M'), "protocol", true),
    (Some('n'), "no-vacuum", false),
    (Some('N'), "skip-some-updates", false),
    (Some('p'), "port", true),
    (Some('P'), "progress", true),
    (Some('q'), "quiet", false),
    (Some('r'), "report-per-command", false),
    (Some('R'), "rate", true),
    (Some('s'), "scale", true),
    (Some('S'), "select-only", false),
    (Some('t'), "transactions", true),
    (Some('T'), "time", true),
    (Some('U'), "username", true),
    (Some('v'), "vacuum-all", false),
    (Some('V'), "version", false),
    (Some('?'), "help", false),
    (None, "unlogged-tables", false),
    (None, "tablespace", true),
    (None, "index-tablespace", true),
    (None, "sampling-rate", true),
    (None, "aggregate-interval", true),
    (None, "progress-timestamp", false),
    (None, "log-prefix", true),
    (None, "foreign-keys", false),
    (None, "random-seed", true),
    (None, "show-script", true),
    (None, "partitions", true),
    (None, "partition-method", true),
    (None, "failures-detailed", false),
    (None, "max-tries", true),
    (None, "verbose-errors", false),
    (None, "exit-on-abort", false),
];

/// pgbench's options that only `-i` takes, and those only a run takes.
const INIT_ONLY: &[&str] = &["init-steps", "fillfactor", "quiet", "unlogged-tables", "tablespace", "index-tablespace", "foreign-keys", "partitions", "partition-method"];
const RUN_ONLY: &[&str] = &[
    "builtin",
    "client",
    "connect",
    "define",
    "file",
    "jobs",
    "log",
    "latency-limit",
    "protocol",
    "skip-some-updates",
    "progress",
    "report-per-command",
    "rate",
    "select-only",
    "transactions",
    "time",
    "vacuum-all",
    "sampling-rate",
    "aggregate-interval",
    "progress-timestamp",
    "log-prefix",
    "failures-detailed",
    "max-tries",
    "verbose-errors",
    "exit-on-abort",
];

/// pgbench's options, each with its value, in order; the database name; fairbench's own long
/// options (`--tag=T`), passed on as written.
struct Parsed {
    opts: Vec<(&'static str, String)>,
    dbname: Option<String>,
    own: Vec<String>,
}

fn parse(args: &[String]) -> Result<Parsed, String> {
    let mut p = Parsed { opts: Vec::new(), dbname: None, own: Vec::new() };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let Some(&(_, n, takes)) = OPTIONS.iter().find(|o| o.1 == name) else {
                // fairbench's own (--tag=T, --results=FILE, --no-save ...), passed on as written:
                // a value goes after '=', since the word after one may be the database name.
                p.own.push(a.clone());
                continue;
            };
            let value = match (takes, inline) {
                (false, Some(_)) => return Err(format!("pgbench: option '--{n}' doesn't allow an argument")),
                (false, None) => String::new(),
                (true, Some(v)) => v,
                (true, None) => {
                    let v = args.get(i).cloned().ok_or_else(|| format!("pgbench: option '--{n}' requires an argument"))?;
                    i += 1;
                    v
                }
            };
            p.add(n, value);
        } else if let Some(shorts) = a.strip_prefix('-').filter(|s| !s.is_empty()) {
            // getopt's clusters: -nS, -c16, -c 16.
            let chars: Vec<char> = shorts.chars().collect();
            let mut k = 0;
            while k < chars.len() {
                let c = chars[k];
                k += 1;
                let Some(&(_, n, takes)) = OPTIONS.iter().find(|o| o.0 == Some(c)) else {
                    return Err(format!("pgbench: invalid option -- '{c}': `pgbench --help` in pgbench, `fairbench pgbench --help` here"));
                };
                if c == 'd' && k == chars.len() && args.get(i).is_none_or(|v| v.starts_with('-')) {
                    p.add("debug", String::new());
                    continue;
                }
                let value = if !takes {
                    String::new()
                } else if k < chars.len() {
                    let v: String = chars[k..].iter().collect();
                    k = chars.len();
                    v
                } else {
                    let v = args.get(i).cloned().ok_or_else(|| format!("pgbench: option requires an argument -- '{c}'"))?;
                    i += 1;
                    v
                };
                p.add(n, value);
            }
        } else if p.dbname.is_none() {
            p.dbname = Some(a.clone());
        } else {
            return Err(format!("pgbench: too many command-line arguments (first is \"{a}\")"));
        }
    }
    Ok(p)
}

impl Parsed {
    /// An option as given: the database name (`--dbname`, 17's `-d`) goes where the positional
    /// one does, the rest in order.
    fn add(&mut self, name: &'static str, value: String) {
        if name == "dbname" {
            self.dbname = Some(value);
        } else {
            self.opts.push((name, value));
        }
    }

    fn has(&self, name: &str) -> bool {
        self.opts.iter().any(|(n, _)| *n == name)
    }

    /// The last value given (getopt keeps the last).
    fn last(&self, name: &str) -> Option<&str> {
        self.opts.iter().rev().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> {
        self.opts.iter().filter(move |(n, _)| *n == name).map(|(_, v)| v.as_str())
    }
}

fn number<T: std::str::FromStr>(p: &Parsed, name: &str, what: &str) -> Result<Option<T>, String> {
    match p.last(name) {
        None => Ok(None),
        Some(v) => v.trim().parse::<T>().map(Some).map_err(|_| format!("pgbench: invalid {what}: \"{v}\" (--{name})")),
    }
}

/// The connection as libpq finds it: options first, then PGHOST, PGPORT, PGUSER, PGDATABASE,
/// PGPASSWORD and PGSSLMODE, then its defaults (the socket directory, port 5432, the login name,
/// a database named as the user).
fn connection(p: &Parsed, env: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let host = p.last("host").map(String::from).or_else(|| env("PGHOST")).unwrap_or_else(|| "/var/run/postgresql".into());
    let port = p.last("port").map(String::from).or_else(|| env("PGPORT")).unwrap_or_else(|| "5432".into());
    let user = p.last("username").map(String::from).or_else(|| env("PGUSER")).or_else(|| env("USER")).unwrap_or_else(|| "postgres".into());
    let db = p.dbname.clone().or_else(|| env("PGDATABASE")).unwrap_or_else(|| user.clone());
    let mut v = vec!["--db-driver=pgsql".to_string(), format!("--pgsql-host={host}"), format!("--pgsql-port={port}"), format!("--pgsql-user={user}"), format!("--pgsql-db={db}")];
    if let Some(pw) = env("PGPASSWORD") {
        v.push(format!("--pgsql-password={pw}"));
    }
    if let Some(m) = env("PGSSLMODE") {
        v.push(format!("--pgsql-sslmode={m}"));
    }
    v
}

/// Options pgbench has that fairbench does not honour, each with why, refused in one line.
fn refused(p: &Parsed) -> Result<(), String> {
    let why = |n: &str| -> Option<&str> {
        Some(match n {
            "debug" => "fairbench does not trace each statement",
            "init-steps" => "prepare runs pgbench's default steps (dtgvp) only",
            "foreign-keys" | "unlogged-tables" | "tablespace" | "index-tablespace" => "prepare makes pgbench's default tables only",
            "show-script" => "`fairbench explain` and docs/workloads/pgbench.md show the built-ins",
            _ => return None,
        })
    };
    for (n, v) in &p.opts {
        if *n == "fillfactor" && v.trim() == "100" {
            continue;
        }
        if *n == "fillfactor" {
            return Err(format!("pgbench option --fillfactor={v} is not supported: prepare makes the tables at fillfactor 100"));
        }
        if let Some(w) = why(n) {
            return Err(format!("pgbench option --{n} is not supported: {w}"));
        }
    }
    Ok(())
}

/// `argv` rewritten when it is `fairbench pgbench ...`; None otherwise.
pub fn command_line(argv: &[String]) -> Option<Result<Vec<String>, String>> {
    if argv.get(1).map(String::as_str) != Some("pgbench") {
        return None;
    }
    Some(rewrite(&argv[2..], &|k| std::env::var(k).ok()))
}

fn rewrite(args: &[String], env: &dyn Fn(&str) -> Option<String>) -> Result<Vec<String>, String> {
    let p = parse(args)?;
    let me = "fairbench".to_string();
    if p.has("help") {
        return Ok(vec![me, "run".into(), "pgscript".into(), "--help".into()]);
    }
    if p.has("version") {
        return Ok(vec![me, "--version".into()]);
    }
    refused(&p)?;
    let init = p.has("initialize");
    let wrong = if init { RUN_ONLY } else { INIT_ONLY };
    if let Some((n, _)) = p.opts.iter().find(|(n, _)| wrong.contains(n)) {
        let mode = if init { "initialization (-i)" } else { "benchmarking" };
        return Err(format!("pgbench: --{n} cannot be used in {mode} mode"));
    }
    let mut out = vec![me];
    if init {
        out.extend(["prepare".into(), "tpcb-like".into()]);
        out.push(format!("--scale={}", number::<u32>(&p, "scale", "scaling factor")?.unwrap_or(1)));
        if let Some(n) = number::<u32>(&p, "partitions", "number of partitions")? {
            out.push(format!("--partitions={n}"));
        }
        if let Some(m) = p.last("partition-method") {
            out.push(format!("--partition-method={m}"));
        }
    } else {
        out.extend(run_options(&p)?);
    }
    out.extend(connection(&p, env));
    out.extend(p.own.iter().cloned());
    Ok(out)
}

fn run_options(p: &Parsed) -> Result<Vec<String>, String> {
    // The scripts, in pgbench's ways of naming them and in the order given, which is the order
    // pgbench numbers them in: built-ins go among the files as `builtin:NAME`.
    let mut scripts: Vec<String> = Vec::new();
    for (n, v) in &p.opts {
        match *n {
            "builtin" => scripts.push(format!("builtin:{v}")),
            "select-only" => scripts.push("builtin:select-only".into()),
            "skip-some-updates" => scripts.push("builtin:simple-update".into()),
            "file" => scripts.push(v.clone()),
            _ => {}
        }
    }
    if scripts.is_empty() {
        scripts.push("builtin:tpcb-like".into());
    }
    let mut out = vec!["run".to_string()];
    let single = match scripts.as_slice() {
        [one] => one.strip_prefix("builtin:").and_then(|b| script::split_weight(b).ok()).and_then(|(n, _)| script::builtin(n).ok()).map(|b| b.0.to_string()),
        _ => None,
    };
    match single {
        // The built-in is the workload, under its own name.
        Some(name) => {
            out.push(name);
            out.push(format!("--builtin={}", &scripts[0]["builtin:".len()..]));
        }
        None => {
            out.push(super::SCRIPTS.to_string());
            out.extend(scripts.iter().map(|f| format!("--pgbench-script={f}")));
        }
    }
    let clients = number::<usize>(p, "client", "number of clients")?.unwrap_or(1);
    if clients == 0 {
        return Err("pgbench: invalid number of clients: \"0\"".into());
    }
    let jobs = number::<usize>(p, "jobs", "number of threads")?.unwrap_or(1).clamp(1, clients);
    out.push(format!("--threads={clients}"));
    out.push(format!("--client-threads={jobs}"));
    match (number::<u64>(p, "time", "duration")?, number::<u64>(p, "transactions", "number of transactions")?) {
        (Some(_), Some(_)) => return Err("pgbench: specify either a number of transactions (-t) or a duration (-T), not both".into()),
        (Some(t), None) => out.push(format!("--time={t}")),
        // pgbench's default: ten transactions per client.
        (None, t) => {
            out.push("--time=0".into());
            out.push(format!("--events={}", t.unwrap_or(10) * clients as u64));
        }
    }
    // pgbench's default protocol is the simple one, where fairbench's is prepared.
    out.push(format!("--protocol={}", p.last("protocol").unwrap_or("simple")));
    out.push(format!("--report-interval={}", number::<u64>(p, "progress", "thread progress delay")?.unwrap_or(0)));
    if let Some(r) = number::<f64>(p, "rate", "rate")? {
        out.push(format!("--rate={r}"));
    }
    if let Some(l) = number::<f64>(p, "latency-limit", "latency limit")? {
        out.push(format!("--latency-limit={l}"));
    }
    if let Some(s) = p.last("scale") {
        if scripts.iter().all(|f| f.starts_with("builtin:")) {
            eprintln!("pgbench: warning: scale option ignored, using count from pgbench_branches table");
        } else {
            out.push(format!("--scale={s}"));
        }
    }
    out.extend(p.all("define").map(|d| format!("--define={d}")));
    let vacuum = if p.has("no-vacuum") {
        "none"
    } else if p.has("vacuum-all") {
        "all"
    } else {
        "tables"
    };
    out.push(format!("--vacuum={vacuum}"));
    // pgbench's one try, and its retries of serialization failures and deadlocks only.
    out.push(format!("--max-tries={}", number::<u32>(p, "max-tries", "number of maximum tries")?.unwrap_or(1)));
    out.push("--pgsql-ignore-errors=40001,40P01".into());
    for (flag, own) in [
        ("report-per-command", "--report-per-command"),
        ("connect", "--connect"),
        ("log", "--log"),
        ("failures-detailed", "--failures-detailed"),
        ("verbose-errors", "--verbose-errors"),
        ("progress-timestamp", "--progress-timestamp"),
    ] {
        if p.has(flag) {
            out.push(own.into());
        }
    }
    for name in ["log-prefix", "aggregate-interval", "sampling-rate"] {
        if let Some(v) = p.last(name) {
            out.push(format!("--{name}={v}"));
        }
    }
    match p.last("random-seed") {
        None | Some("time") | Some("rand") => {}
        Some(n) => out.push(format!("--rand-seed={}", n.parse::<u64>().map_err(|_| format!("pgbench: unrecognized random seed option \"{n}\": expecting an unsigned integer, \"time\" or \"rand\""))?)),
    }
    out.push("--pgbench-output".into());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn env(k: &str) -> Option<String> {
        match k {
            "PGHOST" => Some("10.0.0.5".into()),
            "PGUSER" => Some("bench".into()),
            _ => None,
        }
    }

    #[test]
    fn a_run_line_becomes_fairbenchs_with_pgbenchs_defaults() {
        let out = rewrite(&words("-c 16 -j 4 -T 60 -b select-only -M prepared -P 5 mydb"), &env).unwrap();
        for w in ["run", "select-only", "--threads=16", "--client-threads=4", "--time=60", "--protocol=prepared", "--report-interval=5", "--vacuum=tables", "--max-tries=1", "--pgbench-output"] {
            assert!(out.contains(&w.to_string()), "{w} missing from {out:?}");
        }
        assert!(out.contains(&"--pgsql-host=10.0.0.5".to_string()) && out.contains(&"--pgsql-db=mydb".to_string()) && out.contains(&"--pgsql-user=bench".to_string()), "{out:?}");
        // Ten transactions per client when neither -t nor -T is given; clusters as getopt reads them.
        let out = rewrite(&words("-nSc4"), &env).unwrap();
        assert!(out.contains(&"--events=40".to_string()) && out.contains(&"--vacuum=none".to_string()) && out.contains(&"select-only".to_string()), "{out:?}");
        let out = rewrite(&words("-i -s 10 --partitions=4"), &env).unwrap();
        assert_eq!(&out[1..4], &["prepare", "tpcb-like", "--scale=10"]);
        assert!(out.contains(&"--partitions=4".to_string()));
        // -d: the database in 17's reading, and in 15's (debug, then the positional name).
        let out = rewrite(&words("-c 2 -d other"), &env).unwrap();
        assert!(out.contains(&"--pgsql-db=other".to_string()), "{out:?}");
        assert!(rewrite(&words("-c 2 -d"), &env).unwrap_err().contains("--debug"));
    }

    #[test]
    fn scripts_keep_the_order_pgbench_numbers_them_in() {
        let out = rewrite(&words("-c 2 -f a.sql@2 -b select-only@3 -N mydb"), &env).unwrap();
        let scripts: Vec<&String> = out.iter().filter(|w| w.starts_with("--pgbench-script=") || w.starts_with("--builtin=")).collect();
        assert_eq!(scripts, ["--pgbench-script=a.sql@2", "--pgbench-script=builtin:select-only@3", "--pgbench-script=builtin:simple-update"], "{out:?}");
        // One built-in alone is the workload of its name.
        let out = rewrite(&words("-c 2 -b simple mydb"), &env).unwrap();
        assert_eq!(&out[1..3], &["run", "simple-update"], "{out:?}");
        assert!(out.contains(&"--builtin=simple".to_string()), "{out:?}");
    }

    #[test]
    fn what_cannot_be_honoured_is_refused_in_one_line() {
        for (line, says) in [
            ("-i --unlogged-tables", "--unlogged-tables is not supported"),
            ("-i -F 90", "--fillfactor=90 is not supported"),
            ("-i -c 4", "--client cannot be used in initialization (-i) mode"),
            ("-T 5 -t 10", "not both"),
            ("-x", "invalid option -- 'x'"),
            ("-c", "requires an argument -- 'c'"),
        ] {
            let e = rewrite(&words(line), &env).unwrap_err();
            assert!(e.contains(says) && !e.contains('\n'), "{line}: {e}");
        }
        assert!(rewrite(&words("-i -F 100"), &env).is_ok());
    }
}
