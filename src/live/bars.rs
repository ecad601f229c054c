//! Grouped horizontal bars as SVG: one row per kind of event (a TPC-H
//! query, a TPC-C transaction), one bar per run in each row, so that the
//! same query on two servers sits side by side. Styled by attributes as
//! the line charts are; `g.row[data-name]` and `rect.bar[data-run]
//! [data-value]` name what tests and readers look for.

use super::chart::{esc, num, FONT, PALETTE, TOP, W};
use std::fmt::Write;

/// Room for the kinds' names on the left and the values past the longest bar.
const LEFT: f64 = 70.0;
const RIGHT: f64 = 90.0;
const BAR: f64 = 11.0;
const GAP: f64 = 7.0;

/// `values[row][run]`: the bar of `runs[run]` in row `rows[row]` (None: no bar).
pub fn svg(id: &str, title: &str, unit: &str, rows: &[String], runs: &[String], values: &[Vec<Option<f64>>]) -> String {
    let top = values.iter().flatten().flatten().cloned().fold(0.0, f64::max).max(1e-9);
    let row_h = runs.len().max(1) as f64 * BAR + GAP;
    let h = TOP + rows.len() as f64 * row_h + 20.0;
    let plot = W - LEFT - RIGHT;
    let mut o = String::new();
    let _ = write!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart bars" data-chart="{}" viewBox="0 0 {W} {h}" width="{W}" height="{h}" font-family="{FONT}" font-size="12" role="img" aria-label="{}">"#,
        esc(id),
        esc(title)
    );
    let _ = write!(o, r#"<text x="{LEFT}" y="18" font-size="14" font-weight="600">{}</text>"#, esc(title));
    let mut x = LEFT;
    for (k, run) in runs.iter().enumerate() {
        let _ = write!(o, r#"<rect x="{x}" y="28" width="10" height="10" fill="{}"/><text x="{}" y="37">{}</text>"#, PALETTE[k % PALETTE.len()], x + 14.0, esc(run));
        x += 24.0 + 7.0 * run.chars().count() as f64;
    }
    for (i, name) in rows.iter().enumerate() {
        let y0 = TOP + i as f64 * row_h;
        let _ = write!(o, r#"<g class="row" data-name="{}"><text x="{}" y="{}" text-anchor="end">{}</text>"#, esc(name), LEFT - 6.0, y0 + row_h / 2.0, esc(name));
        for (k, run) in runs.iter().enumerate() {
            let Some(v) = values.get(i).and_then(|r| r.get(k)).copied().flatten() else { continue };
            let y = y0 + k as f64 * BAR;
            let w = (v / top * plot).max(1.0);
            let _ = write!(
                o,
                r#"<rect class="bar" data-run="{}" data-value="{v}" x="{LEFT}" y="{y}" width="{w:.1}" height="{}" fill="{}"><title>{}: {} {unit}</title></rect><text x="{:.1}" y="{}" font-size="10">{}</text>"#,
                esc(run),
                BAR - 1.0,
                PALETTE[k % PALETTE.len()],
                esc(run),
                num(v),
                LEFT + w + 4.0,
                y + BAR - 2.0,
                num(v)
            );
        }
        o.push_str("</g>");
    }
    let _ = write!(o, r##"<text x="{LEFT}" y="{}" fill="#555">{}</text></svg>"##, h - 4.0, esc(unit));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_per_kind_and_a_bar_per_run_with_its_value() {
        let s = svg("kinds-0", "power", "ms", &["Q1".into(), "Q2".into()], &["1".into(), "2".into()], &[vec![Some(10.0), Some(5.0)], vec![None, Some(2.5)]]);
        assert_eq!(s.matches("class=\"row\"").count(), 2);
        assert_eq!(s.matches("class=\"bar\"").count(), 3);
        assert!(s.contains(r#"data-run="2" data-value="2.5""#), "{s}");
        assert!(s.contains(r#"data-chart="kinds-0""#));
    }
}
