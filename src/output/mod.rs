//! What a workload shows while it works, without knowing the sink that
//! renders it: a loader's progress line, and the standard console output a
//! family's own output prints or builds its lines on. The console (in
//! `live`) implements [`StandardOutput`]; the driver hands it to the
//! workload. The output options' values (`keys`) live here too, below every
//! module that reads them.

pub mod keys;
mod progress;

pub use keys::{CompareFormat, ConsoleFormat, FormatKey};
pub use progress::{say, Progress};

use crate::model::{Interval, LevelResult, RunInfo, Sink};
use serde_json::Value;

/// The standard console output (sysbench's format, or JSON lines).
pub trait StandardOutput: Sync {
    /// The standard console as a sink: JSON lines with `json`, else text.
    fn console(&self, json: bool, percentile: u32) -> Box<dyn Sink>;
    /// One interval's text line.
    fn interval_line(&self, iv: &Interval, percentile: u32) -> String;
    /// One interval as a JSON line.
    fn interval_json(&self, iv: &Interval, percentile: u32, rate_mode: bool) -> Value;
    /// A level's text report.
    fn summary_text(&self, r: &LevelResult, info: &RunInfo) -> String;
    /// A level's summary as a JSON line.
    fn summary_json(&self, r: &LevelResult, info: &RunInfo) -> Value;
}
