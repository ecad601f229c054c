//! A run as the results store keeps it and reads it back: the run, its
//! levels, intervals, environment samples and audit findings. The store
//! writes and loads these; the audit, the comparison and the renderers read
//! them.

use crate::env::{Sample, Snapshot};
use serde::{Deserialize, Serialize};

/// Where runs are recorded unless `--store` says otherwise.
pub const DEFAULT_STORE_PATH: &str = "fairbench-results.sqlite";
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Critical,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Finding {
    pub rule: String,
    pub severity: Severity,
    /// Run ids the finding is about.
    pub runs: Vec<i64>,
    pub message: String,
    pub evidence: Vec<String>,
    pub advice: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct IntervalRec {
    pub seq: usize,
    pub t: f64,
    pub secs: f64,
    pub warmup: bool,
    pub events: u64,
    pub reads: u64,
    pub writes: u64,
    pub other: u64,
    pub trx_stmts: u64,
    pub errors: u64,
    pub reconnects: u64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub p50_ms: f64,
    /// The slowest event that completed in the interval.
    pub max_ms: f64,
    /// The longest time no client completed an event, of the stalls that overlap it (0: none
    /// over 20 ms).
    pub stall_ms: f64,
    pub cpu_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub histogram: Option<String>,
    /// Events of each of the workload's kinds, in its order (empty: one kind).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<u64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StoredSample {
    pub seq: usize,
    pub t: f64,
    pub dt: f64,
    #[serde(flatten)]
    pub sample: Sample,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LevelRec {
    pub level_no: usize,
    pub threads: usize,
    pub status: String,
    pub started_at: String,
    pub ended_at: Option<String>,
    pub events: u64,
    pub queries: u64,
    pub trx_stmts: u64,
    pub elapsed_s: f64,
    pub tps: f64,
    pub qps: f64,
    pub qps_no_trx: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    /// fairbench's CPU in cores (user + system seconds per second): the
    /// client's, and with an embedded engine (SQLite) the engine's too.
    pub cpu_cores: f64,
    pub summary: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub histogram: Option<String>,
    pub intervals: Vec<IntervalRec>,
    pub samples: Vec<StoredSample>,
    /// The longest gaps without a completed event (None: not measured, as
    /// in runs recorded before it was).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outage: Option<crate::stats::gaps::Outage>,
    /// `--profile-server`: the server's on-CPU stacks over the measured
    /// time, folded ("frame;frame;frame samples" lines), or why there are none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Profile {
    pub folded: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Serialized as `results export` writes it, and read back from such a
/// file (a `compare --baseline` kept in a repository).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RunRecord {
    pub id: i64,
    pub kind: String,
    pub label: String,
    pub tag: String,
    pub workload: String,
    pub engine: String,
    pub target: String,
    pub transport: String,
    pub tool_version: String,
    pub options: super::options::RunOptions,
    pub started_at: String,
    pub ended_at: Option<String>,
    pub status: String,
    pub error: Option<String>,
    pub hostname: String,
    pub pid: i64,
    pub env_start: Option<Snapshot>,
    pub env_end: Option<Snapshot>,
    pub findings: Vec<Finding>,
    /// `--find-max`: what the search found (None: not a search).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<super::capacity::Capacity>,
    pub levels: Vec<LevelRec>,
    /// `--verify-writes`: the verdict on the run's writes, as its JSON
    /// "writes" object (None: not verified).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writes: Option<Value>,
}

/// One load level's repetitions in a series: every completed measurement
/// with the same client count, in run order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Repeated {
    pub threads: usize,
    /// The step, for a workload whose levels are steps (each its own level).
    pub step: Option<String>,
    pub tps: Vec<f64>,
    pub p95_ms: Vec<f64>,
    pub p99_ms: Vec<f64>,
}

impl Repeated {
    pub fn key(&self) -> LevelKey {
        LevelKey { step: self.step.clone(), threads: self.threads }
    }

    /// Groups (threads, tps, p95, p99) measurements by client count, in the
    /// order each count first ran.
    pub fn group(measured: impl IntoIterator<Item = (usize, f64, f64, f64)>) -> Vec<Repeated> {
        Repeated::group_steps(measured.into_iter().map(|(t, tps, p95, p99)| (None, t, tps, p95, p99)))
    }

    /// As [`Repeated::group`], levels of different steps apart.
    pub fn group_steps(measured: impl IntoIterator<Item = (Option<String>, usize, f64, f64, f64)>) -> Vec<Repeated> {
        let mut out: Vec<Repeated> = Vec::new();
        for (step, threads, tps, p95, p99) in measured {
            let at = match out.iter().position(|r| r.threads == threads && r.step == step) {
                Some(i) => i,
                None => {
                    out.push(Repeated { threads, step, ..Repeated::default() });
                    out.len() - 1
                }
            };
            let r = &mut out[at];
            r.tps.push(tps);
            r.p95_ms.push(p95);
            r.p99_ms.push(p99);
        }
        out
    }
}

impl LevelRec {
    /// The step of a sequence the level ran (its workload names its
    /// levels), from its stored summary; None: the level is its client count.
    pub fn step(&self) -> Option<&str> {
        self.summary.as_ref()?.get("step")?.as_str()
    }

    /// Figures its workload measured, as (name, value), in stored order.
    pub fn figures(&self) -> Vec<(String, String)> {
        let Some(Value::Object(m)) = self.summary.as_ref().and_then(|s| s.get("figures")) else { return Vec::new() };
        m.iter().map(|(k, v)| (k.clone(), v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()))).collect()
    }

    /// Its events by kind as stored (`name`, `events`, `rollbacks`,
    /// `latency_ms`); empty when its workload has no kinds.
    pub fn kinds(&self) -> &[Value] {
        self.summary.as_ref().and_then(|s| s.get("kinds")).and_then(|k| k.as_array()).map_or(&[], Vec::as_slice)
    }

    /// How reports name the level in a sentence: its step, or its client count.
    pub fn at(&self) -> String {
        self.key().at()
    }

    /// Its heading: "step l.i1, 8 threads" or "8 threads".
    pub fn heading(&self) -> String {
        match self.step() {
            Some(s) => format!("step {s}, {} threads", self.threads),
            None => format!("{} threads", self.threads),
        }
    }

    pub fn key(&self) -> LevelKey {
        LevelKey { step: self.step().map(str::to_string), threads: self.threads }
    }
}

/// What levels of different runs are matched by: the step (for a
/// workload whose levels are steps), else the client count. Steps of one
/// name match whatever their client counts (CH-benCHmark's mixed phase
/// with more streams is still the mixed phase: the audit names the
/// difference).
#[derive(Clone, Debug)]
pub struct LevelKey {
    pub step: Option<String>,
    pub threads: usize,
}

impl PartialEq for LevelKey {
    fn eq(&self, other: &Self) -> bool {
        match (&self.step, &other.step) {
            (Some(a), Some(b)) => a == b,
            (None, None) => self.threads == other.threads,
            _ => false,
        }
    }
}

impl Eq for LevelKey {}

impl LevelKey {
    /// A table's first column: the step, or the client count.
    pub fn cell(&self) -> String {
        self.step.clone().unwrap_or_else(|| self.threads.to_string())
    }

    /// In a sentence: "l.i1" for a step, "8 threads" for a level that is its client count.
    pub fn at(&self) -> String {
        match &self.step {
            Some(s) => s.clone(),
            None => format!("{} threads", self.threads),
        }
    }

    /// A table's first column heading: "step" where any level is a step.
    pub fn heading(any_step: bool) -> &'static str {
        if any_step {
            "step"
        } else {
            "threads"
        }
    }

    /// The keys of `levels` in the order they first ran; levels without a
    /// step sorted by client count.
    pub fn of(levels: impl IntoIterator<Item = LevelKey>) -> Vec<LevelKey> {
        let mut out: Vec<LevelKey> = Vec::new();
        for k in levels {
            if !out.contains(&k) {
                out.push(k);
            }
        }
        if out.iter().all(|k| k.step.is_none()) {
            out.sort_by_key(|k| k.threads);
        }
        out
    }
}

impl RunRecord {
    /// The completed levels grouped by client count: a level run several
    /// times (`--repeat`) has several measurements.
    pub fn repeated(&self) -> Vec<Repeated> {
        Repeated::group_steps(self.levels.iter().filter(|l| l.status == "completed").map(|l| (l.step().map(str::to_string), l.threads, l.tps, l.p95_ms, l.p99_ms)))
    }

    /// Runs of one configuration (alternated with another's, one process
    /// each) as one series: the first run's record with every run's levels,
    /// in order. None when there is no run.
    pub fn merged(runs: Vec<RunRecord>) -> Option<RunRecord> {
        if runs.len() < 2 {
            return runs.into_iter().next();
        }
        let mut it = runs.into_iter();
        let mut first = it.next()?;
        let mut n = first.repeat().max(1);
        for r in it {
            n += r.repeat().max(1);
            first.levels.extend(r.levels);
        }
        for (i, l) in first.levels.iter_mut().enumerate() {
            l.level_no = i;
        }
        first.options.control.repeat = Some(n);
        Some(first)
    }

    /// Repetitions asked per level (`--repeat`; 1 for runs recorded before it existed).
    pub fn repeat(&self) -> usize {
        self.options.control.repeat.unwrap_or(1)
    }

    /// Whether a `running` record's process is still alive on this host.
    pub fn still_running(&self) -> bool {
        if self.status != "running" {
            return false;
        }
        let here = std::fs::read_to_string("/proc/sys/kernel/hostname").map(|s| s.trim().to_string()).unwrap_or_default();
        // SAFETY: kill with signal 0 only checks that the process exists.
        here == self.hostname && self.pid > 0 && unsafe { libc::kill(self.pid as libc::pid_t, 0) } == 0
    }

    pub fn status_text(&self) -> String {
        match self.status.as_str() {
            "running" if self.still_running() => "still running".into(),
            "running" => "did not finish: the process ended without recording an end (killed?)".into(),
            "completed" => "completed".into(),
            s => match &self.error {
                Some(e) => format!("{s}: {e}"),
                None => s.to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LevelKey;

    /// A mixed phase of a run with more analytic streams has more
    /// clients: `compare` said "not run" on both sides instead of setting
    /// the two mixed phases side by side.
    #[test]
    fn steps_of_one_name_match_whatever_their_client_counts() {
        let step = |s: &str, threads| LevelKey { step: Some(s.to_string()), threads };
        let level = |threads| LevelKey { step: None, threads };
        assert_eq!(step("mixed", 3), step("mixed", 4));
        assert_ne!(step("mixed", 3), step("alone", 3));
        assert_eq!(level(8), level(8));
        assert_ne!(level(8), level(16));
        assert_ne!(step("8", 8), level(8));
    }
}
