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

#[derive(Clone, Debug, Default, Serialize)]
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
    pub cpu_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub histogram: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct StoredSample {
    pub seq: usize,
    pub t: f64,
    pub dt: f64,
    #[serde(flatten)]
    pub sample: Sample,
}

#[derive(Clone, Debug, Default, Serialize)]
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
}

#[derive(Clone, Debug, Default, Serialize)]
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
    pub options: serde_json::Map<String, Value>,
    pub started_at: String,
    pub ended_at: Option<String>,
    pub status: String,
    pub error: Option<String>,
    pub hostname: String,
    pub pid: i64,
    pub env_start: Option<Snapshot>,
    pub env_end: Option<Snapshot>,
    pub findings: Vec<Finding>,
    pub levels: Vec<LevelRec>,
}

impl RunRecord {
    pub fn opt(&self, k: &str) -> Option<&str> {
        self.options.get(k).and_then(Value::as_str)
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
