//! Stored runs as series, and where each changed (`results changes`): the completed levels of
//! one label, engine and client count, in the order they ran or of the server's version, with
//! the change points of their throughput or p99 ([`crate::stats::changepoint`]).

use crate::model::record::RunRecord;
use crate::stats::changepoint::{detect, Search};
use serde::Serialize;

/// What `results changes` was asked.
#[derive(Default)]
pub struct Query<'a> {
    /// `tps` or `p99`.
    pub metric: &'a str,
    pub label: Option<&'a str>,
    pub by_version: bool,
    /// Changes smaller than this share are not reported.
    pub min_change: f64,
    pub alpha: f64,
}

/// Points a series needs before it is searched: a change needs two on each side.
const MIN_POINTS: usize = 4;

/// One measured point of a series.
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    pub run: i64,
    pub started_at: String,
    pub server_version: String,
    pub value: f64,
}

/// A change between two points of a series.
#[derive(Clone, Debug, Serialize)]
pub struct Found {
    /// The index of the first point after the change.
    pub at: usize,
    pub run: i64,
    pub before: f64,
    pub after: f64,
    pub relative: f64,
    pub p: f64,
}

/// One series and its changes.
#[derive(Clone, Debug, Serialize)]
pub struct Series {
    pub label: String,
    pub engine: String,
    pub threads: usize,
    pub metric: String,
    pub points: Vec<Point>,
    pub changes: Vec<Found>,
}

/// Orders version strings by their numbers (`9.6` before `10.1`, `16.14` after `16.9`).
fn version_key(v: &str) -> Vec<u64> {
    v.split(|c: char| !c.is_ascii_digit()).filter(|p| !p.is_empty()).take(4).filter_map(|p| p.parse().ok()).collect()
}

/// Every series of the runs (those of `q.label` only, when given) with `MIN_POINTS` points or
/// more, with its changes.
pub fn changes(runs: &[RunRecord], q: &Query) -> Vec<Series> {
    let mut by_key: std::collections::BTreeMap<(String, String, usize), Vec<Point>> = Default::default();
    for r in runs.iter().filter(|r| q.label.is_none_or(|l| r.label == l)) {
        let version = r.env_start.as_ref().map(|e| e.server.version.clone()).unwrap_or_default();
        for l in r.levels.iter().filter(|l| l.status == "completed" && l.elapsed_s > 0.0) {
            let value = if q.metric == "p99" { l.p99_ms } else { l.tps };
            let p = Point { run: r.id, started_at: l.started_at.clone(), server_version: version.clone(), value };
            by_key.entry((r.label.clone(), r.engine.clone(), l.threads)).or_default().push(p);
        }
    }
    let mut out = Vec::new();
    for ((label, engine, threads), mut points) in by_key {
        if points.len() < MIN_POINTS {
            continue;
        }
        if q.by_version {
            // Stable: runs of one version stay in the order they ran.
            points.sort_by_key(|p| version_key(&p.server_version));
        }
        let values: Vec<f64> = points.iter().map(|p| p.value).collect();
        let found = detect(&values, Search { alpha: q.alpha, ..Search::default() })
            .into_iter()
            .filter(|c| c.relative().abs() >= q.min_change)
            .map(|c| Found { at: c.at, run: points[c.at].run, before: c.before, after: c.after, relative: c.relative(), p: c.p })
            .collect();
        out.push(Series { label, engine, threads, metric: q.metric.to_string(), points, changes: found });
    }
    out
}

/// Whether a change made the metric worse: less throughput, more latency.
fn worse(s: &Series, relative: f64) -> bool {
    if s.metric == "p99" {
        relative > 0.0
    } else {
        relative < 0.0
    }
}

/// Why the newest point of some series is a regression beyond `limit` (its segment, after the
/// last change, worse than the one before by more), if one is.
pub fn newest_regressed(series: &[Series], limit: f64) -> Option<String> {
    let bad: Vec<String> = series
        .iter()
        .filter_map(|s| {
            let last = s.changes.last()?;
            (worse(s, last.relative) && last.relative.abs() > limit)
                .then(|| format!("{} on {} with {} threads: {} {:+.1}% from run {}", s.label, s.engine, s.threads, s.metric, last.relative * 100.0, last.run))
        })
        .collect();
    (!bad.is_empty()).then(|| format!("the newest runs regressed beyond {:.1}%: {}", limit * 100.0, bad.join("; ")))
}

/// The changes as text, one block per series.
pub fn text(series: &[Series], q: &Query) -> String {
    let unit = if q.metric == "p99" { "ms" } else { "tps" };
    let mut s = format!(
        "Change points in {} by {} (E-Divisive with means, p < {}, changes of {:.1}% or more):\n",
        if q.metric == "p99" { "p99" } else { "throughput" },
        if q.by_version { "server version" } else { "time" },
        q.alpha,
        q.min_change * 100.0
    );
    if series.is_empty() {
        s.push_str(&format!("  no series of {MIN_POINTS} runs or more{}\n", q.label.map(|l| format!(" labelled {l}")).unwrap_or_default()));
    }
    for x in series {
        let (first, last) = (x.points.first().map_or(0, |p| p.run), x.points.last().map_or(0, |p| p.run));
        s.push_str(&format!("{} on {}, {} threads: {} points, runs {first} to {last}\n", x.label, x.engine, x.threads, x.points.len()));
        if x.changes.is_empty() {
            s.push_str("  no change\n");
        }
        for c in &x.changes {
            let p = &x.points[c.at];
            let version = if p.server_version.is_empty() { String::new() } else { format!(", {}", p.server_version) };
            s.push_str(&format!(
                "  at point {} (run {}, {}{version}): {:.1} -> {:.1} {unit} ({:+.1}%{}), p = {}\n",
                c.at + 1,
                c.run,
                p.started_at,
                c.before,
                c.after,
                c.relative * 100.0,
                if worse(x, c.relative) { ", worse" } else { ", better" },
                c.p
            ));
        }
    }
    crate::columns::wrap(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_by_their_numbers() {
        let mut v = vec!["PostgreSQL 16.14 on x86_64", "PostgreSQL 9.6.24", "10.11.19-MariaDB", "PostgreSQL 16.9"];
        v.sort_by_key(|s| version_key(s));
        assert_eq!(v, ["PostgreSQL 9.6.24", "10.11.19-MariaDB", "PostgreSQL 16.9", "PostgreSQL 16.14 on x86_64"]);
    }
}
