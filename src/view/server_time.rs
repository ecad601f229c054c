//! The report's "Where the server's time went": per run and level, the
//! server's time per transaction by wait class beside the first run's
//! (the ratio in brackets), its largest waits by name, the statements
//! that took the most, and the on-CPU flame graph when the run was
//! profiled (`--profile-server`), with the differential one against the
//! first run's.

use super::html::ReportRun;
use crate::db::waits::CLASSES;
use crate::live::chart::esc;
use crate::model::efficiency::{of_run, with_ratio, Efficiency};
use std::fmt::Write;

/// How many statements each level lists.
const STATEMENTS: usize = 5;

pub fn section(o: &mut String, runs: &[ReportRun]) {
    let said = waits(o, runs);
    flames(o, runs, said);
}

const HEADING: &str = "<h2 id=\"server-time\">Where the server's time went</h2>";

/// The waits and statements; whether there were any.
fn waits(o: &mut String, runs: &[ReportRun]) -> bool {
    let all: Vec<(&ReportRun, Vec<Efficiency>)> =
        runs.iter().map(|r| (r, of_run(&r.rec).into_iter().filter(|e| e.server_time.is_some() || !e.statements.is_empty()).collect::<Vec<_>>())).filter(|(_, e)| !e.is_empty()).collect();
    if all.is_empty() {
        return false;
    }
    // Only the classes some level spent time in.
    let classes: Vec<_> = CLASSES.iter().filter(|c| all.iter().flat_map(|(_, es)| es).any(|e| e.server_time.as_ref().is_some_and(|t| t.of_class(**c) > 0.0))).collect();
    o.push_str(HEADING);
    o.push_str("<p class=\"legend-note\">Server time per transaction by what its sessions waited on, µs, over each level's measured time; in brackets the ratio to the first run's at the same threads; a dash: none seen. PostgreSQL's sessions are sampled ten times a second (CPU: active without a wait); MariaDB's and MySQL's figures are performance_schema's timers, and their CPU is the hardware table's.</p>");
    if !classes.is_empty() {
        o.push_str("<table class=\"server-time\"><tr><th>run</th><th class=n>threads</th>");
        for c in &classes {
            let _ = write!(o, "<th class=n>{}</th>", esc(c.name()));
        }
        o.push_str("<th>largest waits</th></tr>");
        let base = &all[0].1;
        for (r, levels) in &all {
            for e in levels.iter().filter(|e| e.server_time.is_some()) {
                let t = e.server_time.as_ref().expect("filtered");
                let b = base.iter().find(|b| b.threads == e.threads).and_then(|b| b.server_time.as_ref());
                let _ = write!(o, "<tr data-run=\"{}\"><td>{}</td><td class=n>{}</td>", r.rec.id, r.rec.id, e.threads);
                for c in &classes {
                    let _ = write!(o, "<td class=n>{}</td>", with_ratio(t.class(**c), b.and_then(|b| b.class(**c)), r.rec.id == all[0].0.rec.id));
                }
                let top: Vec<String> = t.top.iter().take(3).map(|w| format!("{} {:.1}", esc(&w.event), w.us_per_trx)).collect();
                let _ = write!(o, "<td>{}</td></tr>", top.join(", "));
            }
        }
        o.push_str("</table>");
    }
    for (r, levels) in &all {
        for e in levels.iter().filter(|e| !e.statements.is_empty()) {
            let _ = write!(
                o,
                "<h3>Top statements of run {} at {} threads</h3><table class=\"statements\"><tr><th class=n>calls/t</th><th class=n>mean µs</th><th class=n>µs/t</th><th>per call</th><th>statement</th></tr>",
                r.rec.id, e.threads
            );
            for s in e.statements.iter().take(STATEMENTS) {
                let per: Vec<String> = s.per_call.iter().filter(|(_, v)| **v > 0.0).map(|(k, v)| format!("{} {v:.2}", esc(k))).collect();
                let _ = write!(
                    o,
                    "<tr><td class=n>{:.2}</td><td class=n>{:.1}</td><td class=n>{:.1}</td><td>{}</td><td><code>{}</code></td></tr>",
                    s.calls_per_trx,
                    s.mean_us,
                    s.us_per_trx,
                    per.join(", "),
                    esc(&s.text)
                );
            }
            o.push_str("</table>");
        }
    }
    true
}

/// A level's folded stacks, when it was profiled and perf caught any.
fn folded(r: &ReportRun, threads: usize) -> Option<&str> {
    r.rec.levels.iter().find(|l| l.threads == threads).and_then(|l| l.profile.as_ref()).filter(|p| p.error.is_none() && !p.folded.trim().is_empty()).map(|p| p.folded.as_str())
}

/// Each profiled level's flame graph, and beside the first run's each
/// other run's differential one (its shape, red where it spent more).
/// Each graph is its own document in an iframe: inferno's graphs carry
/// their own script and ids, which would clash side by side in one page.
fn flames(o: &mut String, runs: &[ReportRun], headed: bool) {
    let profiled: Vec<(&ReportRun, usize)> = runs.iter().flat_map(|r| r.rec.levels.iter().filter(|l| folded(r, l.threads).is_some()).map(move |l| (r, l.threads))).collect();
    let unprofiled: Vec<String> =
        runs.iter().flat_map(|r| r.rec.levels.iter().filter_map(move |l| Some(format!("run {} at {} threads: {}", r.rec.id, l.threads, l.profile.as_ref()?.error.as_ref()?)))).collect();
    if profiled.is_empty() && unprofiled.is_empty() {
        return;
    }
    if !headed {
        o.push_str(HEADING);
    }
    o.push_str("<h3 id=\"flame-graphs\">The server on CPU</h3><p class=\"legend-note\">The server's stacks sampled by perf at 99 Hz over each level's measured time (<code>--profile-server</code>): the wider a frame, the more samples caught the CPU in it or below it. Click a frame to zoom, Ctrl-F to search. Against the first run, the differential graph has the other run's shape, red where it spent more of its samples, blue where less.</p>");
    for u in &unprofiled {
        let _ = write!(o, "<p class=\"legend-note\">Not profiled: {}</p>", esc(u));
    }
    let base = runs.first();
    for (r, threads) in profiled {
        let f = folded(r, threads).expect("filtered");
        push_flame(o, crate::live::flame::svg(f, &format!("run {} at {threads} threads: the server on CPU", r.rec.id)));
        let against = base.filter(|b| b.rec.id != r.rec.id).and_then(|b| Some((b, folded(b, threads)?)));
        if let Some((b, before)) = against {
            push_flame(o, crate::live::flame::diff_svg(before, f, &format!("run {} against run {} at {threads} threads", r.rec.id, b.rec.id)));
        }
    }
}

fn push_flame(o: &mut String, svg: Result<String, String>) {
    match svg {
        Ok(svg) => {
            // The frame as tall as the graph it holds.
            let height = svg.split_once("height=\"").and_then(|(_, h)| h.split('"').next()?.parse::<f64>().ok()).unwrap_or(600.0);
            let _ = write!(o, "<iframe class=\"flame\" style=\"width:100%;height:{}px;border:0\" srcdoc=\"{}\"></iframe>", height.ceil() + 8.0, esc(&svg));
        }
        Err(e) => {
            let _ = write!(o, "<p class=\"legend-note\">{}</p>", esc(&e));
        }
    }
}
