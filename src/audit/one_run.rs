//! Rules on one run: its own intervals, levels and environment.

use super::*;

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
    let warm = r.options.control.warmup_time.unwrap_or(0.0);
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
    // Runs stored before touched-table-size was recorded touched --table-size ids.
    let d = &r.options.data;
    let size = d.touched_table_size.or(d.table_size)?;
    let rows = d.data_table_size?;
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
    let mut ev = vec![format!("the run touched ids up to {size}; the tables hold ids up to {rows}")];
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
        "run with the size the tables were prepared with (--table-size, a record count), or prepare the size you mean to measure",
    )]
}

/// Rate mode (`--rate`): a level that fell short of its target rate, or
/// dropped arrivals, measured how long events waited in the client's own
/// queue, not how fast the server answers. A shortfall counts only beyond
/// the arrivals' own randomness (Poisson: 3 standard deviations of the
/// expected count), so a short run at a sustainable rate stays quiet.
/// A `--find-max` search offers rates above what is sustained on purpose: its own table
/// judges each step.
pub fn rule_rate_not_sustained(r: &RunRecord) -> Vec<Finding> {
    let mut out = Vec::new();
    if r.capacity.is_some() {
        return out;
    }
    for l in &r.levels {
        let field = |k: &str| l.summary.as_ref().and_then(|s| s.get(k)).and_then(|v| v.as_f64());
        let target = field("rate").or(r.options.control.rate).unwrap_or(0.0);
        if target <= 0.0 || l.elapsed_s <= 0.0 {
            continue;
        }
        let dropped = field("dropped").unwrap_or(0.0) as u64;
        if !crate::model::capacity::fell_behind(target, l.elapsed_s, l.events) && dropped == 0 {
            continue;
        }
        let mut ev = vec![
            format!("target {target:.2} events/s"),
            format!("achieved {:.2} events/s ({:.0}% of the target) at {} threads", l.tps, l.tps * 100.0 / target, l.threads),
            format!("dropped {dropped} arrivals (queue full{})", r.options.control.queue_max.map(|q| format!(" at --queue-max={q}")).unwrap_or_default()),
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

/// The run's findings with its lost-writes finding made again from its
/// writes verdict, as a later `check writes` leaves them.
pub fn with_writes_rechecked(r: &RunRecord) -> Vec<Finding> {
    let mut findings: Vec<Finding> = r.findings.iter().filter(|f| f.rule != LOST_WRITES).cloned().collect();
    findings.extend(rule_lost_writes(r));
    findings
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
/// event of one kind) was remarkable: 1 s or more and ten times its p99
/// (a kind's: ten times the mean time between its completions too).
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
        // A kind against its own pace too: one that completes rarely by design is not stopped.
        let kinds = l.kinds();
        let events = |name: &str| kinds.iter().find(|k| k.get("name").and_then(|n| n.as_str()) == Some(name)).and_then(|k| k.get("events")).and_then(|e| e.as_u64()).unwrap_or(0);
        let kind_worth = |name: &str, g: &GapSpan| crate::stats::gaps::remarkable_kind(g.secs, l.p99_ms, events(name), l.elapsed_s);
        classes.extend(o.kinds.iter().filter_map(|k| k.gap.as_ref().filter(|g| kind_worth(&k.name, g)).map(|g| (k.name.clone(), g))));
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
    v.extend(super::degradation::rule_degraded(r));
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
    v.extend(super::tables::rule_tables_changed(r));
    v.extend(repetitions::rule_noisy_series(r));
    v.extend(hardware::single(r));
    v
}
