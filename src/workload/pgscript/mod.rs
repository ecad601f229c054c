//! pgbench scripts as a workload: script files (`--pgbench-script
//! FILE[@W]`, pgbench's `-f`) and pgbench's built-ins (`tpcb-like`,
//! `simple-update`, `select-only`), run by fairbench's clients with its
//! measurement. One event is one run of one script (pgbench's
//! transaction), the script chosen by weight; each script is an event kind.
//!
//! SQL goes out in the protocol `--protocol` names: simple sends the text
//! with the variables' values written in, extended and prepared bind them
//! as parameters of a statement prepared once per connection.

pub mod expr;
pub mod family;
pub mod load;
pub mod options;
pub mod pgbench_line;
pub mod prng;
pub mod report;
pub mod script;

use super::{Checked, Counters, Levels, Witnessed, Workload};
use crate::db::{Class, Conn, ConnConfig, DbError, DbResult, ErrKind, Param, StatementSet, StmtId};
use crate::error::Result;
use crate::usage;
use expr::{Env, Value};
pub use options::PgscriptArgs;
use prng::PgRng;
use script::{Cmd, Names, Part, Pipe, Script, SleepArg, Sql};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The workload name of a run of script files (or of a mix of built-ins).
pub const SCRIPTS: &str = "pgscript";
/// pgbench's tables, children first.
pub const TABLES: [&str; 4] = ["pgbench_history", "pgbench_tellers", "pgbench_accounts", "pgbench_branches"];

/// pgbench's `--protocol` (its source calls it the query mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryMode {
    Simple,
    Extended,
    Prepared,
}

impl QueryMode {
    pub fn name(self) -> &'static str {
        match self {
            QueryMode::Simple => "simple",
            QueryMode::Extended => "extended",
            QueryMode::Prepared => "prepared",
        }
    }
}

pub struct PgScripts {
    pub workload: String,
    pub scripts: Vec<Script>,
    pub names: Names,
    pub query_mode: QueryMode,
    /// `--scale` as given; None: read from pgbench_branches (built-ins) or 1.
    pub scale_given: Option<i64>,
    /// The scale the run uses, known once the tables were looked at.
    scale: AtomicI64,
    pub builtins_only: bool,
    /// A new connection every this many transactions (`-C`: 1; `--reconnect N`), 0: never.
    pub reconnect: u64,
    /// `prepare --partitions N --partition-method M`: pgbench_accounts in N partitions.
    partitions: (u32, String),
    /// `--pgbench-output`: pgbench's progress lines and report, with these settings.
    pub report: Option<report::ReportSpec>,
    /// `--vacuum`: none, tables or all.
    vacuum: String,
    /// What the run's start found, for pgbench's report.
    found: Arc<std::sync::Mutex<report::Found>>,
    /// `--report-per-command`: each listed command's step, by script and command (None for
    /// the jumps pgbench does not list), and the steps' names.
    step_of: Option<Vec<Vec<Option<usize>>>>,
    step_names: &'static [&'static str],
    defines: Vec<(usize, Value)>,
    seed: u64,
    total_weight: u64,
    kinds: &'static [&'static str],
    set: Arc<StatementSet>,
    slot_client_id: usize,
    slot_scale: usize,
    slot_default_seed: usize,
    slot_random_seed: usize,
}

pub struct PgClient {
    vars: Vec<Option<Value>>,
    rng: PgRng,
    choose: PgRng,
    text: String,
    strs: Vec<String>,
    in_trx: bool,
    /// Inside `\startpipeline` ... `\endpipeline`: statements are queued, not waited for.
    piping: bool,
    /// The generators as the last event began: a retried event (deadlock,
    /// serialization failure) runs the same script with the same draws.
    saved: (PgRng, PgRng),
    /// The script and command (pgbench's numbers) running, for pgbench's error lines.
    at: (usize, u16),
}

/// The scripts a command line names: built-ins first, then files, each
/// with its weight. A file named `builtin:NAME` is that built-in, where the
/// files are: `fairbench pgbench` keeps pgbench's numbering, the order given.
pub fn load_scripts(args: &PgscriptArgs, names: &mut Names) -> Result<Vec<Script>> {
    let mut out = Vec::new();
    let builtin = |spec: &str, names: &mut Names| -> Result<Script> {
        let (name, w) = script::split_weight(spec).map_err(|e| usage!("--builtin {e}"))?;
        let (name, text) = script::builtin(name).map_err(|e| usage!("--builtin: {e}"))?;
        script::parse(&format!("builtin:{name}"), text, w, names).map_err(crate::error::Error::Usage)
    };
    for spec in &args.builtin {
        out.push(builtin(spec, names)?);
    }
    for spec in &args.pgbench_script {
        if let Some(b) = spec.strip_prefix("builtin:") {
            out.push(builtin(b, names)?);
            continue;
        }
        let (path, w) = script::split_weight(spec).map_err(|e| usage!("--pgbench-script {e}"))?;
        let text = std::fs::read_to_string(path).map_err(|e| usage!("--pgbench-script {path}: cannot read it: {e}"))?;
        out.push(script::parse(path, &text, w, names).map_err(crate::error::Error::Usage)?);
    }
    Ok(out)
}

impl PgScripts {
    pub fn new(workload: &str, args: &PgscriptArgs, given_defines: &[String], scale: Option<u32>, prepared_default: bool, seed: u64) -> Result<PgScripts> {
        let mut args = args.clone();
        if workload != SCRIPTS && !args.builtin.iter().any(|b| script::split_weight(b).is_ok_and(|(n, _)| script::builtin(n).is_ok_and(|x| x.0 == workload))) {
            // The workload named a built-in: it runs, with the others given.
            args.builtin.insert(0, workload.to_string());
        }
        if args.builtin.is_empty() && args.pgbench_script.is_empty() {
            return Err(usage!("{SCRIPTS} runs pgbench scripts: give --pgbench-script FILE[@W] or --builtin NAME[@W]"));
        }
        let mut names = Names::default();
        // pgbench's automatic variables, always in the same slots.
        let slot_client_id = names.slot("client_id");
        let slot_scale = names.slot("scale");
        let slot_default_seed = names.slot("default_seed");
        let slot_random_seed = names.slot("random_seed");
        let mut scripts = load_scripts(&args, &mut names)?;
        let total_weight: u64 = scripts.iter().map(|s| s.weight as u64).sum();
        if total_weight == 0 {
            return Err(usage!("the scripts' weights add up to 0: give at least one script a weight above 0"));
        }
        let mut defines = Vec::new();
        for d in given_defines {
            let Some((n, v)) = d.split_once('=') else { return Err(usage!("--define {d}: use NAME=VALUE")) };
            defines.push((names.slot(n), Value::Str(v.to_string())));
        }
        let protocol = match args.protocol.as_deref() {
            Some("simple") => QueryMode::Simple,
            Some("extended") => QueryMode::Extended,
            Some(_) => QueryMode::Prepared,
            None if prepared_default => QueryMode::Prepared,
            None => QueryMode::Simple,
        };
        refuse_for_protocol(&scripts, protocol)?;
        let mut set = StatementSet::default();
        for s in &mut scripts {
            for c in &mut s.commands {
                if let Cmd::Sql(q) = &mut c.cmd {
                    q.stmt = set.add(q.bound.clone(), q.returns_rows || q.into.is_some()).0;
                }
            }
        }
        let kinds: Vec<&'static str> = scripts.iter().map(|s| &*Box::leak(s.path.clone().into_boxed_str())).collect();
        let builtins_only = scripts.iter().all(|s| s.path.starts_with("builtin:"));
        // pgbench's -r: one step per listed command of every script, in order.
        let (step_of, step_names) = if args.report_per_command {
            let mut names: Vec<&'static str> = Vec::new();
            let of = scripts
                .iter()
                .map(|s| {
                    s.commands
                        .iter()
                        .map(|c| {
                            c.shown.as_ref().map(|t| {
                                names.push(Box::leak(t.clone().into_boxed_str()));
                                names.len() - 1
                            })
                        })
                        .collect()
                })
                .collect();
            (Some(of), &*Box::leak(names.into_boxed_slice()))
        } else {
            (None, &[][..])
        };
        Ok(PgScripts {
            workload: workload.to_string(),
            scripts,
            names,
            query_mode: protocol,
            scale_given: scale.map(i64::from),
            scale: AtomicI64::new(scale.map(i64::from).unwrap_or(1)),
            builtins_only,
            reconnect: 0,
            partitions: (args.partitions, args.partition_method.clone()),
            report: None,
            vacuum: args.vacuum.clone(),
            found: Arc::default(),
            step_of,
            step_names,
            defines,
            seed,
            total_weight,
            kinds: Box::leak(kinds.into_boxed_slice()),
            set: Arc::new(set),
            slot_client_id,
            slot_scale,
            slot_default_seed,
            slot_random_seed,
        })
    }

    pub fn scale(&self) -> i64 {
        self.scale.load(Ordering::Relaxed)
    }

    /// pgbench's choice: a number below the total weight, then the script
    /// whose share it falls in.
    fn choose(&self, c: &mut PgClient) -> usize {
        if self.scripts.len() == 1 {
            return 0;
        }
        let mut w = c.choose.range_u64(0, self.total_weight - 1) as i64;
        for (i, s) in self.scripts.iter().enumerate() {
            w -= s.weight as i64;
            if w < 0 {
                return i;
            }
        }
        self.scripts.len() - 1
    }

    async fn run_sql(&self, conn: &mut Conn, c: &mut PgClient, q: &mut Counters, sql: &Sql, path: &str, line: usize) -> DbResult<()> {
        let rows = if self.query_mode == QueryMode::Simple {
            c.text.clear();
            for p in &sql.parts {
                match p {
                    Part::Text(t) => c.text.push_str(t),
                    Part::Var(i) => match &c.vars[*i] {
                        Some(v) => v.write_text(&mut c.text),
                        // pgbench leaves an unknown name as written.
                        None => {
                            c.text.push(':');
                            c.text.push_str(&self.names.list[*i]);
                        }
                    },
                }
            }
            if sql.into.is_some() {
                Some(conn.query_strings(&c.text).await.map_err(|e| located(e, path, line))?)
            } else {
                let class = conn.query(&c.text).await.map_err(|e| located(e, path, line))?;
                q.add(class);
                None
            }
        } else {
            // Integers bind as BIGINT (as the driver binds them), so that
            // `WHERE aid = $1` compares as numbers; anything else as text.
            // The text buffers are kept between statements.
            if c.strs.len() < sql.params.len() {
                c.strs.resize(sql.params.len(), String::new());
            }
            let mut ints = [0i64; 16];
            let mut is_int = [false; 16];
            for (k, &i) in sql.params.iter().enumerate() {
                let v = c.vars[i].as_ref().ok_or_else(|| script_error(path, line, format!("undefined variable \"{}\"", self.names.list[i])))?;
                let int = match v {
                    Value::Int(n) => Some(*n),
                    Value::Str(t) => t.parse::<i64>().ok(),
                    _ => None,
                };
                match int {
                    Some(n) if k < ints.len() => {
                        ints[k] = n;
                        is_int[k] = true;
                    }
                    _ => {
                        c.strs[k].clear();
                        v.write_text(&mut c.strs[k]);
                    }
                }
            }
            let param = |k: usize| if k < ints.len() && is_int[k] { Param::Int(ints[k]) } else { Param::Text(&c.strs[k]) };
            let mut small = [Param::Int(0); 16];
            let big: Vec<Param<'_>>;
            let params: &[Param<'_>] = if sql.params.len() <= small.len() {
                for (k, p) in small.iter_mut().enumerate().take(sql.params.len()) {
                    *p = param(k);
                }
                &small[..sql.params.len()]
            } else {
                big = (0..sql.params.len()).map(param).collect();
                &big
            };
            let id = StmtId(sql.stmt);
            if c.piping {
                // Its answer is read at \endpipeline, where it is counted.
                conn.pipeline_push(id, params).await.map_err(|e| located(e, path, line))?;
                None
            } else if sql.into.is_some() {
                Some(conn.exec_rows(id, params).await.map_err(|e| located(e, path, line))?)
            } else {
                let class = conn.exec(id, params).await.map_err(|e| located(e, path, line))?;
                q.add(class);
                None
            }
        };
        if let (Some(rows), Some(into)) = (rows, &sql.into) {
            q.add(Class::Read);
            if !into.aset && rows.len() != 1 {
                return Err(script_error(path, line, format!("\\gset expects one row, got {}", rows.len())));
            }
            for row in &rows {
                for (k, &slot) in into.slots.iter().enumerate() {
                    let v = row.get(k).cloned().flatten();
                    c.vars[slot] = Some(v.map(Value::Str).unwrap_or(Value::Null));
                }
            }
        }
        if sql.trx {
            q.trx += 1;
            let w = sql.bound.trim_start().get(..5).unwrap_or("").to_ascii_lowercase();
            c.in_trx = w.starts_with("begin") || w.starts_with("start");
        }
        Ok(())
    }

    /// Sleeps `us` microseconds, waking each second to notice the run's end
    /// (Ctrl-C); false when it ended.
    async fn sleep(us: i64) -> bool {
        let until = Instant::now() + Duration::from_micros(us.max(0) as u64);
        loop {
            if crate::model::INTERRUPTED.load(Ordering::Relaxed) {
                return false;
            }
            let now = Instant::now();
            if now >= until {
                return true;
            }
            crate::timer::sleep((until - now).min(Duration::from_secs(1))).await;
        }
    }
}

/// What a query mode cannot send, refused before the run in one line, where pgbench aborts the
/// client when it gets there: a pipeline in the simple protocol, and statements joined by `\;`
/// in the extended ones (a prepared statement holds one).
fn refuse_for_protocol(scripts: &[Script], mode: QueryMode) -> Result<()> {
    for s in scripts {
        for c in &s.commands {
            match &c.cmd {
                Cmd::Pipeline(Pipe::Start) if mode == QueryMode::Simple => {
                    return Err(usage!("{}: cannot use pipeline mode with the simple query protocol: run with -M extended or -M prepared", script::at(&s.path, c.line, "\\startpipeline")));
                }
                Cmd::Sql(q) if q.compound && mode != QueryMode::Simple => {
                    return Err(usage!(
                        "{}: statements joined by \\; go to the server as one request, which only the simple query protocol takes: run with -M simple, or end each with its own ;",
                        script::at(&s.path, c.line, "\\;")
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

fn script_error(path: &str, line: usize, msg: impl std::fmt::Display) -> DbError {
    DbError { kind: ErrKind::Fatal, code: String::new(), message: script::at(path, line, msg) }
}

/// A fatal SQL error says which script line sent the statement.
fn located(mut e: DbError, path: &str, line: usize) -> DbError {
    if e.kind == ErrKind::Fatal {
        e.message = script::at(path, line, &e.message);
    }
    e
}

impl Workload for PgScripts {
    type Client = PgClient;

    fn statements(&self) -> Arc<StatementSet> {
        self.set.clone()
    }

    fn new_client(&self, id: usize, _clients: usize) -> PgClient {
        let base = crate::rand::seed_or_entropy(self.seed);
        let stream = base.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (id as u64 + 1);
        let mut vars = vec![None; self.names.list.len()];
        vars[self.slot_client_id] = Some(Value::Int(id as i64));
        vars[self.slot_scale] = Some(Value::Int(self.scale()));
        vars[self.slot_default_seed] = Some(Value::Int(base as i64));
        vars[self.slot_random_seed] = Some(Value::Int(base as i64));
        for (slot, v) in &self.defines {
            vars[*slot] = Some(v.clone());
        }
        let (rng, choose) = (PgRng::new(stream), PgRng::new(stream ^ 0x5555_5555));
        PgClient { vars, saved: (rng.clone(), choose.clone()), rng, choose, text: String::with_capacity(256), strs: Vec::new(), in_trx: false, piping: false, at: (0, 0) }
    }

    async fn event(&self, conn: &mut Conn, c: &mut PgClient, q: &mut Counters, retry: bool) -> DbResult<()> {
        if retry {
            (c.rng, c.choose) = c.saved.clone();
        } else {
            c.saved = (c.rng.clone(), c.choose.clone());
        }
        let si = self.choose(c);
        q.kind = si;
        let s = &self.scripts[si];
        let mut pc = 0;
        let steps = self.step_of.as_ref().map(|v| &v[si]);
        while let Some(cmd) = s.commands.get(pc) {
            c.at = (si, cmd.number);
            let step = steps.and_then(|v| v[pc]);
            let began = step.map(|i| {
                q.at_step = Some(i);
                Instant::now()
            });
            pc += 1;
            match &cmd.cmd {
                Cmd::Sql(sql) => self.run_sql(conn, c, q, sql, &s.path, cmd.line).await?,
                Cmd::Set(slot, e) => {
                    let v = e.eval(&mut Env { vars: &c.vars, names: &self.names.list, rng: &mut c.rng }).map_err(|m| script_error(&s.path, cmd.line, format!("\\set: {m}")))?;
                    c.vars[*slot] = Some(v);
                }
                Cmd::If(e, to) => {
                    let v = e.eval(&mut Env { vars: &c.vars, names: &self.names.list, rng: &mut c.rng }).map_err(|m| script_error(&s.path, cmd.line, format!("\\if: {m}")))?;
                    if !v.truth() {
                        pc = *to;
                    }
                }
                Cmd::Goto(to) => pc = *to,
                Cmd::Pipeline(Pipe::Start) => {
                    conn.pipeline_start().map_err(|e| located(e, &s.path, cmd.line))?;
                    c.piping = true;
                }
                Cmd::Pipeline(Pipe::Sync) => conn.pipeline_sync().map_err(|e| located(e, &s.path, cmd.line))?,
                Cmd::Pipeline(Pipe::End) => {
                    c.piping = false;
                    for class in conn.pipeline_end().await.map_err(|e| located(e, &s.path, cmd.line))? {
                        q.add(class);
                    }
                }
                Cmd::Sleep(arg, unit) => {
                    let us = match arg {
                        SleepArg::Const(us) => *us,
                        SleepArg::Var(i) => {
                            let n = match c.vars[*i].clone() {
                                Some(Value::Int(n)) => n,
                                Some(Value::Str(t)) => t.trim().parse::<i64>().map_err(|_| script_error(&s.path, cmd.line, format!("\\sleep: \"{t}\" is not an integer")))?,
                                Some(v) => return Err(script_error(&s.path, cmd.line, format!("\\sleep: {v:?} is not an integer"))),
                                None => return Err(script_error(&s.path, cmd.line, format!("\\sleep: undefined variable \"{}\"", self.names.list[*i]))),
                            };
                            n.saturating_mul(*unit as i64)
                        }
                    };
                    if !Self::sleep(us).await {
                        q.ended = true;
                        return Ok(());
                    }
                }
            }
            if let (Some(i), Some(t)) = (step, began) {
                q.step(i, t.elapsed().as_micros() as u64);
            }
        }
        Ok(())
    }

    async fn after_error(&self, conn: &mut Conn, c: &mut PgClient) {
        // A pipeline the error ended is dropped with what it queued (the next one starts empty).
        c.piping = false;
        if c.in_trx {
            let _ = conn.query("ROLLBACK").await;
            c.in_trx = false;
        }
    }

    /// pgbench chooses the script before it finds the transaction too late to send.
    fn skipped_kind(&self, c: &mut PgClient) -> usize {
        self.choose(c)
    }

    /// Under pgbench's report, pgbench's two lines: the error where the client met it, then
    /// whether the transaction is tried again.
    fn error_report(&self, c: &PgClient, e: &crate::db::DbError, t: &crate::workload::TryReport) -> Option<String> {
        self.report.as_ref()?;
        let what = if t.give_up { "ends the failed transaction" } else { "repeats the transaction after the error" };
        let mut out =
            format!("pgbench: client {} got an error in command {} (SQL) of script {}; ERROR:  {}\npgbench: client {} {what} (try {}", t.client, c.at.1, c.at.0, e.message, t.client, t.tried);
        if t.max_tries > 0 {
            out.push_str(&format!("/{}", t.max_tries));
        }
        if let Some(p) = t.limit_used_pct {
            out.push_str(&format!(", {p:.3}% of the maximum time of tries was used"));
        }
        out.push(')');
        Some(out)
    }

    fn reconnect_every(&self) -> u64 {
        self.reconnect
    }

    fn steps(&self) -> &'static [&'static str] {
        self.step_names
    }

    fn kinds(&self) -> &'static [&'static str] {
        if self.scripts.len() > 1 {
            self.kinds
        } else {
            &[]
        }
    }

    fn label(&self, cfg: &ConnConfig) -> String {
        let opts = self.options(cfg);
        let get = |n: &str| opts.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        family::label(&self.workload, &get)
    }

    fn options(&self, cfg: &ConnConfig) -> Vec<(String, String)> {
        let join = |f: &dyn Fn(&Script) -> String| self.scripts.iter().map(f).collect::<Vec<_>>().join(",");
        let mut v = vec![
            ("script".to_string(), join(&|s| s.path.clone())),
            ("script-sha256".to_string(), join(&|s| s.sha256.clone())),
            ("script-weights".to_string(), join(&|s| s.weight.to_string())),
            ("protocol".to_string(), self.query_mode.name().to_string()),
            ("db-ps-mode".to_string(), if self.query_mode == QueryMode::Simple { "disable" } else { "auto" }.to_string()),
            ("scale".to_string(), self.scale().to_string()),
            ("transport".to_string(), cfg.target.transport().to_string()),
        ];
        if self.reconnect > 0 {
            // A connection per transaction (pgbench's -C) measures connecting as much as the script.
            v.push(("reconnect".to_string(), self.reconnect.to_string()));
        }
        if !self.defines.is_empty() {
            // One option holding every NAME=VALUE, as records keep one value per name.
            let defs: Vec<String> = self
                .defines
                .iter()
                .map(|(slot, val)| {
                    let mut s = String::new();
                    val.write_text(&mut s);
                    format!("{}={s}", self.names.list[*slot])
                })
                .collect();
            v.push(("define".to_string(), defs.join(",")));
        }
        v
    }
}

impl Witnessed for PgScripts {}

impl Levels for PgScripts {
    async fn run_started(&self, cfg: &Arc<ConnConfig>, _rc: &crate::model::RunControl) -> Result<()> {
        self.detect_scale(cfg).await?;
        self.before_run(cfg).await
    }

    fn sink(&self, json: bool, percentile: u32, standard: &'static dyn crate::output::StandardOutput) -> Option<Box<dyn crate::model::Sink>> {
        let spec = self.report.clone().filter(|_| !json)?;
        let scripts = self.scripts.iter().map(|s| (report::describe(&s.path), s.weight)).collect();
        // pgbench's -r: each script's listed commands, by step.
        let commands = self.step_of.as_ref().map(|of| of.iter().map(|v| v.iter().flatten().map(|&i| (i, self.step_names[i].to_string())).collect()).collect());
        let pgbench = report::PgbenchSink { standard: standard.console(json, percentile), spec, scripts, commands, query_mode: self.query_mode.name(), found: self.found.clone() };
        Some(Box::new(pgbench))
    }
}

impl Checked for PgScripts {}
