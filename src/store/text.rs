//! Stored runs as text: the `results list` table and `results show`.

use super::{io, load, open};
use crate::error::Result;
use crate::model::record::RunRecord;
use std::path::Path;

/// One line of `results list`: what a run was and how it ended.
#[derive(serde::Serialize)]
pub struct Listed {
    pub id: i64,
    pub started_at: String,
    /// `unfinished` for a record left `running` by a process that is gone.
    pub status: String,
    pub engine: String,
    pub threads: Vec<usize>,
    pub tps: Vec<f64>,
    pub label: String,
    pub tag: String,
}

/// Every stored run, in id order, as `results list` shows it.
pub fn listed(path: &Path) -> Result<Vec<Listed>> {
    let c = open(path, false)?;
    let mut st = c.prepare("SELECT id FROM runs ORDER BY id").map_err(|e| io(path, e))?;
    let ids: Vec<i64> = st.query_map([], |r| r.get(0)).and_then(|m| m.collect()).map_err(|e| io(path, e))?;
    let mut out = Vec::new();
    for id in ids {
        let Some(r) = load(&c, id, false).map_err(|e| io(path, e))? else { continue };
        let status = if r.status == "running" && !r.still_running() { "unfinished".to_string() } else { r.status.clone() };
        out.push(Listed {
            id: r.id,
            started_at: r.started_at.clone(),
            status,
            engine: r.engine.clone(),
            threads: r.levels.iter().map(|l| l.threads).collect(),
            tps: r.levels.iter().map(|l| l.tps).collect(),
            label: r.label.clone(),
            tag: r.tag.clone(),
        });
    }
    Ok(out)
}

pub fn list_text(path: &Path) -> Result<String> {
    let mut o = format!("{:>5}  {:<24}  {:<11}  {:<8}  {:<10}  {:>12}  {}\n", "id", "started", "status", "engine", "threads", "tps", "label");
    for r in listed(path)? {
        let tps: Vec<String> = r.tps.iter().map(|t| format!("{t:.1}")).collect();
        let threads: Vec<String> = r.threads.iter().map(|t| t.to_string()).collect();
        let tag = if r.tag.is_empty() { String::new() } else { format!(" [{}]", r.tag) };
        o.push_str(&format!("{:>5}  {:<24}  {:<11}  {:<8}  {:<10}  {:>12}  {}{}\n", r.id, r.started_at, r.status, r.engine, threads.join(","), tps.join(","), r.label, tag));
    }
    Ok(o)
}

/// `--name=value` as a shell word: a value with spaces, quotes or shell
/// characters is single-quoted, so the line can be pasted back.
pub fn option_arg(name: &str, value: &str) -> String {
    let plain = value.chars().all(|c| c.is_ascii_alphanumeric() || "_-.,:/@%+=".contains(c));
    if plain {
        format!("--{name}={value}")
    } else {
        format!("--{name}='{}'", value.replace('\'', "'\\''"))
    }
}

/// `words` after `head`, as shell lines of at most `width` columns joined
/// by a trailing backslash (a word longer than that has a line of its own),
/// so the options still paste back into a shell as one command line.
fn shell_lines(head: &str, words: &[String], width: usize) -> Vec<String> {
    let mut lines = vec![head.to_string()];
    for w in words {
        let last = lines.last_mut().expect("one line at least");
        // Room for " word" and, should more follow, " \".
        if last.chars().count() + 1 + w.chars().count() + 2 <= width || last.trim().is_empty() {
            last.push(' ');
            last.push_str(w);
        } else {
            last.push_str(" \\");
            lines.push(format!("  {w}"));
        }
    }
    lines
}

pub fn show_text(r: &RunRecord) -> String {
    let mut o = String::new();
    let mut p = |l: String| {
        o.push_str(&l);
        o.push('\n');
    };
    p(format!("Run {} ({}): {}", r.id, r.kind, r.label));
    if !r.tag.is_empty() {
        p(format!("Tag: {}", r.tag));
    }
    p(format!("Status: {}", r.status_text()));
    p(format!("Workload: {} on {} ({}, {})", r.workload, r.target, r.engine, r.transport));
    p(format!("Started: {}  Ended: {}", r.started_at, r.ended_at.as_deref().unwrap_or("-")));
    p(format!("fairbench {} on {} (pid {})", r.tool_version, r.hostname, r.pid));
    let opts: Vec<String> = r.options.pairs().iter().map(|(k, v)| option_arg(k, v)).collect();
    for line in shell_lines("Options:", &opts, crate::columns::width()) {
        p(line);
    }
    if let Some(w) = &r.writes {
        p(writes_line(w));
    }
    if let Some(e) = &r.env_start {
        let d = crate::env::durability::durability(&e.server);
        let (fit, why) = crate::audit::memory_fit(&e.server);
        p(format!("Server: {} {}", e.server.engine, e.server.version));
        if let Some(o) = &e.server.origin {
            p(format!("  build: {o}"));
        }
        if let Some(b) = &e.server.binary {
            p(format!("  executable: {b}"));
        }
        for t in crate::db::catalog::lines(&e.server.tables) {
            p(format!("  {t}"));
        }
        if let Some(t) = crate::env::tls_text(&e.server) {
            p(format!("  connection: {t}"));
        }
        if let Some(pl) = &e.server.pooler {
            p(format!("  {pl}"));
        }
        if let Some(sh) = &e.server.sharding {
            p(format!("  sharding: {sh}"));
        }
        if let Some(sb) = crate::env::standby_text(&e.server) {
            p(format!("  {sb}"));
        }
        p(format!("  durability: {} [{}]", d.class.name(), d.evidence.join(", ")));
        p(format!("  memory fit: {} ({why})", fit.name()));
        p(format!("Client: {} x {}, {} CPUs available, kernel {}", e.host.cpus, e.host.cpu_model, e.host.cpus_available, e.host.kernel));
    }
    let cpu_of = if r.transport == "embedded" { "client+engine CPU" } else { "client CPU" };
    let repeat = r.repeat();
    for (i, l) in r.levels.iter().enumerate() {
        p(String::new());
        // A series' repetitions say which one each level is.
        let rep = if repeat > 1 { format!(", repetition {} of {repeat}", r.levels[..=i].iter().filter(|x| x.threads == l.threads).count()) } else { String::new() };
        p(format!(
            "Level {} ({}{rep}, {}): {:.2} tps, {:.2} qps ({:.2} without BEGIN/COMMIT), p95 {:.2} ms, p99 {:.2} ms, {cpu_of} {:.2} cores, {:.1} s",
            l.level_no,
            l.heading(),
            if l.ended_at.is_none() { "not finished".to_string() } else { l.status.clone() },
            l.tps,
            l.qps,
            l.qps_no_trx,
            l.p95_ms,
            l.p99_ms,
            l.cpu_cores,
            l.elapsed_s
        ));
        let figures = l.figures();
        if !figures.is_empty() {
            p(format!("  {}", figures.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join(", ")));
        }
        if let Some(o) = &l.outage {
            // p99 per kind is not stored: a kind's line needs a gap of 1 s.
            for line in o.lines(o.write.is_some() || l.intervals.iter().any(|i| i.writes > 0), |_, g| g.secs >= 1.0) {
                p(format!("  {line}"));
            }
        }
        for i in &l.intervals {
            let s = i.secs.max(1e-9);
            p(format!(
                "  [ {:.0}s ]{} tps: {:.2} qps: {:.2} lat (ms,95%): {:.2} err/s: {:.2} cpu: {:.2}",
                i.t,
                if i.warmup { " (warmup)" } else { "" },
                i.events as f64 / s,
                (i.reads + i.writes + i.other) as f64 / s,
                i.p95_ms,
                i.errors as f64 / s,
                i.cpu_s / s
            ));
        }
        if let Some((per_trx, miss)) = crate::audit::level_reads(l) {
            p(format!("  physical reads: {per_trx:.2} per transaction, {:.2}% of page requests missed the cache", miss * 100.0));
        }
    }
    p(String::new());
    let eff = crate::model::efficiency::text(r, &crate::model::efficiency::of_run(r));
    if !eff.is_empty() {
        o.push_str(&eff);
        o.push('\n');
    }
    o.push_str(&crate::audit::findings_text(&r.findings));
    crate::columns::wrap(&o)
}

/// The one line that sums up a `--verify-writes` verdict (its JSON object).
pub fn writes_line(w: &serde_json::Value) -> String {
    let n = |k: &str| w[k].as_u64().unwrap_or(0);
    format!("Writes verified: {} acknowledged, {} lost, {} ambiguous ({} committed)", n("acknowledged"), n("lost"), n("ambiguous"), n("ambiguous_committed"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn options_wrap_at_the_width_and_paste_back_as_one_line() {
        let words: Vec<String> = (0..30).map(|i| format!("--option-{i}=value")).chain(["--long=".to_string() + &"x".repeat(90)]).collect();
        let lines = super::shell_lines("Options:", &words, 80);
        assert!(lines.len() > 5, "{lines:?}");
        for l in &lines[..lines.len() - 1] {
            assert!(l.chars().count() <= 80 && l.ends_with(" \\"), "{l:?}");
        }
        let joined = lines.join("\n").replace(" \\\n  ", " ");
        assert_eq!(joined, format!("Options: {}", words.join(" ")));
    }
}
