//! A level that changed on the way: change points in its per-interval throughput and p99
//! ([`crate::stats::changepoint`], E-Divisive over the intervals in order), reported when
//! throughput fell or p99 rose by a margin a steady run does not reach, with the figures and
//! the server's waits before and after, and the slowest event of the level. A long run's mean
//! hides a slowdown at its 41st minute; this says when it came and what the server waited on.

use super::*;
use crate::model::record::IntervalRec;
use crate::stats::changepoint::{detect, Search};
use crate::units::{human_bytes, human_secs};

/// Intervals a level needs before its changes are looked for.
const MIN_INTERVALS: usize = 10;
/// Longer levels are looked at in this many bins at most (each the mean of its intervals):
/// the search is quadratic in its points, per shuffle.
const MAX_POINTS: usize = 240;
/// Throughput must fall by this share, and p99 grow by this factor, to be reported: a steady
/// run's drift on a shared 2-core VM (21% in a 24 s run seen) stays inside both.
const FELL: f64 = 0.3;
const ROSE: f64 = 2.0;
/// A p99 change under this many ms is not worth a warning, however large its ratio (a capped
/// server's p99 went from 0.25 to 0.59 ms while it ran steadily).
const P99_FLOOR_MS: f64 = 0.5;

/// One interval as the search sees it.
struct Point {
    from: f64,
    to: f64,
    events: u64,
    tps: f64,
    p99: f64,
}

/// The level's measured intervals, binned to at most [`MAX_POINTS`].
fn points(l: &LevelRec) -> Vec<Point> {
    let ivs: Vec<&IntervalRec> = l.intervals.iter().filter(|i| !i.warmup && i.secs >= 0.5).collect();
    let per = ivs.len().div_ceil(MAX_POINTS).max(1);
    ivs.chunks(per)
        .map(|c| {
            let secs: f64 = c.iter().map(|i| i.secs).sum();
            let events: u64 = c.iter().map(|i| i.events).sum();
            let mut p99: Vec<f64> = c.iter().map(|i| i.p99_ms).collect();
            Point { from: c[0].t - c[0].secs, to: c[c.len() - 1].t, events, tps: events as f64 / secs, p99: median(&mut p99) }
        })
        .collect()
}

fn changes(x: &[f64]) -> Vec<usize> {
    detect(x, Search { alpha: 0.01, permutations: 499, min_size: 3, seed: 1 }).into_iter().map(|c| c.at).collect()
}

/// Throughput fell, or p99 rose, over the level.
pub fn rule_degraded(r: &RunRecord) -> Vec<Finding> {
    let mut out = Vec::new();
    for l in &r.levels {
        let pts = points(l);
        if pts.len() < MIN_INTERVALS {
            continue;
        }
        let tps: Vec<f64> = pts.iter().map(|p| p.tps).collect();
        // p99 on a log scale: a doubling weighs the same at 1 ms as at 100.
        let p99: Vec<f64> = pts.iter().map(|p| p.p99.max(1e-3).ln()).collect();
        let mut at: Vec<usize> = changes(&tps);
        for c in changes(&p99) {
            // The same change seen in both series counts once.
            if !at.iter().any(|a| a.abs_diff(c) <= 2) {
                at.push(c);
            }
        }
        at.sort_unstable();
        for (k, &change) in at.iter().enumerate() {
            // The segments either side: from the previous change to the next.
            let lo = if k == 0 { 0 } else { at[k - 1] };
            let hi = at.get(k + 1).copied().unwrap_or(pts.len());
            let (before, after) = (&pts[lo..change], &pts[change..hi]);
            let rate = |s: &[Point]| s.iter().map(|p| p.events).sum::<u64>() as f64 / s.iter().map(|p| p.to - p.from).sum::<f64>().max(1e-9);
            let p99_of = |s: &[Point]| median(&mut s.iter().map(|p| p.p99).collect::<Vec<f64>>());
            let (t0, t1, q0, q1) = (rate(before), rate(after), p99_of(before), p99_of(after));
            let fell = t0 > 0.0 && t1 < t0 * (1.0 - FELL);
            let rose = q1 >= q0 * ROSE && q1 - q0 >= P99_FLOOR_MS;
            if !fell && !rose {
                continue;
            }
            let when = pts[change].from;
            let what = if fell {
                format!("throughput fell {:.0}% at {} (p99 {} -> {} ms)", (1.0 - t1 / t0) * 100.0, human_secs(when), ms(q0), ms(q1))
            } else {
                format!("p99 rose from {} to {} ms at {} (throughput {t0:.1} -> {t1:.1} events/s)", ms(q0), ms(q1), human_secs(when))
            };
            let mut ev = vec![
                format!("before ({:.0}-{:.0} s): {t0:.1} events/s, p99 {} ms", before[0].from, before[before.len() - 1].to, ms(q0)),
                format!("after ({:.0}-{:.0} s): {t1:.1} events/s, p99 {} ms", after[0].from, after[after.len() - 1].to, ms(q1)),
                format!("change at {when:.1} s into the level (the interval ending at {:.1} s is the first after it)", pts[change].to),
            ];
            let waits = |a: f64, b: f64, events: u64| {
                let mut deltas: std::collections::BTreeMap<String, f64> = std::collections::BTreeMap::new();
                for s in l.samples.iter().filter(|s| s.seq > 0 && s.t > a && s.t <= b + 0.5) {
                    for (k, v) in &s.sample.deltas {
                        *deltas.entry(k.clone()).or_default() += v;
                    }
                }
                crate::model::waits::of(&deltas, events as f64).map(|t| crate::model::waits::line(&t)).filter(|l| !l.is_empty())
            };
            let ev_before: u64 = before.iter().map(|p| p.events).sum();
            let ev_after: u64 = after.iter().map(|p| p.events).sum();
            match (waits(before[0].from, when, ev_before), waits(when, after[after.len() - 1].to, ev_after)) {
                (Some(b), Some(a)) => ev.push(format!("server waits per transaction (µs) before: {b}; after: {a}")),
                _ => ev.push("server waits: not sampled for this run (the engine keeps none, or --server-time off)".into()),
            }
            if let Some(m) = l.intervals.iter().filter(|i| !i.warmup).max_by(|a, b| a.max_ms.total_cmp(&b.max_ms)).filter(|i| i.max_ms > 0.0) {
                ev.push(format!("slowest event of the level: {} ms, in the interval ending at {:.1} s", ms(m.max_ms), m.t));
            }
            if let Some(m) = l.intervals.iter().filter(|i| !i.warmup).max_by(|a, b| a.stall_ms.total_cmp(&b.stall_ms)).filter(|i| i.stall_ms > 0.0) {
                ev.push(format!("longest stall (no client completed an event): {} ms, over the interval ending at {:.1} s", ms(m.stall_ms), m.t));
            }
            for (key, what) in [("server:db_bytes", "database on disk"), ("server:rss_bytes", "server memory")] {
                let at = |t: f64| l.samples.iter().filter(|s| s.seq > 0 && s.t <= t + 0.5).filter_map(|s| s.sample.gauges.get(key)).next_back().copied();
                if let (Some(a), Some(b), Some(c)) = (at(before[0].from + 1.0), at(when), at(after[after.len() - 1].to)) {
                    ev.push(format!("{what}: {} at the start, {} at the change, {} at the end", human_bytes(a), human_bytes(b), human_bytes(c)));
                }
            }
            out.push(finding(
                "degraded",
                Severity::Warning,
                vec![r.id],
                format!("run {} at {} threads: {what}", r.id, l.threads),
                ev,
                "a summary over the whole run hides this: look at what changed on the server at that time (checkpoints, purge, a full cache, a neighbour) and compare runs only over the same stretch",
            ));
        }
    }
    out
}

fn ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(tps: &[f64], p99: &[f64]) -> RunRecord {
        let intervals = tps.iter().zip(p99).enumerate().map(|(i, (&t, &q))| IntervalRec { seq: i, t: i as f64 + 1.0, secs: 1.0, events: t as u64, p99_ms: q, ..Default::default() }).collect();
        RunRecord { id: 7, levels: vec![LevelRec { threads: 4, intervals, ..Default::default() }], ..Default::default() }
    }

    fn noisy(n: usize, mean: f64, seed: u64) -> Vec<f64> {
        let mut rng = crate::rand::Rng::from_seed(seed, 0);
        (0..n).map(|_| mean * (0.93 + 0.14 * rng.uniform(0, 1000) as f64 / 1000.0)).collect()
    }

    #[test]
    fn a_slowdown_is_reported_at_the_interval_it_began() {
        let mut tps = noisy(20, 1000.0, 1);
        tps.extend(noisy(20, 600.0, 2));
        let mut p99 = noisy(20, 2.0, 3);
        p99.extend(noisy(20, 9.0, 4));
        let f = rule_degraded(&level(&tps, &p99));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].message.contains("throughput fell 40% at 20 s") || f[0].message.contains("throughput fell 39% at 20 s") || f[0].message.contains("throughput fell 41% at 20 s"),
            "{}",
            f[0].message
        );
        assert!(f[0].message.contains("(p99 2.0 -> 9.0 ms)") || f[0].message.contains("p99 2.0 -> 8.9") || f[0].message.contains("p99 2.1 -> 9.0"), "{}", f[0].message);
    }

    #[test]
    fn a_steady_level_is_silent() {
        for seed in 1..20 {
            let f = rule_degraded(&level(&noisy(60, 1000.0, seed), &noisy(60, 2.0, seed + 100)));
            assert!(f.is_empty(), "seed {seed}: {f:?}");
        }
    }

    #[test]
    fn a_latency_rise_at_a_fixed_rate_is_reported() {
        let tps = noisy(40, 500.0, 5);
        let mut p99 = noisy(25, 1.0, 6);
        p99.extend(noisy(15, 30.0, 7));
        let f = rule_degraded(&level(&tps, &p99));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].message.contains("p99 rose from 0.99") && f[0].message.contains(" to 30.") && f[0].message.contains("at 25 s"), "{}", f[0].message);
    }
}
