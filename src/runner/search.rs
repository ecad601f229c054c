//! `--find-max`: the highest offered rate (or client count) that meets an objective, found by
//! runs chosen one after another. By rate: a closed-loop probe at the run's client count says
//! how much the server completes flat out; open-loop steps then bracket the capacity, halving
//! down from 80% of it until one meets the objective, then bisecting between the highest rate
//! that met it and the lowest that missed until the bracket is within the precision. Until a
//! step misses, the upper end is a little above the probe's throughput, and past it the steps
//! climb by twice the precision. By clients: closed-loop steps
//! double the client count while the objective holds, then bisect. A step whose 95% interval
//! straddles a bound is run again and its runs merged, up to `tries` runs; then its estimate
//! decides. Every step is a level of the run, stored as such; the search's outcome is stored
//! with the run.

use crate::model::capacity::{clients, fell_behind, overall, Capacity, Dimension, FindMax, Step, Verdict};
use crate::model::LevelResult;
use crate::stats::Window;

/// The next level a search asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Next {
    pub threads: usize,
    /// Offered events/s (0: closed loop).
    pub rate: f64,
    pub probe: bool,
}

/// The first rate tried: this share of the probe's throughput.
const FIRST_SHARE: f64 = 0.8;
/// The upper end of the bracket before a step misses: a little above what the probe's clients
/// did closed-loop.
const CEILING_SHARE: f64 = 1.05;
/// Halving stops this far below the probe: the objective is out of reach.
const FLOOR_SHARE: f64 = 1.0 / 64.0;
/// Client counts searched up to this.
const MAX_THREADS: usize = 4096;
/// Steps of one search at most (tries of a step count once).
pub const MAX_STEPS: usize = 24;

/// Runs of one step so far, merged.
struct Pending {
    key: f64,
    w: Window,
    elapsed: f64,
    tries: usize,
}

pub struct Search {
    spec: FindMax,
    threads: usize,
    probe_tps: Option<f64>,
    /// Highest key that met, with its throughput (and client count, by clients).
    met: Option<(f64, f64)>,
    missed: Option<f64>,
    pending: Option<Pending>,
    steps: Vec<Step>,
    ended: Option<(String, bool)>,
}

impl Search {
    /// A search at `threads` clients (by rate), or from `threads` clients up (by clients).
    pub fn new(spec: FindMax, threads: usize) -> Search {
        Search { spec, threads: threads.max(1), probe_tps: None, met: None, missed: None, pending: None, steps: Vec::new(), ended: None }
    }

    pub fn by(&self) -> Dimension {
        self.spec.by
    }

    /// The level to run next; None: the search is over.
    pub fn next_level(&mut self) -> Option<Next> {
        if self.ended.is_some() {
            return None;
        }
        if self.spec.by == Dimension::Rate && self.probe_tps.is_none() {
            return Some(Next { threads: self.threads, rate: 0.0, probe: true });
        }
        if let Some(p) = &self.pending {
            return Some(self.at(p.key));
        }
        if self.steps.iter().filter(|s| !s.probe).count() >= MAX_STEPS {
            self.end(format!("stopped after {MAX_STEPS} steps without reaching the precision"), false);
            return None;
        }
        let key = match self.spec.by {
            Dimension::Rate => self.next_rate()?,
            Dimension::Threads => self.next_threads()?,
        };
        Some(self.at(key))
    }

    fn at(&self, key: f64) -> Next {
        match self.spec.by {
            Dimension::Rate => Next { threads: self.threads, rate: key, probe: false },
            Dimension::Threads => Next { threads: key as usize, rate: 0.0, probe: false },
        }
    }

    fn next_rate(&mut self) -> Option<f64> {
        let probe = self.probe_tps?;
        let ceiling = probe * CEILING_SHARE;
        let key = match (self.met, self.missed) {
            (None, None) => probe * FIRST_SHARE,
            (None, Some(hi)) => {
                let r = hi / 2.0;
                if r < probe * FLOOR_SHARE {
                    return self.end(format!("no rate down to {hi:.2}/s met the objective"), false);
                }
                r
            }
            (Some((lo, _)), Some(hi)) => {
                if hi - lo <= self.spec.precision * lo {
                    return self.end(format!("converged: the bracket is within {}% of its lower end", pct(self.spec.precision)), true);
                }
                (lo + hi) / 2.0
            }
            // Nothing missed yet: the probe's throughput is no upper end (one short closed-loop
            // run of a capped server came out 20% under the next), so once the steps reach it
            // they climb by twice the precision until one misses. A rate the clients cannot
            // keep up with misses (they fall behind), so the climb ends.
            (Some((lo, _)), None) => (lo + ceiling.max(lo * (1.0 + 4.0 * self.spec.precision))) / 2.0,
        };
        Some(key)
    }

    fn next_threads(&mut self) -> Option<f64> {
        let key = match (self.met, self.missed) {
            (None, None) => self.threads as f64,
            (None, Some(hi)) => {
                if hi <= 1.0 {
                    return self.end("not met even by 1 client".into(), false);
                }
                (hi / 2.0).floor().max(1.0)
            }
            (Some((lo, _)), None) => {
                if lo as usize >= MAX_THREADS {
                    return self.end(format!("met up to {MAX_THREADS} clients, the most searched"), true);
                }
                (lo * 2.0).min(MAX_THREADS as f64)
            }
            (Some((lo, _)), Some(hi)) => {
                if hi - lo <= (self.spec.precision * lo).max(1.0) {
                    return self.end(format!("converged: the bracket is within {}% of its lower end (or one client)", pct(self.spec.precision)), true);
                }
                ((lo + hi) / 2.0).floor()
            }
        };
        Some(key)
    }

    /// Ends the search: why, and whether it reached its precision.
    fn end(&mut self, why: String, converged: bool) -> Option<f64> {
        self.ended = Some((why, converged));
        None
    }

    /// Takes in a completed level the search asked for (`n`); gives the step as it stands.
    pub fn measured(&mut self, n: Next, r: &LevelResult) -> Step {
        let secs = r.elapsed_s.max(1e-9);
        if n.probe {
            let tps = r.total.events as f64 / secs;
            self.probe_tps = Some(tps);
            if tps <= 0.0 {
                self.end("the closed-loop probe completed no event".into(), false);
            }
            let step = self.step(&r.total, secs, n, 1, true);
            self.steps.push(step.clone());
            return step;
        }
        let key = if n.rate > 0.0 { n.rate } else { n.threads as f64 };
        let mut p = match self.pending.take() {
            Some(p) if p.key == key => p,
            _ => Pending { key, w: Window::default(), elapsed: 0.0, tries: 0 },
        };
        p.w.merge(&r.total);
        p.elapsed += secs;
        p.tries += 1;
        let step = self.step(&p.w, p.elapsed, n, p.tries, false);
        // A step run again replaces its earlier, undecided row.
        match self.steps.last_mut() {
            Some(last) if !last.probe && last.rate == n.rate && last.threads == n.threads && last.verdict == Verdict::Undecided.name() => *last = step.clone(),
            _ => self.steps.push(step.clone()),
        }
        match step.verdict.as_str() {
            "met" if self.met.is_none_or(|(k, _)| key > k) => self.met = Some((key, step.achieved)),
            "missed" if self.missed.is_none_or(|k| key < k) => self.missed = Some(key),
            "undecided" => self.pending = Some(p),
            _ => {}
        }
        step
    }

    /// Judges merged runs of one step.
    fn step(&self, w: &Window, secs: f64, n: Next, tries: usize, probe: bool) -> Step {
        let settle = tries >= self.spec.tries;
        let terms = self.spec.objective.judge(w, settle);
        let mut verdict = overall(&terms);
        let achieved = w.events as f64 / secs;
        let mut why = String::new();
        if n.rate > 0.0 && !probe {
            // The clients fell behind the arrivals: the rate is not sustained, whatever the
            // latency of what did complete.
            if w.dropped > 0 || fell_behind(n.rate, secs, w.events) {
                verdict = Verdict::Missed;
                why = if w.dropped > 0 {
                    format!("{} arrivals dropped: the queue was full", w.dropped)
                } else {
                    format!("completed {achieved:.2}/s of {:.2}/s offered: the clients fell behind", n.rate)
                };
            }
        }
        Step {
            probe,
            threads: n.threads,
            rate: n.rate,
            achieved,
            events: w.events,
            errors: w.errors,
            p50_ms: w.pct_ms(50.0),
            p99_ms: w.pct_ms(99.0),
            mean_ms: if w.lat.is_empty() { 0.0 } else { w.lat.mean() / 1000.0 },
            tries,
            terms,
            verdict: verdict.name().into(),
            why,
        }
    }

    /// What the search found; `stopped`: why it ended early (Ctrl-C, a failed level).
    pub fn outcome(&self, stopped: Option<String>) -> Capacity {
        let converged = stopped.is_none() && self.ended.as_ref().is_some_and(|e| e.1);
        let ended = match stopped {
            Some(s) => format!("{s}: the bracket reached is kept"),
            None => self.ended.as_ref().map_or_else(|| "not finished".into(), |e| e.0.clone()),
        };
        let threads = match (self.spec.by, self.met) {
            (Dimension::Threads, Some((k, _))) => k as usize,
            _ => self.threads,
        };
        Capacity {
            objective: self.spec.objective.to_string(),
            by: self.spec.by.name().into(),
            met: self.met.map(|m| m.0),
            missed: self.missed,
            capacity: self.met.map(|m| m.1),
            threads,
            precision: self.spec.precision,
            steps: self.steps.clone(),
            ended,
            converged,
        }
    }
}

/// The share of a stored capacity a `--soak` runs at when no `--rate` is given.
pub const SOAK_SHARE: f64 = 0.7;

/// `--soak` without `--rate`: [`SOAK_SHARE`] of the capacity the latest `--find-max` stored for
/// this workload on this target, said in one line. None: not a soak, or its rate was given.
pub fn soak_rate(plan: &crate::workload::plan::Plan, cfg: &crate::db::ConnConfig) -> crate::error::Result<Option<f64>> {
    let c = &plan.run;
    if !c.soak || c.rate > 0.0 || plan.command != crate::workload::plan::BenchCommand::Run {
        return Ok(None);
    }
    let target = cfg.target.to_string();
    let found = match &c.outputs.store {
        Some(path) => crate::store::latest_capacity(path, &plan.workload, &target)?,
        None => None,
    };
    let Some((run, cap)) = found else {
        return Err(crate::error::Error::Usage(format!(
            "--soak needs a rate: give --rate N, or first run --find-max 'p99<=20ms' with {} on this target (no capacity of it is stored{})",
            plan.workload,
            c.outputs.store.as_ref().map(|p| format!(" in {}", p.display())).unwrap_or_default()
        )));
    };
    let Some(capacity) = cap.capacity else {
        return Err(crate::error::Error::Usage(format!("--soak: run {run}'s --find-max met its objective ({}) at no rate: give --rate N", cap.objective)));
    };
    let rate = capacity * SOAK_SHARE;
    let line = format!(
        "Soak: {} at {rate:.2}/s, {:.0}% of the capacity {capacity:.2}/s that run {run} found under {} with {} clients",
        crate::units::human_secs(c.time),
        SOAK_SHARE * 100.0,
        cap.objective,
        cap.threads
    );
    if c.outputs.console.json() {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
    Ok(Some(rate))
}

/// A step's level name, as stored and shown: "probe (closed loop)", "800.0/s offered", "16 clients".
pub fn level_name(n: Next) -> String {
    if n.probe {
        "find-max probe (closed loop)".into()
    } else if n.rate > 0.0 {
        format!("find-max {:.1}/s offered", n.rate)
    } else {
        format!("find-max {}", clients(n.threads))
    }
}

/// The line before a step's reports.
pub fn banner(i: usize, n: Next) -> String {
    let what = if n.probe {
        format!("closed-loop probe with {}", clients(n.threads))
    } else if n.rate > 0.0 {
        format!("{:.1}/s offered to {}", n.rate, clients(n.threads))
    } else {
        format!("{}, closed loop", clients(n.threads))
    };
    format!("\nfind-max step {}: {what}", i + 1)
}

/// The line after a step: each term's estimate and interval, and the verdict.
pub fn verdict_line(s: &Step) -> String {
    let terms: Vec<String> = s
        .terms
        .iter()
        .map(|t| {
            let hi = if t.high.is_finite() { format!("{:.3}", t.high) } else { "?".into() };
            if t.term.starts_with("errors") {
                format!("{}: {:.3}% [{:.3}, {}]", t.term, t.value * 100.0, t.low * 100.0, if t.high.is_finite() { format!("{:.3}", t.high * 100.0) } else { "?".into() })
            } else {
                format!("{}: {:.3} ms [{:.3}, {hi}]", t.term, t.value, t.low)
            }
        })
        .collect();
    let why = if s.why.is_empty() { String::new() } else { format!("; {}", s.why) };
    let what = if s.probe { "probe".to_string() } else { s.verdict.clone() };
    format!("find-max: {:.2} events/s; {} (95% intervals); {what}{why}", s.achieved, terms.join(", "))
}

fn pct(f: f64) -> String {
    let s = format!("{:.2}", f * 100.0);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::capacity::Objective;
    use crate::model::Stop;

    /// A server that completes at most `cap` events/s, with latency that climbs as the offered
    /// rate nears it (an M/M/1 queue's mean, 1 ms of service).
    fn level(n: Next, cap: f64) -> LevelResult {
        let secs = 10.0;
        let rate = if n.rate > 0.0 { n.rate } else { cap };
        let done = rate.min(cap);
        let mut w = Window::default();
        let rho = (rate / cap).min(0.999);
        let mean_us = 1000.0 / (1.0 - rho);
        let events = (done * secs) as u64;
        // Exponential latencies with that mean, by their quantiles.
        for i in 0..events {
            let u = (i as f64 + 0.5) / events as f64;
            w.record((-mean_us * (1.0 - u).ln()) as u64, 0, false);
        }
        if n.rate > cap {
            // Behind: fewer events than offered.
            w.events = (cap * secs) as u64;
        }
        LevelResult {
            threads: n.threads,
            total: w,
            elapsed_s: secs,
            clients: Vec::new(),
            cpu_user_s: 0.0,
            cpu_sys_s: 0.0,
            intervals: Vec::new(),
            stop: Stop::Completed,
            rate: n.rate,
            outage: None,
            name: None,
            figures: Vec::new(),
            connect_s: 0.0,
        }
    }

    fn run(spec: FindMax, cap: f64) -> Capacity {
        let mut s = Search::new(spec, 4);
        while let Some(n) = s.next_level() {
            s.measured(n, &level(n, cap));
        }
        s.outcome(None)
    }

    #[test]
    fn the_rate_search_brackets_the_rate_where_the_percentile_crosses_its_bound() {
        // p99 of an exponential with mean 1/(1-rho) ms is 4.6/(1-rho): 20 ms at rho = 0.77.
        let spec = FindMax { objective: "p99<=20ms".parse::<Objective>().unwrap(), by: Dimension::Rate, precision: 0.02, tries: 3 };
        let c = run(spec, 1000.0);
        assert!(c.converged, "{c:?}");
        let met = c.met.unwrap();
        let missed = c.missed.unwrap();
        assert!(met < missed && (missed - met) <= 0.02 * met + 1e-9, "{met} {missed}");
        assert!((700.0..800.0).contains(&met), "met at {met}");
        assert!(c.steps[0].probe);
        assert!(c.steps.iter().skip(1).all(|s| !s.probe));
    }

    #[test]
    fn an_objective_met_flat_out_converges_just_under_what_the_server_completes() {
        let spec = FindMax { objective: "p99<=10s".parse::<Objective>().unwrap(), by: Dimension::Rate, precision: 0.05, tries: 3 };
        let c = run(spec, 500.0);
        assert!(c.converged, "{c:?}");
        let (met, missed) = (c.met.unwrap(), c.missed.unwrap());
        assert!(missed > 500.0 && missed - met <= 0.05 * met + 1e-9, "{c:?}");
        assert!((475.0..=500.0).contains(&c.capacity.unwrap()), "{c:?}");
    }

    /// A closed-loop probe that came out low (a capped server's short runs varied by 20%) set
    /// the bracket's upper end at 105% of it, and the search stopped there.
    #[test]
    fn a_probe_that_came_out_low_does_not_cap_the_search() {
        let spec = FindMax { objective: "p99<=10s".parse::<Objective>().unwrap(), by: Dimension::Rate, precision: 0.04, tries: 3 };
        let mut s = Search::new(spec, 4);
        while let Some(n) = s.next_level() {
            let mut l = level(n, 1000.0);
            if n.probe {
                l.total.events = 7_000;
            }
            s.measured(n, &l);
        }
        let c = s.outcome(None);
        assert!(c.converged, "{c:?}");
        assert!((960.0..=1000.0).contains(&c.capacity.unwrap()), "{c:?}");
    }

    #[test]
    fn an_objective_nothing_meets_ends_saying_so() {
        let spec = FindMax { objective: "p99<=0.001ms".parse::<Objective>().unwrap(), by: Dimension::Rate, precision: 0.05, tries: 1 };
        let c = run(spec, 500.0);
        assert!(!c.converged && c.met.is_none() && c.capacity.is_none());
        assert!(c.ended.starts_with("no rate down to"), "{}", c.ended);
    }
}
