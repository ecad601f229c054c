//! A level's intervals kept in memory in a fixed size, however long it runs. Each interval is
//! stored (and printed) with its latencies as it ends; what the level keeps of it afterwards is
//! its counters ([`crate::stats::Window::compact`]). Past [`CAP`] intervals, neighbours are
//! merged two by two and each kept entry covers twice as many as before: a 24-hour run at one
//! interval a second keeps at most `CAP` entries, not 86,400, and the client's memory stays flat.

use crate::model::{Interval, RunControl, Sink};
use std::collections::BTreeMap;

/// Intervals kept at most.
pub const CAP: usize = 1024;

/// The kept intervals and how many measured ones each entry now covers.
pub struct Folded {
    kept: Vec<Interval>,
    /// Measured intervals per entry (warmup ones are never merged with measured ones).
    per: usize,
    /// Of the last entry: intervals merged into it so far.
    filling: usize,
}

impl Folded {
    pub fn new() -> Folded {
        Folded { kept: Vec::new(), per: 1, filling: 0 }
    }

    /// One more interval, its latencies already handed to the sinks.
    pub fn push(&mut self, iv: Interval) {
        match self.kept.last_mut() {
            Some(last) if self.filling < self.per && last.warmup == iv.warmup => {
                absorb(last, &iv);
                self.filling += 1;
            }
            _ => {
                self.kept.push(iv);
                self.filling = 1;
            }
        }
        if self.kept.len() >= CAP {
            self.fold();
        }
    }

    /// Merges neighbours two by two (a warmup entry only with a warmup one).
    fn fold(&mut self) {
        let mut out: Vec<Interval> = Vec::with_capacity(CAP / 2 + 1);
        let mut pending: Option<Interval> = None;
        for iv in self.kept.drain(..) {
            match pending.take() {
                Some(mut p) if p.warmup == iv.warmup => {
                    absorb(&mut p, &iv);
                    out.push(p);
                }
                Some(p) => {
                    out.push(p);
                    pending = Some(iv);
                }
                None => pending = Some(iv),
            }
        }
        // The odd one out is the last entry, still filling at the new size.
        let odd = pending.is_some();
        out.extend(pending);
        self.per *= 2;
        self.filling = if odd { self.per / 2 } else { self.per };
        self.kept = out;
    }

    pub fn into_vec(self) -> Vec<Interval> {
        self.kept
    }
}

/// Level-wide stalls placed on the intervals they overlap: on one not yet ended, kept until it
/// does; on one the sinks have, told to them ([`Sink::stall`]).
#[derive(Default)]
pub struct Stalls {
    /// The longest stall over each interval still to come, by its sequence number.
    ahead: BTreeMap<usize, f64>,
}

impl Stalls {
    /// `settled`: stalls in seconds from the measured start; `next`: the first interval the sinks
    /// have not had yet.
    pub fn place(&mut self, settled: Vec<(f64, f64)>, next: usize, rc: &RunControl, sink: &mut dyn Sink) {
        let warm = rc.warmup.as_secs_f64();
        for (a, b) in settled {
            let secs = b - a;
            for seq in seq_at(a + warm, rc)..=seq_at(b + warm, rc) {
                if seq < next {
                    sink.stall(seq, secs);
                } else {
                    let e = self.ahead.entry(seq).or_insert(0.0);
                    *e = e.max(secs);
                }
            }
        }
    }

    /// The longest stall known over interval `seq`, as it ends.
    pub fn of(&mut self, seq: usize) -> f64 {
        let s = self.ahead.remove(&seq).unwrap_or(0.0);
        // Intervals pass in order: nothing before this one is still to come.
        self.ahead.retain(|k, _| *k > seq);
        s
    }
}

/// The interval that time `t` (seconds from the level's start) falls in.
fn seq_at(t: f64, rc: &RunControl) -> usize {
    let step = if rc.report_interval.is_zero() { 1.0 } else { rc.report_interval.as_secs_f64() };
    let mut seq = ((t / step) as usize).saturating_sub(2);
    while super::boundary(seq, rc).as_secs_f64() < t {
        seq += 1;
    }
    seq
}

/// `b`, which came right after `a`, merged into it.
fn absorb(a: &mut Interval, b: &Interval) {
    a.t = b.t;
    a.secs += b.secs;
    a.threads = a.threads.max(b.threads);
    a.w.merge(&b.w);
    a.cpu_user_s += b.cpu_user_s;
    a.cpu_sys_s += b.cpu_sys_s;
    a.stall_s = a.stall_s.max(b.stall_s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Window;

    fn iv(t: f64, warmup: bool) -> Interval {
        let mut w = Window::counts_only();
        w.events = 10;
        Interval { t, secs: 1.0, threads: 4, warmup, w, cpu_user_s: 0.5, cpu_sys_s: 0.1, stall_s: 0.0 }
    }

    #[test]
    fn a_day_of_intervals_is_kept_in_a_fixed_size_with_every_event() {
        let mut f = Folded::new();
        for i in 0..5 {
            f.push(iv(i as f64 + 1.0, true));
        }
        let n = 86_400;
        for i in 5..n {
            f.push(iv(i as f64 + 1.0, false));
            assert!(f.kept.len() < CAP);
        }
        let kept = f.into_vec();
        assert!(kept.len() >= CAP / 4, "{}", kept.len());
        assert_eq!(kept.iter().map(|i| i.w.events).sum::<u64>(), 10 * n as u64);
        assert!((kept.iter().map(|i| i.secs).sum::<f64>() - n as f64).abs() < 1e-6);
        assert_eq!(kept.last().unwrap().t, n as f64);
        // Warmup stays apart, first, and whole.
        let warm: Vec<&Interval> = kept.iter().filter(|i| i.warmup).collect();
        assert_eq!(warm.iter().map(|i| i.secs).sum::<f64>(), 5.0);
        assert!(kept.iter().take_while(|i| i.warmup).count() == warm.len());
        // Entries follow each other without a gap or an overlap.
        for p in kept.windows(2) {
            assert!((p[1].t - p[1].secs - p[0].t).abs() < 1e-6, "{} {} {}", p[0].t, p[1].t, p[1].secs);
        }
    }
}
