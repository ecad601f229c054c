//! A sweep's table as text, markdown and one HTML page: relative
//! throughput per run and version, the hardware per operation beside it,
//! and the sentences on large changes. JSON is the table serialized.

use crate::live::chart::{esc, Chart, Scale, Series};
use crate::sweep::table::{Cell, Table, FIGURES};
use std::fmt::Write;

/// A relative figure as Small Datum prints it: 0.97, with `*` when the
/// change is beyond the noise.
fn rel(c: &Cell) -> String {
    format!("{:.2}{}", c.relative, if c.beyond_noise { "*" } else { "" })
}

/// A figure with three significant digits or so: 1234, 45.6, 0.72.
fn figure(v: f64) -> String {
    match v.abs() {
        a if a >= 100.0 => format!("{v:.0}"),
        a if a >= 10.0 => format!("{v:.1}"),
        _ => format!("{v:.2}"),
    }
}

/// The grids: throughput first, then each hardware figure; each a header
/// and rows of cells.
type Grid = (String, Vec<String>, Vec<Vec<String>>);

/// One grid: a row per run with each version's `relative` cell, and the
/// base version's own `value` in the last column (headed `last`); "-"
/// where there is none.
fn grid(t: &Table, caption: String, last: String, relative: impl Fn(&Cell) -> Option<String>, value: impl Fn(&Cell) -> Option<String>) -> Grid {
    let dash = || "-".to_string();
    let head = std::iter::once("run".to_string()).chain(t.versions.iter().map(|v| v.heading())).chain(std::iter::once(last)).collect();
    let rows = t
        .rows
        .iter()
        .map(|r| {
            let cells = r.cells.iter().map(|c| c.as_ref().and_then(&relative).unwrap_or_else(dash));
            let base = r.cells.get(t.base).and_then(|c| c.as_ref()).and_then(&value).unwrap_or_else(dash);
            std::iter::once(r.name()).chain(cells).chain(std::iter::once(base)).collect()
        })
        .collect();
    (caption, head, rows)
}

fn grids(t: &Table) -> Vec<Grid> {
    let base = &t.versions[t.base].key;
    let mut out = vec![grid(t, format!("Throughput relative to {base} (* where the ratio's 95% interval excludes 1)"), format!("{base} ops/s"), |c| Some(rel(c)), |c| Some(format!("{:.0}", c.tps)))];
    for (i, (name, _)) in FIGURES.iter().enumerate() {
        if !t.rows.iter().any(|r| r.cells.iter().flatten().any(|c| c.hardware.get(i).is_some_and(|h| h.value.is_some()))) {
            continue;
        }
        out.push(grid(
            t,
            format!("{name} relative to {base}"),
            format!("{base} {name}"),
            |c| c.hardware.get(i).and_then(|h| h.relative).map(|r| format!("{r:.2}")),
            |c| c.hardware.get(i).and_then(|h| h.value).map(figure),
        ));
    }
    out
}

fn title(t: &Table) -> String {
    let what = t.preset.as_ref().map(|p| format!(", preset {p}")).unwrap_or_default();
    format!("Sweep {}: {}{what}, {} versions", t.tag, t.engine, t.versions.len())
}

fn footer(t: &Table, o: &mut String, bullet: &str) {
    if !t.sentences.is_empty() {
        let _ = writeln!(o, "\nLarge changes (beyond the noise and {:.0}% or more):", crate::sweep::table::LARGE * 100.0);
        for s in &t.sentences {
            let _ = writeln!(o, "{bullet}{s}");
        }
    }
    for n in &t.notes {
        let _ = writeln!(o, "\nNote: {n}");
    }
    if !t.missing.is_empty() {
        let _ = writeln!(o, "\nNot measured (yet): {}", t.missing.join(", "));
    }
}

pub fn text(t: &Table) -> String {
    let mut o = format!("{}\n", title(t));
    for c in &t.versions {
        if let Some(origin) = &c.origin {
            let _ = writeln!(o, "  {}: {origin}", c.key);
        }
    }
    for (caption, head, rows) in grids(t) {
        let _ = writeln!(o, "\n{caption}");
        let widths: Vec<usize> = (0..head.len()).map(|i| std::iter::once(&head).chain(&rows).map(|r| r[i].chars().count()).max().unwrap_or(0)).collect();
        for r in std::iter::once(&head).chain(&rows) {
            let cells: Vec<String> = r.iter().zip(&widths).enumerate().map(|(i, (c, w))| if i == 0 { format!("{c:<w$}") } else { format!("{c:>w$}") }).collect();
            let _ = writeln!(o, "{}", cells.join("  ").trim_end());
        }
    }
    footer(t, &mut o, "- ");
    o
}

pub fn markdown(t: &Table) -> String {
    let mut o = format!("### {}\n", title(t));
    for (caption, head, rows) in grids(t) {
        let _ = writeln!(o, "\n{caption}\n");
        let _ = writeln!(o, "| {} |", head.join(" | "));
        let _ = writeln!(o, "|---|{}", "---:|".repeat(head.len() - 1));
        for r in rows {
            let _ = writeln!(o, "| {} |", r.join(" | "));
        }
    }
    footer(t, &mut o, "- ");
    o
}

/// One chart per run (and level): each version's relative throughput with
/// its 95% interval, and the relative CPU per operation dashed.
pub fn charts(t: &Table) -> Vec<Chart> {
    let names: Vec<String> = t.versions.iter().map(|v| v.key.clone()).collect();
    t.rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let cells: Vec<(f64, &Cell)> = r.cells.iter().enumerate().filter_map(|(v, c)| c.as_ref().map(|c| (v as f64, c))).collect();
            let tput = Series {
                name: "throughput".into(),
                points: cells.iter().map(|(x, c)| (*x, c.relative)).collect(),
                dashed: false,
                errors: cells.iter().filter_map(|(x, c)| c.ci.map(|(lo, hi)| (*x, lo, hi))).collect(),
            };
            let cpu = Series { name: FIGURES[0].0.into(), points: cells.iter().filter_map(|(x, c)| c.hardware[0].relative.map(|r| (*x, r))).collect(), dashed: true, errors: vec![] };
            Chart {
                id: format!("sweep-{i}"),
                title: r.name(),
                x_label: "version".into(),
                y_label: format!("relative to {}", t.versions[t.base].key),
                x_scale: Scale::Linear,
                series: if cpu.points.is_empty() { vec![tput] } else { vec![tput, cpu] },
                bands: vec![],
                markers: true,
                x_names: names.clone(),
            }
        })
        .collect()
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2733}main{max-width:1200px;margin:0 auto;padding:24px}table{border-collapse:collapse;margin:8px 0 20px;background:#fff}td,th{border:1px solid #dde2e8;padding:4px 8px;text-align:right;font-variant-numeric:tabular-nums}td:first-child,th:first-child{text-align:left}td.up{background:#e3f4e6}td.down{background:#fbe3e1}.grid{display:flex;flex-wrap:wrap;gap:12px}.grid svg{background:#fff;border:1px solid #dde2e8}";

/// The whole page, self-contained.
pub fn html(t: &Table, generated_at: &str) -> String {
    let mut o = format!("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>fairbench: {}</title><style>{STYLE}</style></head><body><main>", esc(&title(t)));
    let _ = write!(o, "<h1>{}</h1><p>fairbench sweep report · {}</p>", esc(&title(t)), esc(generated_at));
    for (gi, (caption, head, rows)) in grids(t).into_iter().enumerate() {
        let _ = write!(o, "<h2>{}</h2><table class=\"sweep\" data-grid=\"{gi}\"><tr>{}</tr>", esc(&caption), head.iter().map(|h| format!("<th>{}</th>", esc(h))).collect::<String>());
        for (ri, r) in rows.iter().enumerate() {
            o.push_str("<tr>");
            for (ci, c) in r.iter().enumerate() {
                // Throughput cells beyond the noise are coloured: up green, down red.
                let class = match (gi, ci.checked_sub(1).and_then(|v| t.rows[ri].cells.get(v)).and_then(|c| c.as_ref())) {
                    (0, Some(cell)) if cell.beyond_noise && cell.relative > 1.0 => " class=\"up\"",
                    (0, Some(cell)) if cell.beyond_noise => " class=\"down\"",
                    _ => "",
                };
                let _ = write!(o, "<td{class}>{}</td>", esc(c));
            }
            o.push_str("</tr>");
        }
        o.push_str("</table>");
    }
    if !t.sentences.is_empty() {
        o.push_str("<h2>Large changes</h2><ul>");
        for s in &t.sentences {
            let _ = write!(o, "<li>{}</li>", esc(s));
        }
        o.push_str("</ul>");
    }
    o.push_str("<h2>Each run across the versions</h2><div class=\"grid\">");
    for c in charts(t) {
        o.push_str(&c.svg());
    }
    o.push_str("</div>");
    for n in &t.notes {
        let _ = write!(o, "<p>Note: {}</p>", esc(n));
    }
    if !t.missing.is_empty() {
        let _ = write!(o, "<p>Not measured (yet): {}</p>", esc(&t.missing.join(", ")));
    }
    let _ = writeln!(o, "<footer>Made by fairbench {} from its results store.</footer></main></body></html>", crate::VERSION);
    o
}
