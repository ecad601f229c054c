//! Capacity under an objective (`--find-max 'p99<=20ms'`): the objective as typed, how one
//! measured step is judged against it with the confidence its sample size gives, and what a
//! search found, as it is printed and stored. The search itself is the runner's
//! ([`crate::runner::search`]).

use crate::stats::Window;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Two-sided 95% normal quantile: every interval here is a 95% one.
const Z: f64 = 1.96;

/// What one term of an objective bounds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Metric {
    /// A latency percentile (99 for p99, 99.9 for p99.9).
    Percentile(f64),
    /// The mean latency.
    Mean,
    /// Errors per attempted event (errors / (events + errors)).
    Errors,
}

/// One bound: latency in milliseconds, or an error share as a fraction.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Term {
    pub metric: Metric,
    pub limit: f64,
}

/// Every term must hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Objective {
    pub terms: Vec<Term>,
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.metric {
            Metric::Percentile(p) => write!(f, "p{}<={}ms", trim(p), trim(self.limit)),
            Metric::Mean => write!(f, "mean<={}ms", trim(self.limit)),
            Metric::Errors => write!(f, "errors<={}%", trim(self.limit * 100.0)),
        }
    }
}

impl fmt::Display for Objective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t: Vec<String> = self.terms.iter().map(|t| t.to_string()).collect();
        write!(f, "{}", t.join(","))
    }
}

/// A number without a useless fraction: 20 not 20.0, 99.9 as is.
fn trim(v: f64) -> String {
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl std::str::FromStr for Objective {
    type Err = String;

    /// `p99<=20ms`, `p99.9<50ms`, `mean<=5ms`, `errors<=1%`, joined by `,` or ` and `.
    fn from_str(s: &str) -> Result<Objective, String> {
        const HELP: &str = "write it as p99<=20ms, mean<=5ms or errors<=1% (several joined by commas: 'p99<=20ms,errors<=0.1%')";
        let terms = s
            .split(',')
            .flat_map(|p| p.split(" and "))
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (name, value) = p.split_once("<=").or_else(|| p.split_once('<')).ok_or_else(|| format!("'{p}' has no bound: {HELP}"))?;
                let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
                let metric = match name.as_str() {
                    "mean" | "avg" => Metric::Mean,
                    "errors" | "error_rate" | "error-rate" => Metric::Errors,
                    n => match n.strip_prefix('p').and_then(|v| v.parse::<f64>().ok()) {
                        Some(q) if q > 0.0 && q < 100.0 => Metric::Percentile(q),
                        _ => return Err(format!("'{name}' is not a percentile, mean or errors: {HELP}")),
                    },
                };
                let limit = if metric == Metric::Errors {
                    let v = value.strip_suffix('%').ok_or_else(|| format!("'{p}': give the error share in percent (errors<=1%)"))?;
                    v.trim().parse::<f64>().ok().filter(|v| (0.0..=100.0).contains(v)).ok_or_else(|| format!("'{p}': the share must be from 0% to 100%"))? / 100.0
                } else {
                    latency_ms(value).ok_or_else(|| format!("'{p}': give a latency above 0 with its unit (20ms, 500us, 1.5s)"))?
                };
                Ok(Term { metric, limit })
            })
            .collect::<Result<Vec<Term>, String>>()?;
        if terms.is_empty() {
            return Err(format!("the objective is empty: {HELP}"));
        }
        Ok(Objective { terms })
    }
}

/// "20ms", "500us", "1.5s" (a bare number: milliseconds) in milliseconds.
fn latency_ms(v: &str) -> Option<f64> {
    let (num, scale) = if let Some(n) = v.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = v.strip_suffix("us").or_else(|| v.strip_suffix("µs")) {
        (n, 1e-3)
    } else if let Some(n) = v.strip_suffix('s') {
        (n, 1e3)
    } else {
        (v, 1.0)
    };
    num.trim().parse::<f64>().ok().filter(|x| x.is_finite() && *x > 0.0).map(|x| x * scale)
}

/// Share of the offered rate below which an open-loop level did not keep up.
const RATE_SUSTAINED: f64 = 0.95;

/// An open-loop level offered `rate` events/s for `secs` and completed `events`: whether it
/// fell behind its arrivals, beyond their own randomness (Poisson: 3 standard deviations of the
/// expected count), so a short level at a sustainable rate is not taken as behind.
pub fn fell_behind(rate: f64, secs: f64, events: u64) -> bool {
    let expected = rate * secs;
    let short = expected - events as f64;
    (events as f64) < RATE_SUSTAINED * expected && short > 3.0 * expected.sqrt()
}

/// What a search varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dimension {
    /// The offered rate of an open-loop run (events/s), at a fixed client count.
    Rate,
    /// The client count of a closed-loop run.
    Threads,
}

impl Dimension {
    pub fn name(self) -> &'static str {
        match self {
            Dimension::Rate => "rate",
            Dimension::Threads => "threads",
        }
    }
}

/// `--find-max` as given.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FindMax {
    pub objective: Objective,
    pub by: Dimension,
    /// The bracket is narrow enough when its width is at most this share of its lower end.
    pub precision: f64,
    /// Runs of one step at most when its interval straddles a bound.
    pub tries: usize,
}

/// A step's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    Met,
    Missed,
    /// The 95% interval holds the bound: more events are needed to say.
    Undecided,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::Missed => "missed",
            Verdict::Undecided => "undecided",
        }
    }
}

/// One term measured: its estimate, 95% interval and verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    pub term: String,
    pub value: f64,
    pub low: f64,
    pub high: f64,
    pub verdict: Verdict,
}

/// The percentile `q` (0-100) of `w`'s latency with its 95% interval, in ms: the interval's
/// ends are the values at the ranks n*q -/+ 1.96 sqrt(n*q*(1-q)) (the order statistics'
/// binomial interval, distribution-free).
pub fn percentile_interval(w: &Window, q: f64) -> (f64, f64, f64) {
    let n = w.lat.len() as f64;
    if n == 0.0 {
        return (0.0, 0.0, f64::INFINITY);
    }
    let p = q / 100.0;
    let half = Z * (n * p * (1.0 - p)).sqrt();
    let at = |rank: f64| w.lat.value_at_quantile((rank / n).clamp(0.0, 1.0)) as f64 / 1000.0;
    // Fewer than a handful of events beyond the percentile: its upper end is unknown.
    let high = if n * (1.0 - p) < 5.0 { f64::INFINITY } else { at(n * p + half) };
    (at(n * p), at(n * p - half), high)
}

/// The share of attempts that failed, with its 95% Wilson interval.
fn error_interval(errors: u64, events: u64) -> (f64, f64, f64) {
    let n = (errors + events) as f64;
    if n == 0.0 {
        return (0.0, 0.0, 1.0);
    }
    let p = errors as f64 / n;
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    (p, (centre - half).max(0.0), (centre + half).min(1.0))
}

fn verdict(low: f64, high: f64, limit: f64) -> Verdict {
    if high <= limit {
        Verdict::Met
    } else if low > limit {
        Verdict::Missed
    } else {
        Verdict::Undecided
    }
}

impl Objective {
    /// Each term against what `w` measured. `settle`: decide an undecided term by its estimate
    /// (the step ran as often as it may).
    pub fn judge(&self, w: &Window, settle: bool) -> Vec<Judged> {
        self.terms
            .iter()
            .map(|t| {
                let (value, low, high) = match t.metric {
                    Metric::Percentile(q) => percentile_interval(w, q),
                    Metric::Mean => {
                        let n = w.lat.len() as f64;
                        let mean = w.lat.mean() / 1000.0;
                        let half = if n > 1.0 { Z * w.lat.stdev() / 1000.0 / n.sqrt() } else { f64::INFINITY };
                        (mean, mean - half, mean + half)
                    }
                    Metric::Errors => error_interval(w.errors, w.events),
                };
                let mut v = verdict(low, high, t.limit);
                if settle && v == Verdict::Undecided {
                    v = if value <= t.limit { Verdict::Met } else { Verdict::Missed };
                }
                Judged { term: t.to_string(), value, low, high, verdict: v }
            })
            .collect()
    }
}

/// All terms met: met; any missed: missed; else undecided.
pub fn overall(j: &[Judged]) -> Verdict {
    if j.iter().any(|t| t.verdict == Verdict::Missed) {
        Verdict::Missed
    } else if j.iter().all(|t| t.verdict == Verdict::Met) {
        Verdict::Met
    } else {
        Verdict::Undecided
    }
}

/// One step of a search as measured (its tries merged).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Step {
    /// The closed-loop probe that sized the search.
    pub probe: bool,
    pub threads: usize,
    /// Offered events/s (0: closed loop).
    pub rate: f64,
    /// Completed events/s.
    pub achieved: f64,
    pub events: u64,
    pub errors: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub mean_ms: f64,
    /// Runs merged into this step.
    pub tries: usize,
    pub terms: Vec<Judged>,
    /// met, missed or undecided (the probe: its verdict, not used by the search).
    pub verdict: String,
    /// Why a step missed besides its terms (the clients could not keep up).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub why: String,
}

/// What a search found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Capacity {
    pub objective: String,
    pub by: String,
    /// The highest rate (or client count) that met the objective.
    pub met: Option<f64>,
    /// The lowest that missed it above `met` (None: none above it was measured).
    pub missed: Option<f64>,
    /// Completed events/s at `met`: the capacity.
    pub capacity: Option<f64>,
    /// The client count of the rate steps, or the best count of a thread search.
    pub threads: usize,
    pub precision: f64,
    pub steps: Vec<Step>,
    /// How the search ended: converged, or why it stopped before.
    pub ended: String,
    /// The search reached its precision.
    pub converged: bool,
}

impl Capacity {
    fn unit(&self) -> &'static str {
        if self.by == Dimension::Threads.name() {
            " clients"
        } else {
            "/s"
        }
    }

    /// "between 1180/s (met) and 1250/s (missed)" or what is known.
    pub fn bracket_text(&self) -> String {
        let u = self.unit();
        match (self.met, self.missed) {
            (Some(a), Some(b)) => format!("between {}{u} (met) and {}{u} (missed)", round(a), round(b)),
            (Some(a), None) => format!("at least {}{u} (met; nothing above it missed)", round(a)),
            (None, Some(b)) => format!("below {}{u} (missed; nothing met)", round(b)),
            (None, None) => "nothing measured".into(),
        }
    }

    /// The block printed after a search.
    pub fn text(&self) -> String {
        let mut s = format!("\nCapacity under {} (find-max over the {}, {} steps):\n", self.objective, self.by, self.steps.len());
        match self.capacity {
            Some(c) if self.by == Dimension::Threads.name() => s.push_str(&format!("    capacity:                          {c:.2} events/s with {}\n", clients(self.threads))),
            Some(c) => s.push_str(&format!("    capacity:                          {c:.2} events/s ({})\n", clients(self.threads))),
            None => s.push_str("    capacity:                          none: no step met the objective\n"),
        }
        s.push_str(&format!("    bracket:                           {}\n", self.bracket_text()));
        s.push_str(&format!("    search:                            {}\n", self.ended));
        s.push_str("    step  clients  offered/s   achieved/s   p50 ms    p99 ms    errors  tries  verdict\n");
        for (i, st) in self.steps.iter().enumerate() {
            let offered = if st.probe {
                "probe".to_string()
            } else if st.rate > 0.0 {
                format!("{:.1}", st.rate)
            } else {
                "closed".into()
            };
            s.push_str(&format!(
                "    {:>4}  {:>7}  {:>9}  {:>11.2}  {:>8.3}  {:>8.3}  {:>6}  {:>5}  {}{}\n",
                i + 1,
                st.threads,
                offered,
                st.achieved,
                st.p50_ms,
                st.p99_ms,
                st.errors,
                st.tries,
                st.verdict,
                if st.why.is_empty() { String::new() } else { format!(" ({})", st.why) }
            ));
        }
        s
    }
}

/// "1 client", "8 clients".
pub fn clients(n: usize) -> String {
    format!("{n} client{}", if n == 1 { "" } else { "s" })
}

fn round(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(lat_us: &[u64], errors: u64) -> Window {
        let mut w = Window::default();
        for &v in lat_us {
            w.record(v, v, false);
        }
        w.errors = errors;
        w
    }

    #[test]
    fn objectives_read_as_typed_and_print_canonically() {
        let o: Objective = "p99<=20ms, mean<5 and errors<=0.5%".parse().unwrap();
        assert_eq!(o.terms.len(), 3);
        assert_eq!(o.terms[0], Term { metric: Metric::Percentile(99.0), limit: 20.0 });
        assert_eq!(o.terms[1].limit, 5.0);
        assert!((o.terms[2].limit - 0.005).abs() < 1e-12);
        assert_eq!(o.to_string(), "p99<=20ms,mean<=5ms,errors<=0.5%");
        let o: Objective = "p99.9<=1.5s".parse().unwrap();
        assert_eq!(o.terms[0], Term { metric: Metric::Percentile(99.9), limit: 1500.0 });
        assert_eq!("p95<=500us".parse::<Objective>().unwrap().terms[0].limit, 0.5);
        for bad in ["", "p99", "p100<=1ms", "q99<=1ms", "p99<=0ms", "errors<=2", "errors<=200%"] {
            assert!(bad.parse::<Objective>().is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn a_percentile_far_from_its_bound_is_decided_and_one_at_it_is_not() {
        // 10,000 events, 1% of them at 50 ms, the rest at 1 ms: p99 sits on the edge.
        let mut lat = vec![1000u64; 9900];
        lat.extend(std::iter::repeat_n(50_000, 100));
        let w = window(&lat, 0);
        let o: Objective = "p99<=10ms".parse().unwrap();
        assert_eq!(overall(&o.judge(&w, false)), Verdict::Undecided);
        assert_eq!(overall(&o.judge(&w, true)), Verdict::Met, "the estimate (1 ms) decides when settled");
        let o: Objective = "p98<=10ms".parse().unwrap();
        assert_eq!(overall(&o.judge(&w, false)), Verdict::Met);
        let o: Objective = "p99.9<=10ms".parse().unwrap();
        assert_eq!(overall(&o.judge(&w, false)), Verdict::Missed);
    }

    #[test]
    fn errors_are_judged_by_their_wilson_interval() {
        let w = window(&vec![1000; 10_000], 10);
        let j = "errors<=1%".parse::<Objective>().unwrap().judge(&w, false);
        assert_eq!(j[0].verdict, Verdict::Met);
        assert!(j[0].low < 0.001 && j[0].high > 0.001 && j[0].high < 0.01, "{j:?}");
        let w = window(&vec![1000; 100], 5);
        assert_eq!("errors<=1%".parse::<Objective>().unwrap().judge(&w, false)[0].verdict, Verdict::Missed);
    }
}
