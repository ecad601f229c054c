//! The report's "Where the server's time went": per run and level, the
//! server's time per transaction by wait class beside the first run's
//! (the ratio in brackets), its largest waits by name, the statements
//! that took the most, and the on-CPU flame graph when the run was
//! profiled.

use super::html::ReportRun;
use crate::db::waits::CLASSES;
use crate::model::efficiency::{of_run, with_ratio, Efficiency};
use crate::report::chart::esc;
use std::fmt::Write;

/// How many statements each level lists.
const STATEMENTS: usize = 5;

pub fn section(o: &mut String, runs: &[ReportRun]) {
    let all: Vec<(&ReportRun, Vec<Efficiency>)> =
        runs.iter().map(|r| (r, of_run(&r.rec).into_iter().filter(|e| e.server_time.is_some() || !e.statements.is_empty()).collect::<Vec<_>>())).filter(|(_, e)| !e.is_empty()).collect();
    if all.is_empty() {
        return;
    }
    // Only the classes some level spent time in.
    let classes: Vec<_> = CLASSES.iter().filter(|c| all.iter().flat_map(|(_, es)| es).any(|e| e.server_time.as_ref().is_some_and(|t| t.of_class(**c) > 0.0))).collect();
    o.push_str("<h2 id=\"server-time\">Where the server's time went</h2><p class=\"legend-note\">Server time per transaction by what its sessions waited on, µs, over each level's measured time; in brackets the ratio to the first run's at the same threads. PostgreSQL's sessions are sampled ten times a second (CPU: active without a wait); MariaDB's and MySQL's figures are performance_schema's timers, and their CPU is the hardware table's.</p>");
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
                    let _ = write!(o, "<td class=n>{}</td>", with_ratio(Some(t.of_class(**c)), b.map(|b| b.of_class(**c)), r.rec.id == all[0].0.rec.id));
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
}
