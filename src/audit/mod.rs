//! The fairness audit: rules over stored runs that say what makes a result
//! or a comparison misleading, with the evidence and what to do about it.
//!
//! Rules on one run look at its own intervals, levels and environment;
//! rules on several runs look for differences between them that change the
//! outcome more than the thing being compared (durability, memory fit,
//! transport, prepared statements...). Engines name their settings
//! differently, so settings are first normalised into classes.

mod hardware;
mod repetitions;

use crate::db::engines::page_reads;
use crate::env::durability::{durability, DurClass};
use crate::env::Server;
use crate::model::record::{Finding, Severity};
use crate::model::record::{LevelRec, RunRecord};
use crate::stats::gaps::GapSpan;

fn finding(rule: &str, severity: Severity, runs: Vec<i64>, message: String, evidence: Vec<String>, advice: &str) -> Finding {
    Finding { rule: rule.into(), severity, runs, message, evidence, advice: advice.into() }
}

// ---------------------------------------------------------------------------
// Memory fit
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    InMemory,
    PartlyIoBound,
    IoBound,
    Unknown,
}

impl Fit {
    pub fn name(self) -> &'static str {
        match self {
            Fit::InMemory => "in-memory",
            Fit::PartlyIoBound => "partly IO-bound",
            Fit::IoBound => "IO-bound",
            Fit::Unknown => "unknown",
        }
    }
}

/// Data against the engine's cache: fits with room to spare (≤ 90%),
/// up to twice the cache, or more.
fn fit_of(data: f64, cache: f64) -> Fit {
    let r = data / cache;
    if r <= 0.9 {
        Fit::InMemory
    } else if r <= 2.0 {
        Fit::PartlyIoBound
    } else {
        Fit::IoBound
    }
}

/// The memory a dataset is cached in: the engine's own cache, or for an
/// engine that reads through the OS page cache (SQLite) whichever is larger
/// of that and the memory the OS page cache can use. A file smaller than
/// the available memory stays in the OS page cache after its first read.
pub fn fit_cache(s: &Server) -> Option<u64> {
    let c = s.cache_bytes?.max(s.os_cache_bytes.unwrap_or(0));
    (c > 0).then_some(c)
}

/// The whole dataset against the engine's cache.
pub fn memory_fit(s: &Server) -> (Fit, String) {
    let h = |b: u64| crate::units::human_bytes(b as f64);
    match (s.dataset_bytes, s.cache_bytes) {
        (Some(d), Some(c)) if s.os_cache_bytes.is_some_and(|os| os > c) => {
            let os = s.os_cache_bytes.unwrap_or(0);
            let fit = fit_of(d as f64, os as f64);
            (fit, format!("dataset {} vs {} of memory available to the OS page cache it reads through ({:.0}%); its own cache is {}", h(d), h(os), d as f64 * 100.0 / os as f64, h(c)))
        }
        (Some(d), Some(c)) if c > 0 => {
            let r = d as f64 / c as f64;
            let fit = fit_of(d as f64, c as f64);
            // An engine that reads through the OS page cache: a "read" there may not touch the disk.
            let os_caches = crate::db::engines::named(&s.engine).is_none_or(|e| e.os_cache_holds_data());
            let os = if os_caches { "; the OS page cache may hold more" } else { "" };
            (fit, format!("dataset {} vs cache {} ({:.0}%){os}", crate::units::human_bytes(d as f64), crate::units::human_bytes(c as f64), r * 100.0))
        }
        // A store that keeps everything in memory reads nothing from disk, whatever the sizes.
        _ if durability(s).class == DurClass::InMemory => (Fit::InMemory, "the engine keeps all its data in memory (not durable)".into()),
        _ => (Fit::Unknown, "dataset or cache size unknown".into()),
    }
}

/// Physical reads per transaction and share of page requests that missed the cache, over a level.
pub fn level_reads(l: &LevelRec) -> Option<(f64, f64)> {
    let mut sum = std::collections::BTreeMap::new();
    for s in l.samples.iter().filter(|s| s.t > 0.0) {
        for (k, v) in &s.sample.deltas {
            *sum.entry(k.clone()).or_insert(0.0) += v;
        }
    }
    let (phys, logical) = page_reads(&sum)?;
    let per_trx = if l.events > 0 { phys / l.events as f64 } else { 0.0 };
    let miss = if logical > 0.0 { phys / logical } else { 0.0 };
    Some((per_trx, miss))
}

fn server_of(r: &RunRecord) -> Option<&Server> {
    r.env_start.as_ref().map(|e| &e.server)
}

fn says_io_bound(r: &RunRecord) -> bool {
    let t = format!("{} {}", r.label, r.tag).to_ascii_lowercase().replace(['_', ' '], "-");
    t.contains("io-bound") || t.contains("iobound")
}

// ---------------------------------------------------------------------------
// Rules on one run
// ---------------------------------------------------------------------------

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// A span of a level: from s, to s, and a figure over it (events/s, cores).
pub type Span = (f64, f64, f64);

/// A level's stalls: spans where throughput stayed below 10% of the
/// level's median for 2 s or more, as (from s, to s, events/s), with that
/// median. None when the level is too short or idle to tell.
pub fn stall_spans(l: &LevelRec) -> Option<(f64, Vec<Span>)> {
    let ivs: Vec<_> = l.intervals.iter().filter(|i| !i.warmup && i.secs > 0.0).collect();
    if ivs.len() < 3 {
        return None;
    }
    let mut rates: Vec<f64> = ivs.iter().map(|i| i.events as f64 / i.secs).collect();
    let med = median(&mut rates);
    if med <= 0.0 {
        return None;
    }
    let mut spans: Vec<Span> = Vec::new();
    let mut cur: Option<(f64, f64, u64, f64)> = None; // from, to, events, secs
    for i in &ivs {
        let low = (i.events as f64 / i.secs) < 0.1 * med;
        if low {
            let from = i.t - i.secs;
            cur = Some(match cur {
                Some((f, _, e, s)) => (f, i.t, e + i.events, s + i.secs),
                None => (from, i.t, i.events, i.secs),
            });
        } else if let Some((f, t, e, s)) = cur.take() {
            if s >= 2.0 - 1e-6 {
                spans.push((f, t, e as f64 / s));
            }
        }
    }
    if let Some((f, t, e, s)) = cur {
        if s >= 2.0 - 1e-6 {
            spans.push((f, t, e as f64 / s));
        }
    }
    Some((med, spans))
}

/// Intervals with throughput below 10% of the level's median for 2 s or more.
pub fn rule_stalls(r: &RunRecord) -> Vec<Finding> {
    let mut out = Vec::new();
    for l in &r.levels {
        let Some((med, spans)) = stall_spans(l) else { continue };
        if spans.is_empty() {
            continue;
        }
        let ev: Vec<String> = spans.iter().map(|(f, t, rate)| format!("{} threads: stall from {f:.0}s to {t:.0}s ({:.0} s) at {rate:.1} tps; median {med:.1} tps", l.threads, t - f)).collect();
        let total: f64 = spans.iter().map(|(f, t, _)| t - f).sum();
        out.push(finding(
            "stall",
            Severity::Warning,
            vec![r.id],
            format!("run {} at {} threads: throughput fell below 10% of its median for {total:.0} s ({} stall{})", r.id, l.threads, spans.len(), if spans.len() > 1 { "s" } else { "" }),
            ev,
            "averages hide stalls: look at checkpoints, locks (LOCK TABLES, DDL), purge lag or the disk at those times and rerun; compare per-interval figures, not only the summary",
        ));
    }
    out
}

/// Share of the client's cores above which a level's average counts as saturated.
const SATURATED_LEVEL: f64 = 0.85;
/// The same for one interval: a single interval is noisier, so the bar is higher.
const SATURATED_INTERVAL: f64 = 0.9;

/// Measured intervals where the client's own CPU was at or above
/// `SATURATED_INTERVAL` of its cores, merged into spans: (from s, to s, peak cores).
/// Warmup is not measured, and intervals under half a second are left out:
/// the CPU is read a little after each boundary, so over a short one the
/// ratio is mostly timing noise.
pub fn saturated_spans(l: &LevelRec, cores: usize) -> Vec<(f64, f64, f64)> {
    let limit = SATURATED_INTERVAL * cores as f64;
    let mut spans: Vec<(f64, f64, f64)> = Vec::new();
    let mut prev_hot = false;
    for i in l.intervals.iter().filter(|i| !i.warmup && i.secs >= 0.5) {
        let used = i.cpu_s / i.secs;
        let hot = used >= limit;
        match spans.last_mut() {
            Some(s) if hot && prev_hot => {
                s.1 = i.t;
                s.2 = s.2.max(used);
            }
            _ if hot => spans.push((i.t - i.secs, i.t, used)),
            _ => {}
        }
        prev_hot = hot;
    }
    spans
}

/// The client used nearly all the CPUs it has, over a level or in some of its intervals.
/// Not for an embedded engine (SQLite): there the process's CPU is the
/// engine's work as much as the client's, and a busy engine is the point
/// of the run, not a sign that the load generator held it back.
pub fn rule_client_saturation(r: &RunRecord) -> Vec<Finding> {
    if r.transport == "embedded" {
        return vec![];
    }
    let Some(cores) = r.env_start.as_ref().map(|e| e.host.cpus_available).filter(|c| *c > 0) else { return vec![] };
    let mut out = Vec::new();
    for l in &r.levels {
        let used = l.cpu_cores;
        let spans = saturated_spans(l, cores);
        if used < SATURATED_LEVEL * cores as f64 && spans.is_empty() {
            continue;
        }
        let mut ev = vec![format!("client CPU {used:.2} cores of {cores} available at {} threads (level average)", l.threads)];
        ev.extend(
            spans.iter().map(|(f, t, peak)| format!("{} threads: client CPU at {:.0}% of its cores or more from {f:.0}s to {t:.0}s (peak {peak:.2} cores)", l.threads, SATURATED_INTERVAL * 100.0)),
        );
        if r.env_start.as_ref().map(|e| e.server.local).unwrap_or(false) {
            ev.push("the server runs on the same machine and competes for the same CPUs".into());
        }
        let when = if spans.is_empty() { String::new() } else { format!(" (client CPU near its {cores} cores in {} span{})", spans.len(), if spans.len() > 1 { "s" } else { "" }) };
        out.push(finding(
            "client-saturation",
            Severity::Warning,
            vec![r.id],
            format!("run {} at {} threads: the load generator may be the bottleneck{when}", r.id, l.threads),
            ev,
            "run the client on another machine or give it more cores (--client-threads), then check that throughput stays the same",
        ));
    }
    out
}

/// No warmup and the first intervals far below the steady state.
pub fn rule_cold_start(r: &RunRecord) -> Vec<Finding> {
    let warm: f64 = r.opt("warmup-time").and_then(|v| v.parse().ok()).unwrap_or(0.0);
    if warm > 0.0 {
        return vec![];
    }
    let mut out = Vec::new();
    for l in &r.levels {
        let ivs: Vec<_> = l.intervals.iter().filter(|i| i.secs > 0.0).collect();
        if ivs.len() < 5 {
            continue;
        }
        let head = 2.max(ivs.len() / 10);
        let first: f64 = ivs[..head].iter().map(|i| i.events as f64).sum::<f64>() / ivs[..head].iter().map(|i| i.secs).sum::<f64>();
        let mut rest: Vec<f64> = ivs[head..].iter().map(|i| i.events as f64 / i.secs).collect();
        let steady = median(&mut rest);
        if steady > 0.0 && first < 0.5 * steady {
            out.push(finding(
                "cold-start",
                Severity::Warning,
                vec![r.id],
                format!("run {} at {} threads started cold: the first {head} s ran at {:.0}% of the steady state", r.id, l.threads, first * 100.0 / steady),
                vec![format!("first {head} intervals {first:.1} tps, median afterwards {steady:.1} tps, no --warmup-time")],
                "use --warmup-time (or `fairbench prewarm`) so caches are warm before measuring",
            ));
        }
    }
    out
}

/// A sweep whose TPS rises from one level to the next while physical reads
/// per transaction fall: the cache warmed during the sweep, the gain is not
/// the concurrency's.
pub fn rule_fake_io_gain(r: &RunRecord) -> Vec<Finding> {
    let mut out = Vec::new();
    for w in r.levels.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let (Some((ra, miss_a)), Some((rb, _))) = (level_reads(a), level_reads(b)) else { continue };
        // Below a percent of misses the cache is warm already: a change is noise.
        if a.tps > 0.0 && b.tps > a.tps * 1.05 && ra >= 0.1 && miss_a >= 0.01 && rb < ra * 0.8 {
            out.push(finding(
                "fake-io-bound-gain",
                Severity::Warning,
                vec![r.id],
                format!("run {}: TPS rose from {} to {} threads while physical reads per transaction fell: the cache was warming", r.id, a.threads, b.threads),
                vec![format!("{} threads: {:.1} tps, {ra:.2} reads/trx; {} threads: {:.1} tps, {rb:.2} reads/trx", a.threads, a.tps, b.threads, b.tps)],
                "prewarm (or run a warmup level first) until physical reads per transaction are stable, then sweep",
            ));
        }
    }
    out
}

/// Memory fit of one run, and a run called IO-bound whose data fits or that read nothing from disk.
pub fn rule_memory(r: &RunRecord) -> Vec<Finding> {
    let Some(s) = server_of(r) else { return vec![] };
    let (fit, why) = memory_fit(s);
    let mut out = vec![];
    let miss: Vec<(usize, f64, f64)> = r.levels.iter().filter_map(|l| level_reads(l).map(|(p, m)| (l.threads, p, m))).collect();
    let mut ev = vec![why.clone()];
    ev.extend(miss.iter().map(|(t, p, m)| format!("{t} threads: {p:.2} physical reads/trx, {:.2}% of page requests missed the cache", m * 100.0)));
    // A series' repetitions often read the same: each line once.
    let mut seen = std::collections::HashSet::new();
    ev.retain(|e| seen.insert(e.clone()));
    out.push(finding("memory-fit", Severity::Info, vec![r.id], format!("run {}: {}", r.id, fit.name()), ev.clone(), "compare runs only with the same memory fit"));
    if says_io_bound(r) {
        let observed_hits = !miss.is_empty() && miss.iter().all(|(_, _, m)| *m < 0.01);
        // Without counters, the part of the tables the run touched may fit
        // when the whole does not.
        let touched_fits = miss.is_empty() && touched_bytes(r, s).zip(fit_cache(s)).is_some_and(|(t, c)| fit_of(t, c as f64) == Fit::InMemory);
        if fit == Fit::InMemory || observed_hits || touched_fits {
            let why = if fit == Fit::InMemory {
                "the dataset fits in the cache"
            } else if touched_fits {
                "the part of the tables it touches fits in the cache"
            } else {
                "almost every page came from the cache"
            };
            out.push(finding(
                "not-io-bound",
                Severity::Critical,
                vec![r.id],
                format!("run {} is labelled IO-bound but is not: {why}", r.id),
                ev,
                "make the dataset several times larger than the buffer pool / shared_buffers (or shrink the cache), and check physical reads per transaction",
            ));
        }
    }
    out
}

/// `--table-size` and the rows per table, for a run over part of bigger
/// tables (recorded when the tables held well more than it touched).
fn touched_part(r: &RunRecord) -> Option<(u64, u64)> {
    let size: u64 = r.opt("table-size")?.parse().ok()?;
    let rows: u64 = r.opt("data-table-size")?.parse().ok()?;
    (rows > size && size > 0).then_some((size, rows))
}

/// Bytes of data and indexes in the part of the tables a partial run touched.
fn touched_bytes(r: &RunRecord, s: &Server) -> Option<f64> {
    let (size, rows) = touched_part(r)?;
    Some(s.dataset_bytes? as f64 * size as f64 / rows as f64)
}

/// A run that picked ids from part of bigger tables: its working set is
/// smaller than the dataset the memory fit describes, so a cached part can
/// pass for an IO-bound whole.
pub fn rule_working_set(r: &RunRecord) -> Vec<Finding> {
    let Some((size, rows)) = touched_part(r) else { return vec![] };
    let share = size as f64 / rows as f64;
    let mut ev = vec![format!("--table-size {size}; the tables hold ids up to {rows}")];
    if let Some(s) = server_of(r) {
        ev.push(memory_fit(s).1);
        if let Some(t) = touched_bytes(r, s) {
            ev.push(format!("the part touched is about {} of data and indexes", crate::units::human_bytes(t)));
        }
    }
    vec![finding(
        "partial-working-set",
        Severity::Warning,
        vec![r.id],
        format!("run {} touched ids 1..{size} of the {rows} in each table ({:.0}%): its working set is smaller than the data", r.id, share * 100.0),
        ev,
        "run with the --table-size the tables were prepared with, or prepare the size you mean to measure",
    )]
}

/// Share of the target rate below which a rate-mode level did not keep up.
const RATE_SUSTAINED: f64 = 0.95;

/// Rate mode (`--rate`): a level that fell short of its target rate, or
/// dropped arrivals, measured how long events waited in the client's own
/// queue, not how fast the server answers. A shortfall counts only beyond
/// the arrivals' own randomness (Poisson: 3 standard deviations of the
/// expected count), so a short run at a sustainable rate stays quiet.
pub fn rule_rate_not_sustained(r: &RunRecord) -> Vec<Finding> {
    let mut out = Vec::new();
    for l in &r.levels {
        let field = |k: &str| l.summary.as_ref().and_then(|s| s.get(k)).and_then(|v| v.as_f64());
        let target = field("rate").or_else(|| r.opt("rate").and_then(|v| v.parse().ok())).unwrap_or(0.0);
        if target <= 0.0 || l.elapsed_s <= 0.0 {
            continue;
        }
        let dropped = field("dropped").unwrap_or(0.0) as u64;
        let expected = target * l.elapsed_s;
        let short = expected - l.events as f64;
        let fell_short = l.tps < RATE_SUSTAINED * target && short > 3.0 * expected.sqrt();
        if !fell_short && dropped == 0 {
            continue;
        }
        let mut ev = vec![
            format!("target {target:.2} events/s"),
            format!("achieved {:.2} events/s ({:.0}% of the target) at {} threads", l.tps, l.tps * 100.0 / target, l.threads),
            format!("dropped {dropped} arrivals (queue full{})", r.opt("queue-max").map(|q| format!(" at --queue-max={q}")).unwrap_or_default()),
        ];
        let p95 = |k: &str| l.summary.as_ref().and_then(|s| s.get(k)).and_then(|h| h.get("p95")).and_then(|v| v.as_f64());
        if let (Some(queued), Some(served)) = (p95("latency_ms"), p95("latency_uncorrected_ms")) {
            ev.push(format!("p95 latency {queued:.2} ms from the intended start, {served:.2} ms from the actual start"));
        }
        out.push(finding(
            "rate-not-sustained",
            Severity::Warning,
            vec![r.id],
            format!("run {} at {} threads: target rate not sustained: latency measures the client's queue", r.id, l.threads),
            ev,
            "lower --rate below the throughput a closed-loop run reaches (or add --threads), so that latency measures the server",
        ));
    }
    out
}

/// Read-only runs whose QPS counts BEGIN/COMMIT.
pub fn rule_qps_trx(r: &RunRecord) -> Vec<Finding> {
    if !crate::workload::family::is_read_only(&r.workload) {
        return vec![];
    }
    let mut out = vec![];
    for l in &r.levels {
        if l.trx_stmts > 0 && l.elapsed_s > 0.0 {
            out.push(finding(
                "qps-includes-trx",
                Severity::Info,
                vec![r.id],
                format!("run {} at {} threads: QPS {:.1} counts BEGIN/COMMIT; without them {:.1}", r.id, l.threads, l.qps, l.qps_no_trx),
                vec![format!("{} BEGIN/COMMIT statements in {:.1} s", l.trx_stmts, l.elapsed_s)],
                "compare read-only QPS without BEGIN/COMMIT, or run with --skip-trx on every side",
            ));
        }
    }
    out
}

pub fn rule_unfinished(r: &RunRecord) -> Vec<Finding> {
    if r.status == "completed" {
        return vec![];
    }
    vec![finding(
        "unfinished",
        Severity::Warning,
        vec![r.id],
        format!("run {} did not finish ({})", r.id, r.status_text()),
        vec![format!("{} level(s) stored, {} interval(s)", r.levels.len(), r.levels.iter().map(|l| l.intervals.len()).sum::<usize>())],
        "figures cover only what ran; rerun before comparing",
    )]
}

/// The rule of [`rule_lost_writes`], which a later `check writes` replaces.
pub const LOST_WRITES: &str = "lost-writes";

/// `--verify-writes` found acknowledged writes missing from the target
/// afterwards: the server (or its failover) lost commits it had confirmed,
/// so its throughput is not comparable with a server that kept them.
pub fn rule_lost_writes(r: &RunRecord) -> Vec<Finding> {
    let Some(w) = &r.writes else { return vec![] };
    let lost = w["lost"].as_u64().unwrap_or(0);
    if lost == 0 {
        return vec![];
    }
    let mut evidence = vec![format!("{} of {} acknowledged writes checked are missing", lost, w["checked"].as_u64().unwrap_or(0))];
    if let Some(f) = w["file"].as_str() {
        evidence.push(format!("write log: {f}"));
    }
    vec![finding(
        LOST_WRITES,
        Severity::Critical,
        vec![r.id],
        format!("run {}: {lost} write(s) whose COMMIT was acknowledged are not on the target", r.id),
        evidence,
        "the server confirmed commits it did not keep (a failover to a replica that had not received them, or durability settings that drop them): say so with any figure from this run",
    )]
}

/// Replication lag beyond which reads on a standby are judged not
/// comparable: a standby more than a second behind is replaying a backlog
/// while it serves the reads (replay competes for CPU and IO, and the reads
/// see data older than the primary's).
pub const STANDBY_LAG_LIMIT_S: f64 = 1.0;

/// The largest replication lag a run on a standby saw, at its start and
/// end and in every sample; None when it did not run on a standby.
pub fn standby_lag(r: &RunRecord) -> Option<f64> {
    let snaps = [r.env_start.as_ref(), r.env_end.as_ref()];
    let on_standby = snaps.iter().flatten().any(|e| e.server.status.get("in_recovery").copied() == Some(1.0));
    if !on_standby {
        return None;
    }
    let ends = snaps.into_iter().flatten().filter_map(|e| e.server.status.get("replication_lag_s").copied());
    let sampled = r.levels.iter().flat_map(|l| &l.samples).filter_map(|s| s.sample.gauges.get("replication_lag_s").copied());
    Some(ends.chain(sampled).fold(0.0, f64::max))
}

pub fn rule_standby_lag(r: &RunRecord) -> Vec<Finding> {
    match standby_lag(r) {
        Some(lag) if lag > STANDBY_LAG_LIMIT_S => vec![finding(
            "standby-lag",
            Severity::Warning,
            vec![r.id],
            format!("run {} read from a standby up to {lag:.1} s behind its primary (limit {STANDBY_LAG_LIMIT_S} s)", r.id),
            vec![format!("replication_lag_s max {lag:.1} (pg_last_xact_replay_timestamp with WAL waiting to be replayed)")],
            "a lagging standby replays a backlog while it serves the reads, and answers from older data: compare standbys that are caught up (check recovery_min_apply_delay, replay conflicts, the primary's write load)",
        )],
        _ => vec![],
    }
}

/// A level whose longest gap without a completed event (or write, or
/// event of one kind) was remarkable: 1 s or more and ten times its p99.
/// Info: a failover or a lock may be what the run was meant to measure,
/// but a throughput figure over such a level is not the steady state.
pub fn rule_outage(r: &RunRecord) -> Vec<Finding> {
    let mut out = Vec::new();
    for l in &r.levels {
        let Some(o) = &l.outage else { continue };
        let worth = |g: &GapSpan| crate::stats::gaps::remarkable(g.secs, l.p99_ms);
        let mut classes: Vec<(String, &GapSpan)> = Vec::new();
        classes.extend(o.all.as_ref().filter(|g| worth(g)).map(|g| ("event".to_string(), g)));
        classes.extend(o.write.as_ref().filter(|g| worth(g)).map(|g| ("write".to_string(), g)));
        classes.extend(o.kinds.iter().filter_map(|k| k.gap.as_ref().filter(|g| worth(g)).map(|g| (k.name.clone(), g))));
        // The longest; of equal ones the first (events before writes before kinds).
        let Some((what, longest)) = classes.iter().rev().max_by(|a, b| a.1.secs.total_cmp(&b.1.secs)) else { continue };
        out.push(finding(
            "outage",
            Severity::Info,
            vec![r.id],
            format!("run {} at {} threads: no {what} completed for {}", r.id, l.threads, longest.text()),
            classes.iter().map(|(w, g)| format!("level {} ({} threads): longest gap without a completed {w}: {}", l.level_no, l.threads, g.text())).collect(),
            "the level's throughput includes this gap: if it was not the point of the run (a failover, a lock), look at what the server did then (locks, DDL, a checkpoint, a failover) and rerun",
        ));
    }
    out
}

/// Every rule about one run.
pub fn single(r: &RunRecord) -> Vec<Finding> {
    let mut v = Vec::new();
    v.extend(rule_unfinished(r));
    v.extend(rule_stalls(r));
    v.extend(rule_client_saturation(r));
    v.extend(rule_cold_start(r));
    v.extend(rule_fake_io_gain(r));
    v.extend(rule_memory(r));
    v.extend(rule_working_set(r));
    v.extend(rule_rate_not_sustained(r));
    v.extend(rule_qps_trx(r));
    v.extend(rule_standby_lag(r));
    v.extend(rule_outage(r));
    v.extend(rule_lost_writes(r));
    v.extend(repetitions::rule_noisy_series(r));
    v.extend(hardware::single(r));
    v
}

// ---------------------------------------------------------------------------
// Rules across runs
// ---------------------------------------------------------------------------

fn ids(rs: &[&RunRecord]) -> Vec<i64> {
    rs.iter().map(|r| r.id).collect()
}

fn per_run(rs: &[&RunRecord], f: impl Fn(&RunRecord) -> String) -> Vec<String> {
    rs.iter().map(|r| format!("run {} ({}): {}", r.id, r.engine, f(r))).collect()
}

pub fn rule_durability_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    let ds: Vec<(DurClass, Option<bool>)> = rs
        .iter()
        .map(|r| {
            server_of(r)
                .map(|s| {
                    let d = durability(s);
                    (d.class, d.torn_pages)
                })
                .unwrap_or((DurClass::Unknown, None))
        })
        .collect();
    let mut out = vec![];
    let known: Vec<DurClass> = ds.iter().map(|d| d.0).filter(|c| *c != DurClass::Unknown).collect();
    if known.windows(2).any(|w| w[0] != w[1]) {
        out.push(finding(
            "durability-mismatch",
            Severity::Critical,
            ids(rs),
            "the runs do not make commits equally durable: the faster one may simply be syncing less".into(),
            per_run(rs, |r| server_of(r).map(|s| { let d = durability(s); format!("{} [{}]", d.class.name(), d.evidence.join(", ")) }).unwrap_or_else(|| "no snapshot".into())),
            "set the same durability on every side (MySQL: innodb_flush_log_at_trx_commit=1 and sync_binlog=1 with log_bin; PostgreSQL: synchronous_commit=on, fsync=on; SQLite: synchronous=FULL) or state the difference with the result",
        ));
    }
    let torn: Vec<bool> = ds.iter().filter_map(|d| d.1).collect();
    if torn.windows(2).any(|w| w[0] != w[1]) {
        out.push(finding(
            "torn-page-protection-mismatch",
            Severity::Warning,
            ids(rs),
            "torn-page protection differs (doublewrite / full_page_writes): it costs write bandwidth".into(),
            per_run(rs, |r| {
                server_of(r).map(|s| durability(s).evidence.iter().filter(|e| e.contains("doublewrite") || e.contains("full_page")).cloned().collect::<Vec<_>>().join(", ")).unwrap_or_default()
            }),
            "turn innodb_doublewrite / full_page_writes on (or off) on every side",
        ));
    }
    out
}

/// Runs of one engine whose commits work differently (a transaction model,
/// a commit protocol the engine names): what is measured is not the same
/// transaction, whatever the durability class says.
pub fn rule_commit_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    let settings = |r: &RunRecord| -> Option<(String, Vec<(&'static str, String)>)> {
        let s = server_of(r)?;
        let spec = crate::db::engines::named(&s.engine)?;
        let set = spec.commit_settings(s);
        (!set.is_empty()).then(|| (s.engine.clone(), set))
    };
    let mut out = Vec::new();
    let all: Vec<_> = rs.iter().map(|r| settings(r)).collect();
    let mut engines: Vec<&String> = all.iter().flatten().map(|(e, _)| e).collect();
    engines.sort();
    engines.dedup();
    for engine in engines {
        let of_engine: Vec<(&RunRecord, &Vec<(&'static str, String)>)> = rs.iter().zip(&all).filter_map(|(r, s)| s.as_ref().filter(|(e, _)| e == engine).map(|(_, set)| (*r, set))).collect();
        let differ: Vec<&str> =
            of_engine.first().map(|(_, first)| first.iter().filter(|(n, v)| of_engine.iter().any(|(_, o)| o.iter().any(|(on, ov)| on == n && ov != v))).map(|(n, _)| *n).collect()).unwrap_or_default();
        if differ.is_empty() {
            continue;
        }
        let runs: Vec<&RunRecord> = of_engine.iter().map(|(r, _)| *r).collect();
        out.push(finding(
            "commit-protocol-mismatch",
            Severity::Critical,
            ids(&runs),
            format!("the {engine} runs commit differently ({}): they measure different transactions", differ.join(", ")),
            per_run(&runs, |r| settings(r).map(|(_, set)| set.iter().filter(|(n, _)| differ.contains(n)).map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(", ")).unwrap_or_default()),
            "set the same transaction mode and commit protocol on every side, or state the difference with the result",
        ));
    }
    out
}

pub fn rule_memory_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    let fits: Vec<Fit> = rs.iter().map(|r| server_of(r).map(|s| memory_fit(s).0).unwrap_or(Fit::Unknown)).collect();
    let known: Vec<Fit> = fits.iter().copied().filter(|f| *f != Fit::Unknown).collect();
    if known.windows(2).any(|w| w[0] != w[1]) {
        return vec![finding(
            "memory-fit-mismatch",
            Severity::Critical,
            ids(rs),
            "the runs do not fit memory the same way: one reads from disk, the other from its cache".into(),
            per_run(rs, |r| {
                server_of(r)
                    .map(|s| {
                        let (f, why) = memory_fit(s);
                        format!("{} ({why})", f.name())
                    })
                    .unwrap_or_default()
            }),
            "size the buffer pool / shared_buffers / cache so the dataset fits (or does not) on every side",
        )];
    }
    vec![]
}

/// Options that must match for a comparison to be fair, and what differs if they do not.
pub fn rule_config_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    let mut out = vec![];
    let check = |out: &mut Vec<Finding>, rule: &str, sev: Severity, what: &str, get: &dyn Fn(&RunRecord) -> String, advice: &str| {
        let vals: Vec<String> = rs.iter().map(|r| get(r)).collect();
        if vals.windows(2).any(|w| w[0] != w[1]) {
            out.push(finding(rule, sev, ids(rs), format!("{what} differs between the runs"), per_run(rs, |r| get(r)), advice));
        }
    };
    check(
        &mut out,
        "transport-mismatch",
        Severity::Warning,
        "transport (unix socket vs TCP)",
        &|r| r.transport.clone(),
        "connect every side the same way: a socket is often 30% faster than TCP on the same server",
    );
    check(&mut out, "prepared-mismatch", Severity::Warning, "prepared statements", &|r| r.opt("db-ps-mode").unwrap_or("?").to_string(), "use the same --db-ps-mode on every side");
    check(
        &mut out,
        "distribution-mismatch",
        Severity::Warning,
        "key distribution",
        &|r| r.opt("rand-type").unwrap_or("?").to_string(),
        "use the same --rand-type on every side: skewed keys hit the cache far more",
    );
    check(
        &mut out,
        "table-count-mismatch",
        Severity::Warning,
        "table count or size",
        &|r| format!("{} x {}", r.opt("tables").unwrap_or("?"), r.opt("table-size").unwrap_or("?")),
        "use the same --tables and --table-size on every side",
    );
    check(
        &mut out,
        "transactions-mismatch",
        Severity::Warning,
        "transactions vs autocommit",
        &|r| if r.opt("skip-trx").map(|v| v == "on" || v == "1" || v == "true").unwrap_or(false) { "autocommit (--skip-trx)".into() } else { "BEGIN/COMMIT".into() },
        "use the same --skip-trx on every side",
    );
    check(&mut out, "workload-mismatch", Severity::Warning, "workload", &|r| r.workload.clone(), "compare the same workload");
    let same_engine = rs.windows(2).all(|w| w[0].engine == w[1].engine);
    check(
        &mut out,
        "server-version-mismatch",
        if same_engine { Severity::Warning } else { Severity::Info },
        "server version",
        &|r| server_of(r).map(|s| s.version.clone()).unwrap_or_else(|| "?".into()),
        "say which versions were compared; defaults change between versions",
    );
    let hosts: Vec<String> =
        rs.iter().filter_map(|r| r.env_start.as_ref().map(|e| format!("{} x {}, {}", e.host.cpus_available, e.host.cpu_model, crate::units::human_bytes(e.host.mem_total_bytes as f64)))).collect();
    if hosts.windows(2).any(|w| w[0] != w[1]) {
        out.push(finding(
            "client-host-mismatch",
            Severity::Warning,
            ids(rs),
            "the client ran on different hardware".into(),
            per_run(rs, |r| r.env_start.as_ref().map(|e| format!("{} {}", e.host.hostname, e.host.cpu_model)).unwrap_or_default()),
            "run every side from the same client machine",
        ));
    }
    out
}

/// Runs of the same workload from scripts whose contents differ (the
/// workload records each script's SHA-256 as `script-sha256`): the same
/// name and path may stand for different SQL, so the results do not
/// measure the same thing.
pub fn rule_script_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    let same_workload = rs.windows(2).all(|w| w[0].workload == w[1].workload);
    let shas: Vec<&str> = rs.iter().filter_map(|r| r.opt("script-sha256")).collect();
    if !same_workload || shas.len() != rs.len() || !shas.windows(2).any(|w| w[0] != w[1]) {
        return vec![];
    }
    vec![finding(
        "script-mismatch",
        Severity::Critical,
        ids(rs),
        "the runs ran scripts with different contents under the same workload: they did not measure the same SQL".into(),
        per_run(rs, |r| format!("{} sha256 {}", r.opt("script").unwrap_or("?"), r.opt("script-sha256").unwrap_or("?"))),
        "run the same script file on every side (compare the SHA-256 of each), or compare runs of one script version only",
    )]
}

/// Runs where one connection negotiated TLS and another did not. What was
/// negotiated counts, not the URL's sslmode: `prefer` may end up either way.
/// Runs whose TLS state was not recorded are left out.
pub fn rule_tls_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    let known: Vec<bool> = rs.iter().filter_map(|r| server_of(r).and_then(|s| s.tls)).collect();
    if !known.windows(2).any(|w| w[0] != w[1]) {
        return vec![];
    }
    vec![finding(
        "tls-mismatch",
        Severity::Warning,
        ids(rs),
        "TLS differs between the runs: one side encrypts every query and result, the other does not".into(),
        per_run(rs, |r| {
            let state = server_of(r).and_then(crate::env::tls_text).unwrap_or_else(|| "not recorded".into());
            format!("{state}, ssl-mode {}", r.opt("ssl-mode").unwrap_or("?"))
        }),
        "connect every side the same way (the same sslmode / ssl-mode, and check that it was negotiated): TLS costs CPU on client and server for every round trip",
    )]
}

/// Everything: each run's own findings, then the comparison's.
pub fn audit(rs: &[&RunRecord]) -> Vec<Finding> {
    let mut v = Vec::new();
    if rs.len() > 1 {
        v.extend(rule_durability_mismatch(rs));
        v.extend(rule_commit_mismatch(rs));
        v.extend(hardware::rule_fsync_mismatch(rs));
        v.extend(rule_memory_mismatch(rs));
        v.extend(rule_config_mismatch(rs));
        v.extend(rule_tls_mismatch(rs));
        v.extend(rule_script_mismatch(rs));
        v.extend(repetitions::rule_single_runs(rs));
        v.extend(repetitions::rule_insignificant_difference(rs));
    }
    for r in rs {
        v.extend(single(r));
    }
    v.sort_by_key(|f| std::cmp::Reverse(f.severity));
    v
}

pub fn findings_text(fs: &[Finding]) -> String {
    let mut o = String::new();
    if fs.is_empty() {
        o.push_str("Audit: no findings.\n");
        return o;
    }
    let count = |s: Severity| fs.iter().filter(|f| f.severity == s).count();
    o.push_str(&format!("Audit: {} critical, {} warning, {} info\n", count(Severity::Critical), count(Severity::Warning), count(Severity::Info)));
    for f in fs {
        o.push_str(&format!("[{}] {}: {}\n", f.severity.name().to_uppercase(), f.rule, f.message));
        for e in &f.evidence {
            o.push_str(&format!("    evidence: {e}\n"));
        }
        o.push_str(&format!("    what to do: {}\n", f.advice));
    }
    o
}
