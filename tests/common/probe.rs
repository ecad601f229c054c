//! How late this machine wakes a sleeping thread, measured while a test's run goes on: a
//! timing assertion's tolerance then follows what the machine measurably did (a host with
//! 20% hypervisor steal wakes threads 100 ms late), instead of a fixed figure that a quiet
//! machine meets and a loaded one fails.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub struct WakeProbe {
    stop: Arc<AtomicBool>,
    join: JoinHandle<Duration>,
}

impl WakeProbe {
    /// Starts a thread that sleeps 5 ms at a time and keeps the largest oversleep.
    pub fn start() -> WakeProbe {
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let join = std::thread::spawn(move || {
            let mut worst = Duration::ZERO;
            while !s.load(Ordering::Relaxed) {
                let asked = Duration::from_millis(5);
                let t = Instant::now();
                std::thread::sleep(asked);
                worst = worst.max(t.elapsed().saturating_sub(asked));
            }
            worst
        });
        WakeProbe { stop, join }
    }

    /// The largest wake-up delay seen since the start.
    pub fn worst(self) -> Duration {
        self.stop.store(true, Ordering::Relaxed);
        self.join.join().unwrap()
    }
}

/// A tolerance for an event that passes `hops` thread wake-ups on its way: `base` on a quiet
/// machine, plus each hop's worst delay seen.
pub fn tolerance(base: f64, hops: u32, worst: Duration) -> f64 {
    base + hops as f64 * worst.as_secs_f64()
}
