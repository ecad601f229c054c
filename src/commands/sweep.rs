//! `fairbench sweep`: a server per version (or a running server per URL),
//! the same data prepared on each, then every run of the plan with its
//! repetitions alternated across the versions, each run a process of this
//! binary as `run` alternates configurations. The table is built from the
//! store at the end, so `--show` prints it again and `--resume` finishes an
//! interrupted sweep.

use super::alternate::run_child;
use crate::cli::SweepArgs;
use crate::error::{exit, Error, Result};
use crate::server::builds::Build;
use crate::server::{self, profile, Kind, Sandbox, StartOpts};
use crate::sweep::{self, store, table, SweepPlan, Version};
use crate::usage;
use crate::workload::family::{self, PresetRun};
use serde::Deserialize;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// How long a server may take to shut down cleanly before it is killed.
const STOP_LIMIT: Duration = Duration::from_secs(60);
/// Warm-up each run gets unless the options give one.
const WARMUP: &str = "--warmup-time=5";

pub fn sweep(mut a: SweepArgs) -> Result<()> {
    let path = a.store.results.clone();
    if let Some(tag) = &a.show {
        return print(&path, &store::load(&path, tag)?, &a);
    }
    if let Some(file) = a.engine.clone().filter(|e| e.ends_with(".toml") || Path::new(e).is_file()) {
        from_file(&mut a, Path::new(&file))?;
    }
    let (plan, resolved) = match &a.resume {
        Some(tag) => (store::load(&path, tag)?, None),
        None => {
            let plan = plan_of(&a)?;
            if store::exists(&path, &plan.tag)? {
                return Err(usage!("a sweep named '{}' is stored already: --resume {} goes on with it, --tag names a new one", plan.tag, plan.tag));
            }
            // Every version is fetched (or found in the cache) before anything
            // is stored, so one that does not exist ends the sweep at once.
            let resolved = builds(&plan)?;
            store::save(&path, &plan)?;
            (plan, Some(resolved))
        }
    };
    let todo = to_do(&plan, &path)?;
    let total = plan.order().len();
    let say = |line: String| if a.format == crate::output::CompareFormat::Text { println!("{line}") } else { eprintln!("{line}") };
    say(format!(
        "Sweep {}: {} version{} x {} run{} x {} repetition{} ({total} runs, {} to go; Ctrl-C keeps what finished: `fairbench sweep --resume {}`)",
        plan.tag,
        plan.versions.len(),
        plural(plan.versions.len()),
        plan.runs.len(),
        plural(plan.runs.len()),
        plan.repeat,
        plural(plan.repeat),
        todo.len(),
        plan.tag
    ));
    for n in &plan.notes {
        say(format!("note: {n}"));
    }
    let mut failed = Vec::new();
    if !todo.is_empty() {
        let builds = match resolved {
            Some(b) => b,
            None => builds(&plan)?,
        };
        let mut servers = Servers { up: Vec::new(), builds, timeout: Duration::from_secs(a.timeout.max(1)) };
        let r = servers.run(&plan, &todo, &path, &say, &mut failed, total - todo.len());
        servers.stop_all();
        if let Err(e) = r {
            if matches!(e, Error::Interrupted) {
                let stored = total - to_do(&plan, &path)?.len();
                say(format!("Interrupted: {stored} of {total} runs stored. Go on with: fairbench sweep --resume {}{}", plan.tag, results_option(&path)));
            }
            return Err(e);
        }
    }
    print(&path, &plan, &a)?;
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Error::Sql(format!("{} run{} failed: {} (the table leaves them out; their own output above says why)", failed.len(), plural(failed.len()), failed.join(", "))))
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `--results PATH` when the store is not the default one, for the resume line.
fn results_option(path: &Path) -> String {
    if path == Path::new(crate::model::record::DEFAULT_STORE_PATH) {
        String::new()
    } else {
        format!(" --results {}", path.display())
    }
}

/// Runs of the plan not stored yet, in the order they go: (run, repetition, version).
fn to_do(plan: &SweepPlan, path: &Path) -> Result<Vec<(usize, usize, usize)>> {
    let done = store::completed(path, &plan.tag)?;
    let stored = |v: usize, r: usize| done.get(&plan.tag_of(v, r)).copied().unwrap_or(0);
    Ok(plan.order().into_iter().filter(|&(r, rep, v)| stored(v, r) <= rep).collect())
}

fn print(path: &Path, plan: &SweepPlan, a: &SweepArgs) -> Result<()> {
    let t = table::build(path, plan)?;
    print!("{}", crate::view::format::sweep(a.format, &t));
    if let Some(to) = &a.html {
        crate::view::format::sweep_page(&t, to)?;
        eprintln!("wrote {}", to.display());
    }
    Ok(())
}

/// The sweep the options ask for.
fn plan_of(a: &SweepArgs) -> Result<SweepPlan> {
    let engine = a.engine.clone().ok_or_else(|| usage!("sweep: name the engine (fairbench sweep postgres --versions 16,17 --preset NAME), or --resume / --show a stored sweep"))?;
    if a.versions.is_empty() {
        return Err(usage!("sweep: give --versions, the base first (--versions 16,17,system)"));
    }
    // Running servers given by URL need no sandbox of the engine's kind.
    let all_targets = a.versions.iter().all(|v| matches!(Version::parse(v), Version::Target(_)));
    let engine = match Kind::parse(&engine) {
        Ok(k) => k.name().to_string(),
        Err(_) if all_targets => engine,
        Err(e) => return Err(e),
    };
    if a.repeat == 0 {
        return Err(usage!("--repeat=0: give at least 1 (3 or more for the table to tell a change from the noise)"));
    }
    let keys = sweep::keys(&a.versions);
    let base = match &a.base {
        None => 0,
        Some(b) => keys.iter().position(|k| k == b).ok_or_else(|| usage!("--base {b}: not one of --versions ({})", keys.join(", ")))?,
    };
    let sandboxes = keys.iter().filter(|k| !matches!(Version::parse(k), Version::Target(_))).count().max(1);
    let ram = match &a.ram {
        Some(r) => profile::parse_size(r)?,
        None => profile::this_machine().ram / sandboxes as u64,
    };
    let mut notes = Vec::new();
    if a.ram.is_none() && sandboxes > 1 {
        notes.push(format!("{sandboxes} servers run side by side: each is sized for {} (--ram chooses)", crate::units::human_bytes(ram as f64)));
    }
    let (preset, prepare, mut runs) = match (&a.preset, a.workloads.is_empty()) {
        (Some(_), false) => return Err(usage!("--preset and --workload: give one (a ready list, or runs of your own)")),
        (None, true) => return Err(usage!("sweep: give --preset ({}) or one --workload per run", family::preset_names())),
        (Some(name), true) => {
            let p = family::preset(name, ram)?;
            notes.extend(p.notes.iter().filter(|_| !a.options.iter().any(|o| o.starts_with("--table-size") || o.starts_with("--rows"))).cloned());
            (Some(p.name), p.prepare, p.runs)
        }
        (None, false) => {
            let runs: Vec<PresetRun> = a.workloads.iter().map(|w| PresetRun::new(&w.split_whitespace().collect::<Vec<_>>().join("_"), w)).collect();
            (None, a.prepare.as_deref().map(|p| p.split_whitespace().map(String::from).collect()).unwrap_or_default(), runs)
        }
    };
    if !a.only.is_empty() {
        if let Some(o) = a.only.iter().find(|o| !runs.iter().any(|r| &r.name == *o)) {
            return Err(usage!("--only {o}: no such run; the runs are {}", runs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().join(", ")));
        }
        runs.retain(|r| a.only.contains(&r.name));
    }
    for r in &mut runs {
        r.args.push(WARMUP.into());
    }
    Ok(SweepPlan {
        tag: a.tag.clone().unwrap_or_else(|| format!("sweep-{engine}-{}", crate::units::now_rfc3339())),
        engine,
        versions: keys,
        base,
        preset,
        prepare,
        runs,
        repeat: a.repeat,
        options: a.options.clone(),
        profile: a.profile.clone(),
        sets: a.sets.clone(),
        ram_per_server: ram,
        notes,
    })
}

/// A sweep file: the options of the command line as TOML keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepFile {
    engine: String,
    versions: Vec<String>,
    base: Option<String>,
    preset: Option<String>,
    #[serde(default)]
    only: Vec<String>,
    #[serde(default)]
    workloads: Vec<String>,
    prepare: Option<String>,
    repeat: Option<usize>,
    profile: Option<String>,
    #[serde(default)]
    set: Vec<String>,
    ram: Option<String>,
    tag: Option<String>,
    #[serde(default)]
    options: Vec<String>,
}

fn from_file(a: &mut SweepArgs, p: &Path) -> Result<()> {
    let text = std::fs::read_to_string(p).map_err(|e| Error::Io(format!("cannot read {}: {e}", p.display())))?;
    let f: SweepFile = toml::from_str(&text).map_err(|e| usage!("{}: {}", p.display(), crate::error::one_line(&e.to_string())))?;
    a.engine = Some(f.engine);
    a.versions = f.versions;
    a.base = f.base.or(a.base.take());
    a.preset = f.preset.or(a.preset.take());
    a.only.extend(f.only);
    a.workloads.extend(f.workloads);
    a.prepare = f.prepare.or(a.prepare.take());
    a.repeat = f.repeat.unwrap_or(a.repeat);
    a.profile = f.profile.unwrap_or(a.profile.clone());
    a.sets.extend(f.set);
    a.ram = f.ram.or(a.ram.take());
    a.tag = a.tag.take().or(f.tag);
    a.options = f.options.into_iter().chain(a.options.drain(..)).collect();
    Ok(())
}

/// Each version's build: fetched (or found in the cache), a directory, or
/// none (the installed one, a running server).
fn builds(plan: &SweepPlan) -> Result<Vec<Option<Build>>> {
    plan.versions
        .iter()
        .map(|key| match Version::parse(key) {
            Version::Fetch(v) => Kind::parse(&plan.engine)?.fetch(&v).map(Some),
            Version::Basedir(d) => server::builds::basedir(Path::new(&d)).map(Some),
            Version::System | Version::Target(_) => Ok(None),
        })
        .collect()
}

/// The servers of the versions that still have runs to do, stopped at the end.
struct Servers {
    up: Vec<(usize, String, Option<Sandbox>)>,
    /// Each version's build, taken as its server starts.
    builds: Vec<Option<Build>>,
    /// How long each server may take to start (`--timeout`).
    timeout: Duration,
}

impl Servers {
    fn url(&self, v: usize) -> &str {
        self.up.iter().find(|(i, ..)| *i == v).map(|(_, u, _)| u.as_str()).unwrap_or_default()
    }

    fn start(&mut self, plan: &SweepPlan, v: usize, say: &dyn Fn(String)) -> Result<()> {
        let key = &plan.versions[v];
        if let Version::Target(url) = Version::parse(key) {
            say(format!("{key}: the server at {}", crate::db::Target::parse(&url).map(|t| t.to_string()).unwrap_or_else(|_| url.clone())));
            self.up.push((v, url, None));
            return Ok(());
        }
        let mut machine = profile::this_machine();
        machine.ram = plan.ram_per_server;
        let o = StartOpts {
            kind: Kind::parse(&plan.engine)?,
            profile: plan.profile.clone(),
            sets: super::server::parse_sets(&plan.sets.iter().cloned().chain(sweep::settings(key)).collect::<Vec<_>>())?,
            port: None,
            dir: None,
            user: "fairbench".into(),
            password: "fairbench".into(),
            database: "fairbench".into(),
            machine,
            tls_dir: None,
            tls_only_user: None,
            timeout: self.timeout,
            kind_args: Default::default(),
            build: self.builds[v].take(),
        };
        let sb = server::start(&o)?;
        say(format!("{key}: {} {} on port {}, profile {}{}", sb.kind, sb.version, sb.port, sb.profile, sb.origin.as_ref().map(|o| format!(", {o}")).unwrap_or_default()));
        for n in &sb.notes {
            say(format!("  note: {n}"));
        }
        self.up.push((v, sb.url.clone(), Some(sb)));
        Ok(())
    }

    /// Stops every server at once; after Ctrl-C each gets 400 ms to shut
    /// down cleanly before it is killed, so the sweep ends within 2 s.
    fn stop_all(&mut self) {
        let limit = if crate::model::interrupted() { Duration::from_millis(400) } else { STOP_LIMIT };
        let up: Vec<Sandbox> = self.up.drain(..).filter_map(|(_, _, sb)| sb).collect();
        std::thread::scope(|s| {
            for sb in &up {
                s.spawn(move || {
                    if let Err(e) = server::stop(sb, limit) {
                        eprintln!("fairbench: {e}");
                    }
                });
            }
        });
    }

    /// Starts the servers, prepares each, and runs `todo` in order.
    fn run(&mut self, plan: &SweepPlan, todo: &[(usize, usize, usize)], path: &Path, say: &dyn Fn(String), failed: &mut Vec<String>, mut done: usize) -> Result<()> {
        let total = plan.order().len();
        let mut versions: Vec<usize> = todo.iter().map(|t| t.2).collect();
        versions.sort_unstable();
        versions.dedup();
        for &v in &versions {
            if crate::model::interrupted() {
                return Err(Error::Interrupted);
            }
            self.start(plan, v, say)?;
        }
        let exe = std::env::current_exe().map_err(|e| Error::Io(format!("cannot find this program to run each step: {e}")))?;
        let store = ["--results".to_string(), path.display().to_string()];
        if !plan.prepare.is_empty() {
            for &v in &versions {
                let args = plan.args_of(&plan.prepare);
                say(format!("prepare on {}: {}", plan.versions[v], args.join(" ")));
                let mut cmd = Command::new(&exe);
                cmd.arg("prepare").args(args).args(["--target", self.url(v)]).args(&store).stdout(Stdio::null());
                match run_child(&mut cmd)? {
                    0 => {}
                    exit::INTERRUPTED => return Err(Error::Interrupted),
                    code => return Err(Error::Sql(format!("prepare on {} stopped with exit code {code}: the sweep cannot compare versions without the same data", plan.versions[v]))),
                }
            }
        }
        for &(r, rep, v) in todo {
            if crate::model::interrupted() {
                return Err(Error::Interrupted);
            }
            let run = &plan.runs[r];
            let tag = plan.tag_of(v, r);
            let mut cmd = Command::new(&exe);
            cmd.arg("run").args(plan.args_of(&run.args)).args(["--target", self.url(v), "--tag", &tag]).args(&store);
            // One line per run here; each run's own report would bury them.
            cmd.stdout(Stdio::null());
            let code = run_child(&mut cmd)?;
            done += 1;
            let head = format!("[{done}/{total}] {} on {}, repetition {} of {}", run.name, plan.versions[v], rep + 1, plan.repeat);
            match code {
                0 => say(format!("{head}: {}", store::last_tps(path, &tag)?.map(|t| format!("{t:.1} ops/s")).unwrap_or_else(|| "stored".into()))),
                exit::INTERRUPTED => return Err(Error::Interrupted),
                code => {
                    say(format!("{head}: failed with exit code {code}; the sweep goes on"));
                    failed.push(format!("{} on {}", run.name, plan.versions[v]));
                }
            }
        }
        Ok(())
    }
}
