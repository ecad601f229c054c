//! The environment's sampler through a run: started by the driver before
//! the first level (the start snapshot), told of each level's start,
//! release, report intervals and end as one of the run's sinks, and
//! finished after the last level (the end snapshot). It reads the database
//! under test on its own connection; what it reads goes to the writer the
//! driver gives it (the results store's, and the live view's).

use crate::db::{ConnConfig, DatasetTables};
use crate::env::oncpu::ProfileServer;
use crate::env::{SampleRow, Sampler, Snapshot};
use crate::model::{Interval, LevelResult, RunInfo, Sink};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the sampler reads, and how often.
pub struct SamplingSetup {
    pub tables: DatasetTables,
    pub period: Duration,
    /// The server host's node exporter, sampled with the server's counters.
    pub server_metrics: Option<String>,
    /// Where the server's time goes, sampled with its counters (`--server-time`).
    pub server_time: bool,
    pub profile_server: Option<ProfileServer>,
    /// The workload's run changes its own tables ([`crate::workload::Dataset::reshapes_tables`]):
    /// the end snapshot says so.
    pub reshaped_by_run: bool,
}

/// The running sampler; [`Sampling::sink`] feeds it the run's levels.
pub struct Sampling {
    state: Arc<Mutex<State>>,
}

struct State {
    sampler: Option<Sampler>,
    level_no: usize,
    in_level: bool,
    reshaped_by_run: bool,
}

impl Sampling {
    /// Starts the sampler on its thread and returns it with the start snapshot.
    pub fn start(cfg: &Arc<ConnConfig>, setup: SamplingSetup, write: Box<dyn FnMut(&SampleRow) + Send>) -> (Sampling, Snapshot) {
        let mut write = write;
        let reshaped_by_run = setup.reshaped_by_run;
        let (sampler, snap) = Sampler::start(cfg.clone(), setup.tables, setup.period, setup.server_metrics, setup.server_time, setup.profile_server, Box::new(move |row: SampleRow| write(&row)));
        (Sampling { state: Arc::new(Mutex::new(State { sampler: Some(sampler), level_no: 0, in_level: false, reshaped_by_run })) }, snap)
    }

    pub fn sink(&self) -> Box<dyn Sink> {
        Box::new(SamplingSink { state: self.state.clone() })
    }

    /// The end snapshot; the sampler stops (None when it had stopped, or
    /// did not answer in time).
    pub fn finish(&self) -> Option<Snapshot> {
        let mut state = self.state.lock().ok()?;
        let mut end = state.sampler.take()?.finish()?;
        end.server.reshaped_by_run = state.reshaped_by_run;
        Some(end)
    }
}

impl Drop for State {
    /// A run ended by an error that skipped `finish` still stops the sampler's thread.
    fn drop(&mut self) {
        if let Some(s) = self.sampler.take() {
            let _ = s.finish();
        }
    }
}

struct SamplingSink {
    state: Arc<Mutex<State>>,
}

impl Sink for SamplingSink {
    fn before_start(&mut self) {
        let Ok(mut s) = self.state.lock() else { return };
        if s.in_level {
            s.level_no += 1;
        }
        s.in_level = true;
        if let Some(sampler) = &s.sampler {
            sampler.level_start(s.level_no, crate::model::interrupted);
        }
    }

    fn start(&mut self, _threads: usize) {
        if let Some(sampler) = self.state.lock().ok().as_ref().and_then(|s| s.sampler.as_ref()) {
            sampler.level_go(Instant::now());
        }
    }

    fn interval(&mut self, iv: &Interval, _rate_mode: bool) {
        if let Some(sampler) = self.state.lock().ok().as_ref().and_then(|s| s.sampler.as_ref()) {
            sampler.tick(iv.t);
        }
    }

    fn summary(&mut self, _r: &LevelResult, _info: &RunInfo) {
        if let Some(sampler) = self.state.lock().ok().as_ref().and_then(|s| s.sampler.as_ref()) {
            sampler.level_end();
        }
    }
}
