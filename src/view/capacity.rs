//! The report's section of a `--find-max` search: the curve it measured (offered rate, or
//! clients, against the p50 and p99 latency and the completed rate), each step a point with its
//! verdict, and the capacity with its bracket. Runs that searched the same objective share the
//! charts, so two capacities are read off one curve each.

use super::html::ReportRun;
use crate::live::chart::{esc, Chart, Scale, Series};
use crate::model::capacity::Capacity;
use std::fmt::Write;

fn searched(runs: &[ReportRun]) -> Vec<(&ReportRun, &Capacity)> {
    runs.iter().filter_map(|r| Some((r, r.rec.capacity.as_ref()?))).collect()
}

/// Whether any run is a search: its levels are its steps, not a scaling curve.
pub fn any(runs: &[ReportRun]) -> bool {
    !searched(runs).is_empty()
}

/// The x of a step: its offered rate, or its clients when the search was by clients.
fn x_of(c: &Capacity, s: &crate::model::capacity::Step) -> f64 {
    if c.by == "threads" {
        s.threads as f64
    } else {
        s.rate
    }
}

pub fn section(o: &mut String, charts: &mut Vec<Chart>, runs: &[ReportRun], push: fn(&mut String, &mut Vec<Chart>, Vec<Chart>)) {
    let found = searched(runs);
    let Some((_, first)) = found.first() else { return };
    o.push_str("<h2 id=\"capacity\">Capacity under an objective</h2><table><tr><th>run</th><th>objective</th><th>capacity</th><th>bracket</th><th>search</th></tr>");
    for (r, c) in &found {
        let cap = c.capacity.map_or_else(|| "none met".to_string(), |v| format!("{v:.2} events/s ({})", crate::model::capacity::clients(c.threads)));
        let _ = write!(o, "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", r.rec.id, esc(&c.objective), esc(&cap), esc(&c.bracket_text()), esc(&c.ended));
    }
    o.push_str("</table><p class=\"legend-note\">Each point a step of the search (the closed-loop probe left out): met or missed by its 95% interval. The capacity is the completed rate at the highest step that met the objective.</p><div class=\"grid\">");
    let by_threads = first.by == "threads";
    let x_label = if by_threads { "clients" } else { "offered events/s" };
    let mut lat = Vec::new();
    let mut done = Vec::new();
    for (r, c) in &found {
        let mut steps: Vec<&crate::model::capacity::Step> = c.steps.iter().filter(|s| !s.probe).collect();
        steps.sort_by(|a, b| x_of(c, a).total_cmp(&x_of(c, b)));
        let name = |what: &str| format!("run {} {what}", r.rec.id);
        let line =
            |what: &str, f: fn(&crate::model::capacity::Step) -> f64, dashed: bool| Series { name: name(what), points: steps.iter().map(|s| (x_of(c, s), f(s))).collect(), dashed, errors: Vec::new() };
        lat.push(line("p50", |s| s.p50_ms, false));
        lat.push(line("p99", |s| s.p99_ms, true));
        done.push(line("completed/s", |s| s.achieved, false));
    }
    let chart = |id: &str, title: String, y: &str, series: Vec<Series>| Chart {
        id: id.into(),
        title,
        x_label: x_label.into(),
        y_label: y.into(),
        x_scale: if by_threads { Scale::Log2 } else { Scale::Linear },
        series,
        bands: vec![],
        markers: true,
        x_names: vec![],
    };
    push(
        o,
        charts,
        vec![
            chart("capacity-latency", format!("Latency against the {} ({})", if by_threads { "clients" } else { "offered rate" }, first.objective), "ms", lat),
            chart("capacity-throughput", "Completed against offered".into(), "events/s", done),
        ],
    );
    o.push_str("</div>");
}
