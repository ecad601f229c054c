//! The outage of a level: the longest time without a completed event,
//! overall, for writes and per event kind, with the errors seen in it.
//!
//! Exact and cheap: each client keeps the time of its own last success per
//! class (overall, writes, each kind). When a success comes more than
//! [`THRESHOLD`] after the previous one of its class, the client writes
//! that gap (and the errors it saw since) into its worker's window; a
//! shorter one costs a subtraction. A gap of the whole level is a time
//! range in which no client completed an event, so it lies inside a gap of
//! every client; any level-wide gap longer than the threshold is therefore
//! the intersection of gaps that were all recorded, and the reporter finds
//! it exactly by intersecting the clients' gaps as the windows arrive.
//!
//! Why 20 ms: a gap that short is an ordinary slow event (an fsync, a
//! page read), not an outage, and recording only gaps above it keeps the
//! records to a few per client per second even when every event is slow.
//! Gaps shorter than it are not measured: the level's is then reported as
//! "under 20 ms".
//!
//! Classes: 0 is every event, 1 the events that wrote anything, 2 + k the
//! workload's kind k (when it has kinds).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

/// Gaps shorter than this are not recorded (see the module's comment).
pub const THRESHOLD: Duration = Duration::from_millis(20);

/// How often a client says how far its record of gaps is complete, so the
/// reporter can settle (and forget) what lies before.
const BEAT: Duration = Duration::from_millis(200);

/// Errors a client holds while it waits for a success (a class that never
/// succeeds, as writes in a read-only run, holds them all); beyond this the
/// older half goes, so the latest gap keeps its errors.
const PENDING_MAX: usize = 4096;

/// Errors the reporter holds for gaps not yet settled; beyond this the
/// older half goes, as for [`PENDING_MAX`].
const ERRORS_MAX: usize = 1 << 20;

pub const ALL: usize = 0;
pub const WRITE: usize = 1;

/// A client's gap in one class: from its last success to its next (`to`
/// None: the client ended without another).
#[derive(Clone, Debug)]
pub struct GapRec {
    pub client: u32,
    pub class: u16,
    pub from: Instant,
    pub to: Option<Instant>,
}

/// A client's record of gaps is complete up to its last success in each class.
#[derive(Clone, Debug)]
pub struct Beat {
    pub client: u32,
    pub last: Vec<Instant>,
}

/// What the clients of one worker recorded in one interval.
#[derive(Clone, Debug, Default)]
pub struct GapLog {
    pub gaps: Vec<GapRec>,
    /// Errors inside a recorded gap: (when, code).
    pub errors: Vec<(Instant, String)>,
    pub beats: Vec<Beat>,
}

impl GapLog {
    pub fn merge(&mut self, o: &GapLog) {
        self.gaps.extend_from_slice(&o.gaps);
        self.errors.extend_from_slice(&o.errors);
        self.beats.extend_from_slice(&o.beats);
    }

    pub fn is_empty(&self) -> bool {
        self.gaps.is_empty() && self.errors.is_empty() && self.beats.is_empty()
    }
}

/// One client's side: its last success per class and the errors since.
pub struct GapTracker {
    client: u32,
    last: Vec<Instant>,
    pending: Vec<(Instant, String)>,
    next_beat: Instant,
}

impl GapTracker {
    /// `kinds`: the workload's number of event kinds (0: one kind).
    pub fn new(client: usize, kinds: usize, now: Instant) -> GapTracker {
        GapTracker { client: client as u32, last: vec![now; 2 + kinds], pending: Vec::new(), next_beat: now + BEAT }
    }

    /// Passes an event's outcome through, keeping its error's code and time.
    /// `code`: the error's code, None for one that only says the run stopped.
    pub fn seen<T, E>(&mut self, r: Result<T, E>, code: impl Fn(&E) -> Option<&String>) -> Result<T, E> {
        if let Some(c) = r.as_ref().err().and_then(code) {
            let c = if c.is_empty() { "connection-lost" } else { c.as_str() };
            if self.pending.len() >= PENDING_MAX {
                self.pending.drain(..PENDING_MAX / 2);
            }
            self.pending.push((Instant::now(), c.to_string()));
        }
        r
    }

    /// An event completed at `end`: `wrote` if it wrote anything, `kind`
    /// for workloads with kinds. In rate mode `intended` is the event's
    /// scheduled start: a client that had nothing to do until then was
    /// idle, not failing, so its gaps start there at the earliest.
    pub fn success(&mut self, log: &mut GapLog, intended: Option<Instant>, end: Instant, wrote: bool, kind: Option<usize>) {
        if let Some(t) = intended {
            self.idle_until(t);
        }
        self.close(log, ALL, end);
        if wrote {
            self.close(log, WRITE, end);
        }
        if let Some(k) = kind.filter(|k| 2 + k < self.last.len()) {
            self.close(log, 2 + k, end);
        }
        // Errors before every class's last success are in no gap to come
        // (they are in time order: drop the prefix, usually nothing).
        if self.pending.first().is_some_and(|e| e.0 < end) {
            let oldest = self.last.iter().min().copied().unwrap_or(end);
            let stale = self.pending.partition_point(|e| e.0 < oldest);
            self.pending.drain(..stale);
        }
        if end >= self.next_beat {
            log.beats.push(Beat { client: self.client, last: self.last.clone() });
            self.next_beat = end + BEAT;
        }
    }

    /// Rate mode: the client had nothing to do until `t` (its next
    /// arrival, or the run's end with none queued), so no gap of it starts
    /// earlier.
    pub fn idle_until(&mut self, t: Instant) {
        for l in &mut self.last {
            *l = (*l).max(t);
        }
    }

    fn close(&mut self, log: &mut GapLog, class: usize, end: Instant) {
        let from = self.last[class];
        if end.saturating_duration_since(from) > THRESHOLD {
            log.gaps.push(GapRec { client: self.client, class: class as u16, from, to: Some(end) });
            self.flush_errors(log, from);
        }
        self.last[class] = end;
    }

    /// Errors from `from` on go to the log (once: the reporter keeps them).
    fn flush_errors(&mut self, log: &mut GapLog, from: Instant) {
        let at = self.pending.partition_point(|e| e.0 < from);
        log.errors.extend(self.pending.drain(at..));
    }

    /// The client ended: in every class it is in a gap until the level's end.
    pub fn end(&mut self, log: &mut GapLog) {
        for (class, &from) in self.last.iter().enumerate() {
            log.gaps.push(GapRec { client: self.client, class: class as u16, from, to: None });
        }
        let oldest = self.last.iter().min().copied().unwrap_or_else(Instant::now);
        self.flush_errors(log, oldest);
    }
}

/// The longest level-wide gap of one class.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GapSpan {
    /// Seconds from the start of the measured level (after warmup).
    pub from_s: f64,
    pub to_s: f64,
    pub secs: f64,
    /// Still going at the level's end: no event of the class completed after it began.
    pub open: bool,
    /// Errors any client got inside the gap, by engine code.
    pub errors: BTreeMap<String, u64>,
}

/// A level's outage: per class, the longest gap above the threshold (None:
/// none was longer).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Outage {
    pub threshold_ms: f64,
    pub all: Option<GapSpan>,
    pub write: Option<GapSpan>,
    /// In the order of the workload's kinds (empty: one kind).
    pub kinds: Vec<KindGap>,
}

/// The longest gap of one event kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KindGap {
    pub name: String,
    pub gap: Option<GapSpan>,
}

impl Outage {
    /// One line per class: overall always, writes when the level wrote
    /// (`wrote`), a kind when `show_kind(index, gap)` says it is worth one.
    pub fn lines(&self, wrote: bool, show_kind: impl Fn(usize, &GapSpan) -> bool) -> Vec<String> {
        let line = |what: &str, g: &Option<GapSpan>| match g {
            Some(g) => format!("Longest gap without a completed {what}: {}", g.text()),
            None => format!("Longest gap without a completed {what}: under {} ms", self.threshold_ms),
        };
        let mut v = vec![line("event", &self.all)];
        if wrote {
            v.push(line("write", &self.write));
        }
        for (i, k) in self.kinds.iter().enumerate() {
            if let Some(g) = k.gap.as_ref().filter(|g| show_kind(i, g)) {
                v.push(format!("Longest gap without a completed {}: {}", k.name, g.text()));
            }
        }
        v
    }
}

/// A gap worth a line of its own: at least 1 s, and ten times the p99
/// latency of its events, so a slow kind's ordinary waits stay quiet.
pub fn remarkable(gap_s: f64, p99_ms: f64) -> bool {
    gap_s >= 1.0 && gap_s * 1e3 >= 10.0 * p99_ms
}

/// A gap of one kind worth a line: remarkable, and ten times the mean time
/// between the kind's completions over the level (`events` in
/// `elapsed_s`), so a kind that runs rarely by design (an analytic query
/// once per stream's round) stays quiet between its turns.
pub fn remarkable_kind(gap_s: f64, p99_ms: f64, events: u64, elapsed_s: f64) -> bool {
    remarkable(gap_s, p99_ms) && gap_s >= 10.0 * elapsed_s / events.max(1) as f64
}

impl GapSpan {
    /// "4.21 s, from 32.10 s (errors: 2013 x12, 1053 x3)".
    pub fn text(&self) -> String {
        let mut s = if self.open { format!("{:.3} s, from {:.2} s to the level's end (still none then)", self.secs, self.from_s) } else { format!("{:.3} s, from {:.2} s", self.secs, self.from_s) };
        if !self.errors.is_empty() {
            let parts: Vec<String> = self.errors.iter().map(|(c, n)| format!("{c} x{n}")).collect();
            s.push_str(&format!(" (errors: {})", parts.join(", ")));
        }
        s
    }
}

/// One class's level-wide gaps, settled as the clients' records arrive.
struct ClassMerge {
    /// Per client, its gaps not yet passed (from, to; to infinite: ended).
    recs: Vec<VecDeque<(f64, f64)>>,
    /// Per client: its gaps are all known up to here.
    known: Vec<f64>,
    /// Everything before is settled.
    cursor: f64,
    best: Option<(f64, f64)>,
    best_errors: BTreeMap<String, u64>,
    best_open: bool,
}

/// The reporter's side: intersects the clients' gaps, class by class.
pub struct GapMerger {
    t0: Instant,
    /// The measured level's end when it has a time limit (seconds from t0):
    /// what clients completed after it, winding down, is not the level's.
    limit: Option<f64>,
    classes: Vec<ClassMerge>,
    /// Errors inside some client's recorded gap: (seconds from t0, code).
    errors: Vec<(f64, String)>,
    /// Level-wide gaps without any completed event settled since [`take_stalls`](Self::take_stalls)
    /// last took them: (from, to) in seconds from t0.
    stalls: Vec<(f64, f64)>,
}

impl GapMerger {
    /// `t0`: the start of the measured level (times are reported from it);
    /// `started`: when the clients started (their gaps start there at the
    /// earliest); `limit`: the measured time, when the level has one.
    pub fn new(clients: usize, kinds: usize, t0: Instant, started: Instant, limit: Option<f64>) -> GapMerger {
        let s = secs_since(t0, started);
        let classes = (0..2 + kinds)
            .map(|_| ClassMerge { recs: vec![VecDeque::new(); clients], known: vec![s; clients], cursor: f64::NEG_INFINITY, best: None, best_errors: BTreeMap::new(), best_open: false })
            .collect();
        GapMerger { t0, limit, classes, errors: Vec::new(), stalls: Vec::new() }
    }

    /// Takes in what one window recorded.
    pub fn absorb(&mut self, log: GapLog) {
        for (at, code) in log.errors {
            if self.errors.len() >= ERRORS_MAX {
                // Oldest first as they came (a client's in time order).
                self.errors.drain(..ERRORS_MAX / 2);
            }
            self.errors.push((secs_since(self.t0, at), code));
        }
        for g in &log.gaps {
            let to = g.to.map(|t| secs_since(self.t0, t)).unwrap_or(f64::INFINITY);
            self.add_gap(g.class as usize, g.client as usize, secs_since(self.t0, g.from), to);
        }
        for b in &log.beats {
            for (class, &t) in b.last.iter().enumerate() {
                self.beat(class, b.client as usize, secs_since(self.t0, t));
            }
        }
        self.settle();
    }

    /// The level-wide stalls (gaps of every event longer than [`THRESHOLD`]) settled since the
    /// last call, in seconds from t0.
    pub fn take_stalls(&mut self) -> Vec<(f64, f64)> {
        std::mem::take(&mut self.stalls)
    }

    /// Client `client`'s gap in `class` (to = infinity: it ended).
    pub fn add_gap(&mut self, class: usize, client: usize, from: f64, to: f64) {
        let Some(c) = self.classes.get_mut(class) else { return };
        let Some(q) = c.recs.get_mut(client) else { return };
        // A client's gaps come in order; keep them so should one not.
        let at = q.iter().rposition(|r| r.0 <= from).map(|i| i + 1).unwrap_or(0);
        q.insert(at, (from, to));
        if to.is_finite() {
            c.known[client] = c.known[client].max(to);
        }
    }

    /// Client `client` had its last success in `class` at `t`.
    pub fn beat(&mut self, class: usize, client: usize, t: f64) {
        if let Some(k) = self.classes.get_mut(class).and_then(|c| c.known.get_mut(client)) {
            *k = k.max(t);
        }
    }

    /// Settles what every client's records now decide.
    pub fn settle(&mut self) {
        for i in 0..self.classes.len() {
            while let Some((a, b)) = self.classes[i].next() {
                self.offer(i, a, b, false);
            }
        }
        // Errors before every class's settled time can be in no gap to come.
        let before = self.classes.iter().map(|c| c.cursor).fold(f64::INFINITY, f64::min);
        if before.is_finite() && !self.errors.is_empty() {
            self.errors.retain(|e| e.0 >= before);
        }
    }

    fn offer(&mut self, class: usize, a: f64, b: f64, open: bool) {
        // Only what lies in the measured level counts: a gap past the time
        // limit was still going at the level's end.
        let a = a.max(0.0);
        let (b, open) = match self.limit {
            Some(l) if b > l => (l, true),
            _ => (b, open),
        };
        if b <= a {
            return;
        }
        if class == ALL && b - a > THRESHOLD.as_secs_f64() {
            self.stalls.push((a, b));
        }
        let c = &mut self.classes[class];
        if c.best.is_none_or(|(x, y)| b - a > y - x) {
            c.best = Some((a, b));
            let mut by_code = BTreeMap::new();
            for (t, code) in &self.errors {
                if *t >= a && *t <= b {
                    *by_code.entry(code.clone()).or_default() += 1;
                }
            }
            c.best_errors = by_code;
            c.best_open = open;
        }
    }

    /// The level ended `end_s` seconds after t0: clients that did not say
    /// they ended are taken as ended at their last success. A level without
    /// a time limit ends when its clients do, so it has no open gap unless
    /// `cut` (it was interrupted or failed). `wrote`: the
    /// level wrote anything (else it has no write gap); `kinds`: each
    /// kind's name and whether any event of it completed (else it has none).
    pub fn finish(mut self, end_s: f64, cut: bool, wrote: bool, kinds: &[(&str, bool)]) -> Outage {
        let end_s = self.limit.map_or(end_s, |l| l.min(end_s));
        for c in &mut self.classes {
            for (i, q) in c.recs.iter_mut().enumerate() {
                if q.back().is_none_or(|r| r.1.is_finite()) {
                    let from = c.known[i].max(q.back().map(|r| r.1).unwrap_or(f64::NEG_INFINITY));
                    q.push_back((from, f64::INFINITY));
                }
            }
        }
        self.settle();
        for i in 0..self.classes.len() {
            // Now every client's last record is open: what remains is the
            // level's open gap, if all of them are in it.
            if let Some(a) = self.classes[i].open_from().filter(|_| cut || self.limit.is_some()) {
                if a < end_s {
                    self.offer(i, a, end_s, true);
                }
            }
        }
        let threshold = THRESHOLD.as_secs_f64();
        let mut spans = self
            .classes
            .into_iter()
            .map(|c| c.best.filter(|(a, b)| b - a > threshold).map(|(a, b)| GapSpan { from_s: a, to_s: b.min(end_s), secs: b.min(end_s) - a, open: c.best_open, errors: c.best_errors }));
        let all = spans.next().flatten();
        let write = spans.next().flatten().filter(|_| wrote);
        let kinds = spans.zip(kinds).map(|(gap, &(name, ran))| KindGap { name: name.to_string(), gap: gap.filter(|_| ran) }).collect();
        Outage { threshold_ms: THRESHOLD.as_secs_f64() * 1e3, all, write, kinds }
    }
}

impl ClassMerge {
    /// The next settled level-wide gap, if the records decide one.
    fn next(&mut self) -> Option<(f64, f64)> {
        loop {
            let mut a = self.cursor;
            let mut b = f64::INFINITY;
            let mut blocked = false;
            for (i, q) in self.recs.iter_mut().enumerate() {
                while q.front().is_some_and(|r| r.1 <= self.cursor) {
                    q.pop_front();
                }
                match q.front() {
                    Some(&(f, t)) => {
                        a = a.max(f);
                        b = b.min(t);
                    }
                    // No gap known for this client: it completed events
                    // up to `known`, so no level-wide gap lies before.
                    None => {
                        a = a.max(self.known[i]);
                        blocked = true;
                    }
                }
            }
            if blocked {
                if a > self.cursor {
                    self.cursor = a;
                    continue;
                }
                return None;
            }
            if !b.is_finite() {
                return None;
            }
            self.cursor = b;
            if a < b {
                return Some((a, b));
            }
        }
    }

    /// Where the level's final open gap begins, once every client's
    /// remaining record is its open one.
    fn open_from(&self) -> Option<f64> {
        let mut a = self.cursor;
        for q in &self.recs {
            let &(f, t) = q.front()?;
            if t.is_finite() {
                return None;
            }
            a = a.max(f);
        }
        Some(a)
    }
}

fn secs_since(t0: Instant, t: Instant) -> f64 {
    if t >= t0 {
        t.duration_since(t0).as_secs_f64()
    } else {
        -t0.duration_since(t).as_secs_f64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merger(clients: usize) -> GapMerger {
        let t = Instant::now();
        GapMerger::new(clients, 0, t, t, None)
    }

    fn all(o: &Outage) -> (f64, f64, bool) {
        let s = o.all.as_ref().expect("a gap");
        ((s.from_s * 1e3).round() / 1e3, (s.to_s * 1e3).round() / 1e3, s.open)
    }

    /// Three clients stalled at different times: the level's gap is where
    /// all three were waiting, from the last success before to the first after.
    /// A kind that completes once per round of a stream (an analytic
    /// query) left seconds between its completions by design: no outage;
    /// the same gap in a kind that completes hundreds of times is one.
    #[test]
    fn a_kind_run_once_a_round_is_no_outage() {
        assert!(!remarkable_kind(6.4, 50.0, 1, 7.3), "one Q22 in a 7.3 s level");
        assert!(!remarkable_kind(3.0, 50.0, 4, 7.3), "four in 7.3 s: 1.8 s apart on average");
        assert!(remarkable_kind(3.0, 5.0, 2000, 7.3), "a New-Order stop of 3 s");
        assert!(!remarkable_kind(0.5, 5.0, 2000, 7.3), "under a second");
    }

    #[test]
    fn intersection_of_several_clients() {
        let mut m = merger(3);
        m.add_gap(ALL, 0, 1.0, 4.0);
        m.add_gap(ALL, 1, 1.5, 3.5);
        m.add_gap(ALL, 2, 1.2, 5.0);
        m.add_gap(ALL, 0, 6.0, 6.5);
        for c in 0..3 {
            m.beat(ALL, c, 9.99);
        }
        m.settle();
        let o = m.finish(10.0, true, true, &[]);
        assert_eq!(all(&o), (1.5, 3.5, false));
    }

    /// One client that kept completing means no level-wide gap, however
    /// long the others waited.
    #[test]
    fn a_client_that_kept_going_covers_the_level() {
        let mut m = merger(2);
        m.add_gap(ALL, 0, 1.0, 5.0);
        m.beat(ALL, 1, 9.995);
        let o = m.finish(10.0, true, true, &[]);
        assert!(o.all.is_none(), "{o:?}");
    }

    /// Two stalls: the longer is reported, wherever it comes.
    #[test]
    fn the_longest_of_several() {
        let mut m = merger(2);
        m.add_gap(ALL, 0, 1.0, 1.3);
        m.add_gap(ALL, 1, 1.0, 1.3);
        m.add_gap(ALL, 0, 5.0, 7.0);
        m.add_gap(ALL, 1, 4.9, 7.1);
        m.add_gap(ALL, 0, 8.0, 8.1);
        m.add_gap(ALL, 1, 8.0, 8.1);
        let o = m.finish(10.0, true, true, &[]);
        assert_eq!(all(&o), (5.0, 7.0, false));
    }

    /// A stall still going at the level's end is an open gap ending there.
    #[test]
    fn open_gap_at_the_end() {
        let mut m = merger(2);
        m.add_gap(ALL, 0, 7.0, f64::INFINITY);
        m.add_gap(ALL, 1, 7.5, f64::INFINITY);
        let o = m.finish(10.0, true, true, &[]);
        assert_eq!(all(&o), (7.5, 10.0, true));
    }

    /// A time-limited level: a gap past the limit is open at it, and the
    /// clients' wind-down after it is no gap.
    #[test]
    fn time_limit_ends_the_level() {
        let t = Instant::now();
        let mut m = GapMerger::new(2, 0, t, t, Some(10.0));
        m.add_gap(ALL, 0, 9.0, 10.4);
        m.add_gap(ALL, 1, 9.2, 10.5);
        m.add_gap(ALL, 0, 10.4, f64::INFINITY);
        m.add_gap(ALL, 1, 10.5, f64::INFINITY);
        let o = m.finish(10.6, false, true, &[]);
        assert_eq!(all(&o), (9.2, 10.0, true));
    }

    /// Without a time limit (--events) the level ends when its clients do:
    /// the last one's wind-down is no open gap.
    #[test]
    fn events_mode_has_no_open_gap() {
        let mut m = merger(2);
        m.add_gap(ALL, 0, 4.0, f64::INFINITY);
        m.add_gap(ALL, 1, 4.9, f64::INFINITY);
        let o = m.finish(5.0, false, true, &[]);
        assert!(o.all.is_none(), "{o:?}");
    }

    /// A client that ended early (its events done) does not hold the
    /// others' gap open or closed: after its end only the others count.
    #[test]
    fn a_client_that_ended() {
        let mut m = merger(2);
        m.add_gap(ALL, 0, 2.0, f64::INFINITY);
        m.add_gap(ALL, 1, 4.0, 6.0);
        m.beat(ALL, 1, 9.49);
        let o = m.finish(9.5, true, true, &[]);
        assert_eq!(all(&o), (4.0, 6.0, false));
    }

    /// A client that never said it ended (left behind) is taken as ended
    /// at its last known success.
    #[test]
    fn a_client_left_behind() {
        let mut m = merger(2);
        m.beat(ALL, 0, 3.0);
        m.add_gap(ALL, 1, 3.2, f64::INFINITY);
        let o = m.finish(5.0, true, true, &[]);
        assert_eq!(all(&o), (3.2, 5.0, true));
    }

    /// Warmup: a gap that ended before the measured start is not counted,
    /// one across it counts from the start.
    #[test]
    fn warmup_is_left_out() {
        let mut m = merger(1);
        m.add_gap(ALL, 0, -3.0, -1.0);
        m.add_gap(ALL, 0, -0.5, 0.4);
        m.add_gap(ALL, 0, 2.0, 2.1);
        m.beat(ALL, 0, 4.99);
        let o = m.finish(5.0, true, true, &[]);
        assert_eq!(all(&o), (0.0, 0.4, false));
    }

    /// Gaps under the threshold are not reported.
    #[test]
    fn below_threshold_is_none() {
        let mut m = merger(1);
        m.add_gap(ALL, 0, 1.0, 1.015);
        m.beat(ALL, 0, 4.99);
        let o = m.finish(5.0, true, true, &[]);
        assert!(o.all.is_none());
    }

    /// Errors are counted by code, only those inside the level-wide gap.
    #[test]
    fn errors_inside_the_gap_only() {
        let t0 = Instant::now();
        let at = |s: f64| t0 + Duration::from_secs_f64(s);
        let mut m = GapMerger::new(2, 0, t0, t0, None);
        let log = GapLog {
            gaps: vec![GapRec { client: 0, class: ALL as u16, from: at(1.0), to: Some(at(4.0)) }, GapRec { client: 1, class: ALL as u16, from: at(2.0), to: Some(at(3.0)) }],
            errors: vec![(at(1.5), "1205".into()), (at(2.5), "1205".into()), (at(2.6), "2013".into())],
            beats: vec![Beat { client: 0, last: vec![at(4.5); 2] }, Beat { client: 1, last: vec![at(4.5); 2] }],
        };
        m.absorb(log);
        let o = m.finish(5.0, true, true, &[]);
        let s = o.all.unwrap();
        assert_eq!(s.errors, BTreeMap::from([("1205".to_string(), 1), ("2013".to_string(), 1)]));
        assert!((s.secs - 1.0).abs() < 1e-6);
    }

    /// The client side: only gaps above the threshold are recorded, per
    /// class, with the errors seen in them; writes and kinds apart.
    #[test]
    fn tracker_records_classes() {
        // The error below is timed now, between the successes at 10 and 500 ms.
        let t0 = Instant::now() - Duration::from_millis(200);
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut g = GapTracker::new(0, 2, t0);
        let mut log = GapLog::default();
        g.success(&mut log, None, at(5), true, Some(0));
        g.success(&mut log, None, at(10), false, Some(1));
        assert!(log.gaps.is_empty());
        let _ = g.seen::<(), String>(Err("1205".into()), |e| Some(e));
        g.success(&mut log, None, at(500), false, Some(1));
        // all: 10 -> 500, write: 5 -> none yet, kind 1: 10 -> 500
        let got: Vec<(u16, u128)> = log.gaps.iter().map(|r| (r.class, r.to.unwrap().duration_since(r.from).as_millis())).collect();
        assert_eq!(got, vec![(0, 490), (3, 490)]);
        assert_eq!(log.errors.len(), 1);
        g.success(&mut log, None, at(600), true, Some(0));
        assert_eq!(log.gaps.last().map(|r| r.class), Some(2));
        g.end(&mut log);
        assert_eq!(log.gaps.iter().filter(|r| r.to.is_none()).count(), 4);
    }

    /// A class that never succeeds (writes in a read-only run) holds the
    /// errors back, but never so many that a later gap loses its own.
    #[test]
    fn errors_of_a_late_gap_survive_a_class_that_never_succeeds() {
        let t0 = Instant::now();
        let mut g = GapTracker::new(0, 0, t0);
        let mut log = GapLog::default();
        for _ in 0..3 * PENDING_MAX {
            let _ = g.seen::<(), String>(Err("1205".into()), |e| Some(e));
            g.success(&mut log, None, Instant::now(), false, None);
        }
        std::thread::sleep(Duration::from_millis(30));
        let _ = g.seen::<(), String>(Err("2013".into()), |e| Some(e));
        g.success(&mut log, None, Instant::now(), false, None);
        assert_eq!(log.errors.last().map(|e| e.1.as_str()), Some("2013"), "the last gap's error reached the log");
        assert!(g.pending.len() <= PENDING_MAX);
    }

    /// Rate mode: a client idle until its next arrival was not failing.
    #[test]
    fn idle_time_in_rate_mode_is_no_gap() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut g = GapTracker::new(0, 0, t0);
        let mut log = GapLog::default();
        g.success(&mut log, Some(at(400)), at(405), true, None);
        assert!(log.gaps.is_empty());
        g.success(&mut log, Some(at(406)), at(700), true, None);
        assert_eq!(log.gaps.len(), 2);
    }
}
