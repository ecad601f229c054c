//! A scenario's report as a text table, one column per target or engine.

use super::{Report, StepResult};

/// `1.234 s`, `12 ms`.
pub fn fmt_secs(s: f64) -> String {
    if s >= 60.0 {
        format!("{}m{:04.1}s", (s / 60.0).floor(), s % 60.0)
    } else if s >= 1.0 {
        format!("{s:.2} s")
    } else {
        format!("{:.1} ms", s * 1000.0)
    }
}

/// The cells of one step: (row, value) in order.
pub(crate) fn step_cells(s: &StepResult) -> Vec<(String, String)> {
    let mut v = Vec::new();
    if let Some(e) = &s.error {
        v.push((s.step.clone(), format!("FAILED: {}", trunc(e, 40))));
        return v;
    }
    if s.seconds.len() > 1 {
        for (i, t) in s.seconds.iter().enumerate() {
            v.push((format!("{} #{}", s.step, i + 1), fmt_secs(*t)));
        }
    } else if let Some(t) = s.seconds.first() {
        v.push((s.step.clone(), fmt_secs(*t)));
    } else if let Some(n) = &s.note {
        v.push((s.step.clone(), n.clone()));
    }
    for (what, b) in &s.sizes {
        v.push((format!("{}: {what}", s.step), crate::units::human_bytes(*b as f64)));
    }
    v
}

/// The table of results: one row per step (per run of a repeated query, and
/// per size), one column per target or engine; rows in step order.
pub fn table_text(rep: &Report) -> String {
    const START: &str = "client start + connect (in import times)";
    let mut rows: Vec<String> = Vec::new();
    if rep.columns.iter().any(|c| c.client_overhead_s.is_some()) {
        rows.push(START.to_string());
    }
    let mut cells: Vec<std::collections::BTreeMap<String, String>> =
        rep.columns.iter().map(|c| c.client_overhead_s.map(|t| std::collections::BTreeMap::from([(START.to_string(), fmt_secs(t))])).unwrap_or_default()).collect();
    let longest = rep.columns.iter().map(|c| c.steps.len()).max().unwrap_or(0);
    for i in 0..longest {
        for (c, m) in rep.columns.iter().zip(cells.iter_mut()) {
            for (k, v) in c.steps.get(i).map(step_cells).unwrap_or_default() {
                if !rows.contains(&k) {
                    rows.push(k.clone());
                }
                m.insert(k, v);
            }
        }
    }
    let first = rows.iter().map(|r| r.chars().count()).max().unwrap_or(9).max(9);
    let widths: Vec<usize> = rep.columns.iter().zip(&cells).map(|(c, m)| m.values().map(|v| v.chars().count()).max().unwrap_or(0).max(c.name.chars().count()).max(8)).collect();
    let mut s = format!("{:<first$}", "operation");
    for (c, w) in rep.columns.iter().zip(&widths) {
        s.push_str(&format!("  {:>w$}", c.name));
    }
    s.push('\n');
    for r in &rows {
        s.push_str(&format!("{r:<first$}"));
        for (m, w) in cells.iter().zip(&widths) {
            s.push_str(&format!("  {:>w$}", m.get(r).map(String::as_str).unwrap_or("-")));
        }
        s.push('\n');
    }
    for c in &rep.columns {
        if let Some(f) = c.failed.as_ref().or(c.unavailable.as_ref()) {
            s.push_str(&format!("{}: {f}\n", c.name));
        }
    }
    for n in &rep.notes {
        s.push_str(&format!("Note: {n}\n"));
    }
    s
}

pub(crate) fn trunc(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}...", s.chars().take(n).collect::<String>())
    }
}
