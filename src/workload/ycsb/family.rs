//! YCSB as one family in the workload registry, and YCSB's command line:
//! `fairbench load ycsb -P workloads/workloada -p recordcount=1000000
//! -threads 16` and `fairbench run ycsb -P ... -target 5000` mean what they
//! mean to YCSB's client.

use super::config::Config;
use super::props::Props;
use super::{Phase, Ycsb, YcsbArgs, NAME};
use crate::db::ConnConfig;
use crate::error::Result;
use crate::values::Levels;
use crate::workload::common::CommonArgs;
use crate::workload::family::{BenchRun, CommandLine, Family, Labels};
use clap::{Args, Command};
use std::collections::BTreeMap;

#[derive(Debug)]
pub struct YcsbFamily;

impl Family for YcsbFamily {
    fn name(&self) -> &'static str {
        "ycsb"
    }

    fn workloads(&self) -> &'static [&'static str] {
        &[NAME]
    }

    fn help(&self) -> &'static str {
        "ycsb"
    }

    fn label_example(&self) -> &'static str {
        "YCSB_A-1M-zipfian"
    }

    fn augment_args(&self, cmd: Command) -> Command {
        YcsbArgs::augment_args(cmd)
    }

    fn default_rand_type(&self) -> &'static str {
        "uniform"
    }

    fn bench(&self, plan: &mut crate::workload::plan::Plan, conn: ConnConfig) -> Result<Option<BenchRun>> {
        let args: YcsbArgs = plan.families.get()?;
        let common: CommonArgs = plan.families.get()?;
        let mut props = Props::defaults();
        // As YCSB's client: every file in order, then every -p over them.
        for f in &args.ycsb_workload {
            props.read_file(f)?;
        }
        for kv in &args.ycsb_property {
            props.set_override(kv)?;
        }
        let cfg = if plan.command == crate::workload::plan::BenchCommand::Cleanup { Config::for_cleanup(&props)? } else { Config::new(&props)? };
        let phase = if args.ycsb_phase == "load" { Phase::Load } else { Phase::Run };
        let fam = &plan.families;
        let c = &mut plan.run;
        if fam.given::<Levels>("threads").is_none() && props.given("threadcount") {
            c.levels = vec![cfg.threadcount];
        }
        if fam.given::<f64>("rate").is_none() && cfg.target > 0.0 {
            c.rate = cfg.target;
            // YCSB's client paces each thread to one operation every 1/target s.
            if fam.given::<crate::model::Arrivals>("arrivals").is_none() {
                c.arrivals = crate::model::Arrivals::Even;
            }
        }
        let (events_given, time_given) = (fam.given::<u64>("events").is_some(), fam.given::<f64>("time").is_some());
        match phase {
            // The load ends when every record is in (or at maxexecutiontime).
            Phase::Load => {
                if !events_given {
                    c.events = 0;
                }
                if !time_given {
                    c.time = cfg.maxexecutiontime;
                }
            }
            // YCSB's run ends at operationcount or maxexecutiontime; with
            // neither, fairbench's --time applies.
            Phase::Run => {
                if !events_given && props.given("operationcount") {
                    c.events = cfg.operationcount;
                    if !time_given {
                        c.time = cfg.maxexecutiontime;
                    }
                } else if !time_given && props.given("maxexecutiontime") {
                    c.time = cfg.maxexecutiontime;
                }
            }
        }
        let mut w = Ycsb::new(cfg, phase, conn.engine(), c.seed);
        w.table_tail = common.table_tail(conn.engine())?;
        w.load_mode = crate::db::LoadMode::parse(&common.load_mode).unwrap_or(crate::db::LoadMode::Auto);
        w.load_bulk_size = common.load_bulk_size;
        w.load_clients = c.levels.iter().copied().max().unwrap_or(1);
        Ok(Some(BenchRun::new(w, conn)))
    }

    fn labels(&self) -> Option<&dyn Labels> {
        Some(self)
    }

    fn command_line(&self) -> Option<&dyn CommandLine> {
        Some(self)
    }
}

impl Labels for YcsbFamily {
    fn label_words(&self) -> Vec<&'static str> {
        vec!["YCSB"]
    }

    fn canonical_label(&self, _workload: &str, get: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        Some(super::label::canonical(get))
    }

    fn decode_label(&self, l: &str) -> Option<std::result::Result<crate::label::Decoded, crate::label::LabelError>> {
        super::label::decode(l)
    }
}

impl CommandLine for YcsbFamily {
    fn tool_command_line(&self, argv: &[String]) -> Option<std::result::Result<Vec<String>, String>> {
        command_line(argv)
    }
}

/// YCSB's client words, as fairbench's options: `load` (or `-load`) is a
/// run of YCSB's load phase, `-t` the transaction phase, `-threads N`
/// `--threads=N`, `-target N` `--rate=N` (operations per second over all
/// threads), `-s` YCSB's status line every status.interval seconds; `-db CLASS` and
/// `-l LABEL` name YCSB's binding and a label and are dropped;
/// `--ycsb.KEY=VALUE`, a property as a run's record names it, is
/// `-p KEY=VALUE`; without `--target`, the binding's properties name
/// the target ([`binding_target`]). None when
/// the command line does not run YCSB.
pub fn command_line(argv: &[String]) -> Option<std::result::Result<Vec<String>, String>> {
    // The workload names itself among the first words, as a YCSB user
    // types `ycsb load ...` or fairbench's `run ycsb ...`.
    // Only where a workload runs: `explain LABEL` decodes it itself.
    let labelled = argv.iter().skip(1).take(3).position(|a| super::label::is_label(a)).map(|i| i + 1);
    let bench = matches!(argv.get(1).map(String::as_str), Some("run" | "prepare" | "cleanup" | "prewarm" | "check" | "load"));
    let labelled = labelled.filter(|&i| bench || i == 1);
    if labelled.is_none() && !argv.iter().skip(1).take(3).any(|a| a == NAME) {
        return None;
    }
    // A label stands for YCSB's words, in its place.
    let mut argv = argv.to_vec();
    if let Some(i) = labelled {
        match super::label::parse(&argv[i]) {
            Some(Ok(p)) => {
                argv.splice(i..=i, super::label::words(&p));
            }
            Some(Err((_, why))) => return Some(Err(format!("label '{}': {why}", argv[i]))),
            None => {}
        }
    }
    let argv = &argv;
    let mut out = Vec::with_capacity(argv.len() + 2);
    let mut load = false;
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        i += 1;
        let mut value = |name: &str| -> std::result::Result<String, String> {
            let v = argv.get(i).filter(|v| !v.starts_with('-') || v.parse::<f64>().is_ok()).cloned().ok_or_else(|| format!("{name} needs a value"))?;
            i += 1;
            Ok(v)
        };
        match a {
            "load" | "-load" => {
                load = true;
                if a == "load" {
                    out.push("run".into());
                }
            }
            "-t" => {}
            "-threads" => match value(a) {
                Ok(v) => out.push(format!("--threads={v}")),
                Err(e) => return Some(Err(e)),
            },
            // As YCSB's client: the `target` property (even arrivals; see `bench`).
            "-target" => match value(a) {
                // fairbench's --target (the server) beside YCSB's -target (a rate): a URL given
                // to the rate is the slip, not a bad number.
                Ok(v) if v.contains("://") || v.starts_with("sqlite:") => {
                    return Some(Err(format!("-target {v}: YCSB's -target is a rate (operations a second over all threads); the server goes in --target URL, with two dashes")));
                }
                Ok(v) => out.extend(["-p".to_string(), format!("target={v}")]),
                Err(e) => return Some(Err(e)),
            },
            "-s" => out.extend(["-p".to_string(), "status=true".to_string()]),
            "-db" | "-l" | "-jvm-args" | "-cp" => {
                if let Err(e) = value(a) {
                    return Some(Err(e));
                }
            }
            // A property as a record writes it: `--ycsb.KEY=VALUE`.
            _ => match a.strip_prefix("--ycsb.").and_then(|kv| kv.split_once('=')) {
                Some((k, v)) => out.push(format!("--ycsb-property={k}={v}")),
                None => out.push(a.to_string()),
            },
        }
    }
    if load {
        // `ycsb load` without a command word: `-load` alone.
        if !out.iter().skip(1).any(|a| a == "run") {
            out.insert(1, "run".into());
        }
        out.push("--ycsb-phase=load".into());
    }
    if !out.iter().any(|a| a == "--target" || a.starts_with("--target=")) {
        match binding_target(&out) {
            Some(Ok(url)) => out.extend(["--target".to_string(), url]),
            Some(Err(e)) => return Some(Err(e)),
            None => {}
        }
    }
    Some(Ok(out))
}

/// The target a YCSB user's binding properties name, when the command line
/// gives no `--target`: the JDBC binding's `db.url` (`jdbc:mysql:`,
/// `jdbc:mariadb:`, `jdbc:postgresql:`) with `db.user` and `db.passwd`, or
/// go-ycsb's `mysql.*` / `pg.*` (host, port, user, password, db, with
/// go-ycsb's defaults), from the `-P` files that can be read and the `-p`
/// properties (which win), as YCSB reads them.
fn binding_target(argv: &[String]) -> Option<std::result::Result<String, String>> {
    let mut props: BTreeMap<String, String> = BTreeMap::new();
    for pass in ["-P", "-p"] {
        for w in argv.windows(2).filter(|w| w[0] == pass) {
            if pass == "-P" {
                let text = std::fs::read_to_string(&w[1]).unwrap_or_default();
                props.extend(crate::workload::common::java_properties(&text).into_iter().map(|(k, v, _)| (k, v)));
            } else if let Some((k, v)) = w[1].split_once('=') {
                props.insert(k.trim().to_string(), v.trim().to_string());
            }
        }
    }
    let get = |k: &str| props.get(k).map(String::as_str);
    let enc = |s: &str| s.bytes().map(|b| if b.is_ascii_alphanumeric() || b"-._~".contains(&b) { char::from(b).to_string() } else { format!("%{b:02X}") }).collect::<String>();
    let auth = |user: Option<&str>, pass: Option<&str>| match (user.filter(|u| !u.is_empty()), pass.filter(|p| !p.is_empty())) {
        (Some(u), Some(p)) => format!("{}:{}@", enc(u), enc(p)),
        (Some(u), None) => format!("{}@", enc(u)),
        _ => String::new(),
    };
    if let Some(url) = get("db.url") {
        if url.contains(',') || url.contains(';') {
            return Some(Err(format!("db.url={url}: it names several databases (the JDBC binding's shards); give one with --target URL")));
        }
        let Some((scheme, rest)) = url.strip_prefix("jdbc:").and_then(|u| u.split_once("://")) else {
            return Some(Err(format!("db.url={url}: write a JDBC URL (jdbc:mysql://host:port/db, jdbc:postgresql://...) or give --target URL")));
        };
        let scheme = match scheme {
            "mysql" | "mariadb" => "mysql",
            "postgresql" => "postgres",
            other => return Some(Err(format!("db.url={url}: jdbc:{other} is not an engine fairbench runs; give --target URL"))),
        };
        let rest = rest.split(['?', '&']).next().unwrap_or_default();
        return Some(Ok(format!("{scheme}://{}{rest}", auth(get("db.user"), get("db.passwd")))));
    }
    for (prefix, scheme, port, user) in [("mysql", "mysql", "3306", "root"), ("pg", "postgres", "5432", "root")] {
        let key = |k: &str| get(&format!("{prefix}.{k}"));
        if ["host", "port", "user", "password", "db"].iter().any(|k| key(k).is_some()) {
            let (host, port) = (key("host").unwrap_or("127.0.0.1"), key("port").unwrap_or(port));
            return Some(Ok(format!("{scheme}://{}{host}:{port}/{}", auth(Some(key("user").unwrap_or(user)), key("password")), key("db").unwrap_or("test"))));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn ycsb_load_and_run_lines_become_fairbench_options() {
        let got = command_line(&words("fairbench load ycsb -P workloads/workloada -p recordcount=1000 -threads 16 --target mysql://x")).unwrap().unwrap();
        assert_eq!(got, words("fairbench run ycsb -P workloads/workloada -p recordcount=1000 --threads=16 --target mysql://x --ycsb-phase=load"));
        let got = command_line(&words("fairbench run ycsb -P workloadb -p operationcount=10 -target 5000 -s")).unwrap().unwrap();
        assert_eq!(got, words("fairbench run ycsb -P workloadb -p operationcount=10 -p target=5000 -p status=true"));
        let got = command_line(&words("fairbench ycsb -load -db site.ycsb.db.JdbcDBClient -P workloada")).unwrap().unwrap();
        assert_eq!(got, words("fairbench run ycsb -P workloada --ycsb-phase=load"));
        assert!(command_line(&words("fairbench run other --threads 4")).is_none());
        let got = command_line(&words("fairbench run YCSB_B-10K-zipfian -p operationcount=5")).unwrap().unwrap();
        assert_eq!(got, words("fairbench run ycsb -P workloadb -p recordcount=10000 -p requestdistribution=zipfian -p operationcount=5"));
        let got = command_line(&words("fairbench YCSB_load-10K -threads 2")).unwrap().unwrap();
        assert_eq!(got, words("fairbench run ycsb -p recordcount=10000 --threads=2 --ycsb-phase=load"));
        assert!(command_line(&words("fairbench run YCSB_G-1M")).unwrap().unwrap_err().contains("not a core workload"));
        assert!(command_line(&words("fairbench explain YCSB_A-1M")).is_none());
        let got = command_line(&words("fairbench run ycsb -P workloadc -p db.url=jdbc:mysql://db1:3307/ycsb?rewriteBatchedStatements=true -p db.user=u -p db.passwd=p@ss")).unwrap().unwrap();
        assert_eq!(got[got.len() - 2..], words("--target mysql://u:p%40ss@db1:3307/ycsb"));
        let got = command_line(&words("fairbench run ycsb -p pg.host=h -p pg.db=y --target sqlite:///x")).unwrap().unwrap();
        assert_eq!(got.last().unwrap(), "sqlite:///x", "--target wins");
        let got = command_line(&words("fairbench run ycsb -p pg.host=h -p pg.user=me -p pg.db=y")).unwrap().unwrap();
        assert_eq!(got.last().unwrap(), "postgres://me@h:5432/y");
        assert!(command_line(&words("fairbench run ycsb -p db.url=jdbc:oracle://h/x")).unwrap().is_err());
        let got = command_line(&words("fairbench run ycsb --ycsb.recordcount=5 --ycsb-phase=run")).unwrap().unwrap();
        assert_eq!(got, words("fairbench run ycsb --ycsb-property=recordcount=5 --ycsb-phase=run"));
        assert!(command_line(&words("fairbench run ycsb -threads")).unwrap().is_err());
    }
}
