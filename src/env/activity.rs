//! Active-session sampling: for an engine whose counters do not time its
//! waits (PostgreSQL), a thread asks ten times a second what each of the
//! run's sessions is doing and credits the time since the previous look to
//! the wait each was caught in. The totals are cumulative seconds per wait
//! counter ([`crate::db::waits::key`]), which the interval sampler takes
//! with the engine's other counters, so each sample holds their movement.

use crate::db::ConnConfig;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Ten looks a second.
const EVERY: Duration = Duration::from_millis(100);
/// A look that came late credits no more than this: a stalled sampler
/// does not invent time.
const MOST: Duration = Duration::from_millis(500);

pub struct Activity {
    totals: Arc<Mutex<BTreeMap<String, f64>>>,
    stop: Arc<AtomicBool>,
    join: Option<JoinHandle<()>>,
}

impl Activity {
    /// Starts sampling on a connection of its own when the engine has a
    /// view of its sessions' activity; None when it has none.
    pub fn start(cfg: &Arc<ConnConfig>) -> Option<Activity> {
        let engine = cfg.engine().activity()?;
        let sql = engine.activity_sql(&cfg.target)?;
        let totals = Arc::new(Mutex::new(BTreeMap::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (t, s, cfg) = (totals.clone(), stop.clone(), cfg.clone());
        let join = std::thread::Builder::new()
            .name("fb-activity".into())
            .spawn(move || {
                let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
                rt.block_on(async move {
                    let Ok(Ok(mut c)) = tokio::time::timeout(Duration::from_secs(10), super::connect(&cfg)).await else { return };
                    let mut last = Instant::now();
                    while !s.load(Ordering::Relaxed) {
                        let rows = c.query_strings(&sql).await;
                        let now = Instant::now();
                        let dt = now.duration_since(last).min(MOST).as_secs_f64();
                        last = now;
                        // A failed look credits nothing; the next one tries again.
                        if let Ok(rows) = rows {
                            let mut m = t.lock().unwrap_or_else(|e| e.into_inner());
                            for w in rows.iter().filter_map(|r| engine.activity_wait(r)) {
                                *m.entry(w).or_insert(0.0) += dt;
                            }
                        }
                        std::thread::park_timeout(EVERY.saturating_sub(now.elapsed()));
                    }
                    c.close().await;
                });
            })
            .ok()?;
        Some(Activity { totals, stop, join: Some(join) })
    }

    /// Seconds per wait counter so far.
    pub fn totals(&self) -> BTreeMap<String, f64> {
        self.totals.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Drop for Activity {
    /// Stops the thread; one stuck in a look that does not return is left
    /// to end with the process after a second.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(j) = self.join.take() {
            j.thread().unpark();
            let until = Instant::now() + Duration::from_secs(1);
            while !j.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(5));
            }
            if j.is_finished() {
                let _ = j.join();
            }
        }
    }
}
