//! Open loop (`--rate`): the arrivals a worker's clients take their
//! events' intended start times from.

use super::worker::Local;
use crate::model::Arrivals;
use crate::rand::Rng;
use crate::timer::PreciseTimer;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Arrivals for this worker's share of `--rate`, spaced as `spacing` says,
/// at their intended times (computed from the schedule, not from when the
/// timer fired). Even arrivals start at a random point of their first gap,
/// as YCSB's threads do, so that the workers do not all fire at once.
///
/// When the schedule is behind and the queue is full, every arrival up to
/// now is dropped: they are counted from the time behind and the rate
/// instead of drawn one loop turn each (a rate of 1e9/s would otherwise
/// keep this task busy forever and starve the ticker on its thread).
///
/// None is due after `end` (the deadline of `--time`): the run's events are
/// those of its time, whenever the ticker gets round to stopping it.
pub(super) async fn arrivals(local: Rc<Local>, start: Instant, end: Option<Instant>, rate: f64, spacing: Arrivals, cap: usize, mut rng: Rng) {
    let mut next = start;
    let mut first = true;
    let mut timer = PreciseTimer::new();
    // Turns since this task last suspended: the ticker and the clients
    // share this thread, so a schedule that is behind must still yield.
    let mut turns = 0u32;
    loop {
        let gap = match spacing {
            Arrivals::Poisson => -(1.0 - rng.uniform_double()).ln() / rate,
            Arrivals::Even if first => rng.uniform_double() / rate,
            Arrivals::Even => 1.0 / rate,
        };
        first = false;
        next += Duration::from_secs_f64(gap);
        if end.is_some_and(|end| next > end) {
            break;
        }
        let now = Instant::now();
        if next > now {
            timer.sleep_until(next).await;
            turns = 0;
        } else {
            turns += 1;
            if turns >= 64 {
                tokio::task::yield_now().await;
                turns = 0;
            }
        }
        if local.stop.get() {
            break;
        }
        if local.queue.borrow().len() >= cap {
            let now = Instant::now();
            let behind = now.saturating_duration_since(next).as_secs_f64();
            local.window.borrow_mut().dropped += 1 + (behind * rate) as u64;
            next = next.max(now);
            continue;
        }
        local.queue.borrow_mut().push_back(next);
        local.notify.notify_one();
    }
}
