//! What the hardware did per operation over one level, from the samples
//! taken in the same window as the throughput (warmup excluded): the
//! server's CPU and context switches (its own processes), the client's CPU,
//! the host's CPU by mode and context switches, the disk reads and writes,
//! and the server's fsyncs per commit. Read the way Small Datum's tables
//! read: CPU per operation in µs beside the rate. A figure the samples do
//! not hold is None, never zero.

use super::record::{LevelRec, RunRecord};
use crate::env::proc::{CLIENT, HOST, NODE, PART, SERVER};
use crate::units::human_bytes;
use serde::Serialize;
use std::collections::BTreeMap;

/// The host's time, as shares of all its CPU time over the window.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct HostShares {
    pub busy: f64,
    pub user: f64,
    pub system: f64,
    pub iowait: f64,
    pub steal: f64,
    pub idle: f64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Efficiency {
    pub threads: usize,
    /// The level's step, when its workload runs a sequence of steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Seconds the samples cover.
    pub secs: f64,
    pub tps: f64,
    pub qps: f64,
    /// Server CPU per transaction and per query, µs (user + system), and its split.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_cpu_us_per_trx: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_cpu_us_per_query: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_user_us_per_trx: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_sys_us_per_trx: Option<f64>,
    /// A server of several processes: each part's CPU per transaction, µs
    /// (the parts sum to the server's).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub part_cpu_us_per_trx: BTreeMap<String, f64>,
    /// fairbench's CPU per transaction and per query, µs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_cpu_us_per_trx: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_cpu_us_per_query: Option<f64>,
    /// The host's busy CPU (everything but idle and iowait) per transaction, µs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_cpu_us_per_trx: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<HostShares>,
    /// Context switches per transaction: the server's (voluntary, involuntary) and the host's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_vcs_per_trx: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_ivcs_per_trx: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_cs_per_trx: Option<f64>,
    /// Disk reads, KB read, writes and KB written per transaction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reads_per_trx: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_kb_per_trx: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writes_per_trx: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_kb_per_trx: Option<f64>,
    /// KB the server's own processes made the storage read and write per
    /// transaction (what the page cache served is not counted): unlike the
    /// disk's figures, nothing another process did on the host is in them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_read_kb_per_trx: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_write_kb_per_trx: Option<f64>,
    /// Where the server's time went per transaction (waits.rs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_time: Option<super::waits::ServerTime>,
    /// The statements that took its time, per transaction (statements.rs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub statements: Vec<super::statements::StatementTime>,
    /// A sharded server: queries per transaction by the shards they reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing_per_trx: Option<crate::db::engines::Routing>,
    /// The server's own fsyncs per commit (a transaction).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fsyncs_per_commit: Option<f64>,
    /// Pages swapped in and out over the window (host).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swapped_pages: Option<f64>,
    /// The client's share of the host's busy CPU (both on one host).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_share_of_busy: Option<f64>,
    /// The share of the host's busy CPU neither fairbench nor the server
    /// took (other processes; the hypervisor's steal left out), both on one host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub others_share_of_busy: Option<f64>,
    /// The database's size on disk at the level's end and its growth over the level, bytes
    /// (Small Datum's dbgb; the server's data directory when it runs on this host).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub db_bytes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub db_growth_bytes: Option<f64>,
    /// The server's memory (proportional set size of its processes) and fairbench's (resident)
    /// at the level's end, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_memory_bytes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_memory_bytes: Option<f64>,
    /// What the figures are and are not (host-wide, embedded, missing).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// A figure per transaction as tables show it: a short column name (text),
/// a longer one (the report), and how it is read.
pub struct Figure {
    pub short: &'static str,
    pub long: &'static str,
    pub of: fn(&Efficiency) -> Option<f64>,
}

/// The figures compared side by side, in order.
pub const FIGURES: &[Figure] = &[
    Figure { short: "srv cpu/t", long: "server CPU µs", of: |e| e.server_cpu_us_per_trx },
    Figure { short: "cli cpu/t", long: "client CPU µs", of: |e| e.client_cpu_us_per_trx },
    Figure { short: "host cpu/t", long: "host CPU µs", of: |e| e.host_cpu_us_per_trx },
    Figure { short: "srv cs/t", long: "server cs", of: Efficiency::server_cs_per_trx },
    Figure { short: "host cs/t", long: "host cs", of: |e| e.host_cs_per_trx },
    Figure { short: "rKB/t", long: "KB read", of: |e| e.read_kb_per_trx },
    Figure { short: "wKB/t", long: "KB written", of: |e| e.write_kb_per_trx },
    Figure { short: "fsync/t", long: "fsyncs", of: |e| e.fsyncs_per_commit },
];

/// A figure beside the base run's: "1.23 (0.85)", the ratio in brackets.
pub fn with_ratio(v: Option<f64>, base: Option<f64>, is_base: bool) -> String {
    match (v, base) {
        (Some(v), Some(b)) if !is_base && b > 0.0 => format!("{v:.2} ({:.2})", v / b),
        (Some(v), _) => format!("{v:.2}"),
        (None, _) => "-".into(),
    }
}

impl Efficiency {
    /// How reports name its level: its step, or its client count.
    pub fn at(&self) -> String {
        self.key().at()
    }

    pub fn key(&self) -> super::record::LevelKey {
        super::record::LevelKey { step: self.step.clone(), threads: self.threads }
    }

    /// The server's context switches per transaction, voluntary and involuntary together.
    pub fn server_cs_per_trx(&self) -> Option<f64> {
        Some(self.server_vcs_per_trx? + self.server_ivcs_per_trx?)
    }
}

/// End of the warmup in seconds since the level started (0 without one).
fn warmup_end(l: &LevelRec) -> f64 {
    l.intervals.iter().filter(|i| i.warmup).map(|i| i.t).fold(0.0, f64::max)
}

/// A level's counter sums, disk deltas by device, and statements by digest.
type Sums = (f64, BTreeMap<String, f64>, BTreeMap<String, [u64; 4]>, BTreeMap<String, crate::db::digests::Digest>);

/// The sums of the level's sample deltas over its measured window, with
/// the seconds they cover, the disk deltas per device and the statements.
fn window(l: &LevelRec) -> Sums {
    let from = warmup_end(l);
    let mut secs = 0.0;
    let mut sums = BTreeMap::new();
    let mut disk: BTreeMap<String, [u64; 4]> = BTreeMap::new();
    let mut stmts = BTreeMap::new();
    // The sample at level start is the baseline (what moved before it is not the level's).
    for s in l.samples.iter().filter(|s| s.seq > 0 && s.t - s.dt >= from - 0.05) {
        secs += s.dt;
        for (k, v) in &s.sample.deltas {
            *sums.entry(k.clone()).or_insert(0.0) += v;
        }
        crate::db::digests::add(&mut stmts, &s.sample.statements);
        for (dev, d) in &s.sample.disk {
            let e = disk.entry(dev.clone()).or_default();
            for i in 0..4 {
                e[i] += d[i];
            }
        }
    }
    let texts: BTreeMap<String, String> = l.samples.iter().flat_map(|s| s.sample.statement_texts.clone()).collect();
    (secs, sums, disk, crate::db::digests::named(stmts, &texts))
}

/// The figures of each level of a run.
pub fn of_run(r: &RunRecord) -> Vec<Efficiency> {
    let whose = Whose::of(r.env_start.as_ref().map(|e| &e.server));
    r.levels.iter().map(|l| of_level(l, &whose)).collect()
}

fn of_level(l: &LevelRec, whose: &Whose<'_>) -> Efficiency {
    let (secs, d, disk, stmts) = window(l);
    let w = Window { secs, deltas: &d, disk: &disk, statements: &stmts, transactions: l.events as f64, queries: l.queries as f64 };
    let mut e = of_window(&w, whose);
    (e.threads, e.tps, e.qps) = (l.threads, l.tps, l.qps);
    e.step = l.step().map(str::to_string);
    let gauge = |k: &str| {
        let mut seen = l.samples.iter().filter_map(|s| s.sample.gauges.get(k).copied());
        let first = seen.next();
        (first, seen.next_back().or(first))
    };
    let (db0, db1) = gauge("server:db_bytes");
    e.db_bytes = db1;
    e.db_growth_bytes = db0.zip(db1).map(|(a, b)| b - a);
    e.server_memory_bytes = gauge("server:rss_bytes").1;
    e.client_memory_bytes = gauge("client:rss_bytes").1;
    e
}

/// Counter movement over a window and the operations done in it.
pub struct Window<'a> {
    pub secs: f64,
    pub deltas: &'a BTreeMap<String, f64>,
    pub disk: &'a BTreeMap<String, [u64; 4]>,
    pub statements: &'a BTreeMap<String, crate::db::digests::Digest>,
    pub transactions: f64,
    pub queries: f64,
}

/// What the figures are about: an embedded engine, the data's disk, the engine.
pub struct Whose<'a> {
    pub embedded: bool,
    pub data_device: Option<&'a str>,
    pub spec: Option<&'static dyn crate::db::Engine>,
}

impl<'a> Whose<'a> {
    /// As a run's start snapshot says.
    pub fn of(server: Option<&'a crate::db::Server>) -> Whose<'a> {
        let spec = server.and_then(|s| crate::db::engines::named(&s.engine));
        Whose { embedded: spec.is_some_and(|e| e.protocol().embedded()), data_device: server.and_then(|s| s.data_device.as_deref()), spec }
    }
}

/// The figures of one window (a level's measured time, or one sample's).
pub fn of_window(w: &Window<'_>, whose: &Whose<'_>) -> Efficiency {
    let (secs, d, disk, embedded, data_device, spec) = (w.secs, w.deltas, w.disk, whose.embedded, whose.data_device, whose.spec);
    let mut e = Efficiency { secs, ..Efficiency::default() };
    if secs <= 0.0 || w.transactions <= 0.0 {
        e.notes.push("no samples in the measured window".into());
        return e;
    }
    let trx = w.transactions;
    let queries = w.queries.max(1.0);
    let get = |k: &str| d.get(k).copied();
    let sum2 = |a: &str, b: &str| Some(get(a)? + get(b)?);
    let client = sum2(&format!("{CLIENT}cpu_user_s"), &format!("{CLIENT}cpu_sys_s"));
    e.client_cpu_us_per_trx = client.map(|c| c * 1e6 / trx);
    e.client_cpu_us_per_query = client.map(|c| c * 1e6 / queries);
    let server = sum2(&format!("{SERVER}cpu_user_s"), &format!("{SERVER}cpu_sys_s"));
    if let Some(cpu) = server {
        e.server_cpu_us_per_trx = Some(cpu * 1e6 / trx);
        e.server_cpu_us_per_query = Some(cpu * 1e6 / queries);
        e.server_user_us_per_trx = get(&format!("{SERVER}cpu_user_s")).map(|v| v * 1e6 / trx);
        e.server_sys_us_per_trx = get(&format!("{SERVER}cpu_sys_s")).map(|v| v * 1e6 / trx);
        e.server_vcs_per_trx = get(&format!("{SERVER}vol_cs")).map(|v| v / trx);
        e.server_ivcs_per_trx = get(&format!("{SERVER}invol_cs")).map(|v| v / trx);
        e.server_read_kb_per_trx = get(&format!("{SERVER}read_bytes")).map(|v| v / 1024.0 / trx);
        e.server_write_kb_per_trx = get(&format!("{SERVER}write_bytes")).map(|v| v / 1024.0 / trx);
        for (k, v) in d.iter().filter_map(|(k, v)| Some((k.strip_prefix(PART)?, v))) {
            if let Some(part) = k.strip_suffix(":cpu_user_s").or_else(|| k.strip_suffix(":cpu_sys_s")) {
                *e.part_cpu_us_per_trx.entry(part.to_string()).or_insert(0.0) += v * 1e6 / trx;
            }
        }
    } else if embedded {
        // The engine runs inside fairbench: one process, one figure.
        e.server_cpu_us_per_trx = e.client_cpu_us_per_trx;
        e.server_cpu_us_per_query = e.client_cpu_us_per_query;
        e.server_read_kb_per_trx = get(&format!("{CLIENT}read_bytes")).map(|v| v / 1024.0 / trx);
        e.server_write_kb_per_trx = get(&format!("{CLIENT}write_bytes")).map(|v| v / 1024.0 / trx);
        e.notes.push("embedded engine: server and client CPU are one figure, fairbench's process".into());
    } else {
        e.notes.push("server CPU: the server's process was not on this host (or not found)".into());
    }
    // The server host's exporter when one was read (host-wide on that host), else this host's /proc.
    let node = d.keys().any(|k| k.starts_with(NODE));
    let host_prefix = if node { NODE } else { HOST };
    if node {
        e.notes.push("host figures: the server host's node exporter (host-wide)".into());
    }
    let mode = |m: &str| get(&format!("{host_prefix}{m}_s"));
    if let (Some(user), Some(idle)) = (mode("user"), mode("idle")) {
        let other = |m: &str| mode(m).unwrap_or(0.0);
        let (system, nice, iowait, irq, softirq, steal) = (other("system"), other("nice"), other("iowait"), other("irq"), other("softirq"), other("steal"));
        let total = user + nice + system + idle + iowait + irq + softirq + steal;
        if total > 0.0 {
            let busy = user + nice + system + irq + softirq + steal;
            e.host_cpu_us_per_trx = Some(busy * 1e6 / trx);
            e.host = Some(HostShares { busy: busy / total, user: (user + nice) / total, system: (system + irq + softirq) / total, iowait: iowait / total, steal: steal / total, idle: idle / total });
            if embedded || server.is_some() {
                e.client_share_of_busy = client.filter(|_| busy > 0.0).map(|c| c / busy);
                // An embedded engine's CPU is fairbench's own: counted once.
                let ours = client.map(|c| c + if embedded { 0.0 } else { server.unwrap_or(0.0) });
                e.others_share_of_busy = ours.filter(|_| busy > 0.0).map(|o| ((busy - steal - o) / busy).clamp(0.0, 1.0));
            }
        }
        e.host_cs_per_trx = get(&format!("{host_prefix}ctxt")).map(|v| v / trx);
        e.swapped_pages = sum2(&format!("{host_prefix}swap_in"), &format!("{host_prefix}swap_out"));
    } else {
        e.notes.push("host figures: the server's host was not sampled (remote server without --server-metrics)".into());
    }
    if !disk.is_empty() {
        let devs: Vec<(&String, &[u64; 4])> = match data_device {
            Some(dev) if disk.contains_key(dev) => disk.iter().filter(|(d, _)| *d == dev).collect(),
            _ => {
                e.notes.push("disk figures: all disks (the data directory's device is not known)".into());
                disk.iter().collect()
            }
        };
        let total = |i: usize| devs.iter().map(|(_, d)| d[i] as f64).sum::<f64>();
        e.reads_per_trx = Some(total(0) / trx);
        e.read_kb_per_trx = Some(total(1) * 512.0 / 1024.0 / trx);
        e.writes_per_trx = Some(total(2) / trx);
        e.write_kb_per_trx = Some(total(3) * 512.0 / 1024.0 / trx);
    }
    e.fsyncs_per_commit = spec.and_then(|s| s.fsyncs(d)).map(|f| f / trx);
    e.server_time = super::waits::of(d, trx);
    e.statements = super::statements::of(w.statements, trx);
    e.routing_per_trx = spec.and_then(|s| s.sharded()?.routing(d)).map(|r| crate::db::engines::Routing { single: r.single / trx, multi: r.multi / trx, scatter: r.scatter / trx });
    e
}

/// A figure with `digits` decimals, or "-" when absent.
fn cell(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.digits$}"))
}

/// The per-level table, Small Datum's way: CPU per operation in µs beside
/// the rate, then the host's CPU split and what the figures are not.
pub fn text(r: &RunRecord, rows: &[Efficiency]) -> String {
    if rows.is_empty() || rows.iter().all(|e| e.secs <= 0.0) {
        return String::new();
    }
    let server = r.env_start.as_ref().map(|e| &e.server);
    let mut whose = Vec::new();
    if let Some(p) = server.and_then(|s| s.process.as_deref()) {
        whose.push(format!("server process: {p}"));
    }
    if let Some(s) = server.filter(|s| !s.parts.is_empty()) {
        whose.push(format!("its parts: {}", s.parts.join("; ")));
    }
    if let Some(d) = server.and_then(|s| s.data_device.as_deref()) {
        whose.push(format!("disk: {d}"));
    }
    let mut o = format!("Hardware per transaction (t) and query (q): CPU in µs, counts per t{}\n", if whose.is_empty() { String::new() } else { format!(" ({})", whose.join(", ")) });
    let mut table = crate::columns::Table::new(
        2,
        1,
        [
            super::record::LevelKey::heading(rows.iter().any(|e| e.step.is_some())),
            "tps",
            "srv cpu/t",
            "srv cpu/q",
            "cli cpu/t",
            "cli cpu/q",
            "host cpu/t",
            "srv cs/t",
            "host cs/t",
            "r/t",
            "rKB/t",
            "w/t",
            "wKB/t",
            "fsync/t",
        ],
    );
    for e in rows {
        table.row(vec![
            e.key().cell(),
            format!("{:.1}", e.tps),
            cell(e.server_cpu_us_per_trx, 1),
            cell(e.server_cpu_us_per_query, 1),
            cell(e.client_cpu_us_per_trx, 1),
            cell(e.client_cpu_us_per_query, 1),
            cell(e.host_cpu_us_per_trx, 1),
            cell(e.server_cs_per_trx(), 2),
            cell(e.host_cs_per_trx, 2),
            cell(e.reads_per_trx, 3),
            cell(e.read_kb_per_trx, 2),
            cell(e.writes_per_trx, 3),
            cell(e.write_kb_per_trx, 2),
            cell(e.fsyncs_per_commit, 3),
        ]);
    }
    o.push_str(&table.text());
    for e in rows {
        if let Some(r) = e.routing_per_trx {
            let share = r.scatter_share().map(|s| format!(" ({:.0}% to every shard)", s * 100.0)).unwrap_or_default();
            o.push_str(&format!("  queries/t by shards reached at {}: one {:.2}, several {:.2}, all {:.2}{share}\n", e.at(), r.single, r.multi, r.scatter));
        }
    }
    for e in rows {
        if let Some(t) = &e.server_time {
            o.push_str(&format!("  server time/t at {}, µs: {}\n", e.at(), super::waits::line(t)));
        }
        // The statements that took the most, as calls x mean = µs per transaction.
        for (i, s) in e.statements.iter().take(3).enumerate() {
            let head = if i == 0 { format!("top statements/t at {}, µs:", e.at()) } else { String::new() };
            o.push_str(&format!("  {head:<34} {}\n", super::statements::line(s, 70)));
        }
    }
    for e in rows {
        let mut sizes = Vec::new();
        if let Some(b) = e.db_bytes {
            let per = e.db_growth_bytes.filter(|g| *g > 0.0 && e.tps > 0.0 && e.secs > 0.0).map(|g| format!(", {:.0} bytes per transaction", g / (e.tps * e.secs))).unwrap_or_default();
            sizes.push(format!("database on disk {} (grew {}{per})", human_bytes(b), human_bytes(e.db_growth_bytes.unwrap_or(0.0))));
        }
        if let Some(m) = e.server_memory_bytes {
            sizes.push(format!("server memory {}", human_bytes(m)));
        }
        if let Some(m) = e.client_memory_bytes {
            sizes.push(format!("fairbench's {}", human_bytes(m)));
        }
        if !sizes.is_empty() {
            o.push_str(&format!("  sizes at the end of {}: {}\n", e.at(), sizes.join(", ")));
        }
    }
    // --profile-server: where the server's CPU went, by the frames it was caught in.
    for l in &r.levels {
        match &l.profile {
            Some(p) if p.error.is_none() => o.push_str(&format!("  server on CPU at {} (perf): {}\n", l.at(), super::oncpu::line(&p.folded, 5))),
            Some(p) => o.push_str(&format!("  note: {}\n", p.error.as_deref().unwrap_or_default())),
            None => {}
        }
    }
    for e in rows.iter().filter(|e| !e.part_cpu_us_per_trx.is_empty()) {
        let each: Vec<String> = e.part_cpu_us_per_trx.iter().map(|(p, v)| format!("{p} {v:.1}")).collect();
        o.push_str(&format!("  server CPU/t by part at {}, µs: {}\n", e.at(), each.join(", ")));
    }
    for e in rows {
        if let Some(h) = &e.host {
            let pct = |v: f64| format!("{:.0}%", v * 100.0);
            let mut client = e.client_share_of_busy.map(|c| format!("; fairbench took {} of the busy CPU", pct(c))).unwrap_or_default();
            if let Some(o) = e.others_share_of_busy {
                client.push_str(&format!(", other processes {}", pct(o)));
            }
            o.push_str(&format!(
                "  host CPU at {}: {} busy (user {}, system {}, steal {}), iowait {}, idle {}{client}\n",
                e.at(),
                pct(h.busy),
                pct(h.user),
                pct(h.system),
                pct(h.steal),
                pct(h.iowait),
                pct(h.idle)
            ));
        }
    }
    // What the engine could not record of its waits, said where its waits are.
    for e in r.env_start.iter().flat_map(|s| &s.errors).filter(|e| e.starts_with(crate::db::waits::UNRECORDED)) {
        o.push_str(&format!("  note: {e}\n"));
    }
    let mut notes: Vec<&String> = rows.iter().flat_map(|e| &e.notes).collect();
    notes.sort();
    notes.dedup();
    for n in notes {
        o.push_str(&format!("  note: {n}\n"));
    }
    crate::columns::wrap(&o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::Sample;
    use crate::model::record::StoredSample;

    fn sample(seq: usize, t: f64, dt: f64, deltas: &[(&str, f64)], disk: &[(&str, [u64; 4])]) -> StoredSample {
        StoredSample {
            seq,
            t,
            dt,
            sample: Sample {
                deltas: deltas.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                gauges: BTreeMap::new(),
                disk: disk.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                ..Sample::default()
            },
        }
    }

    #[test]
    fn per_operation_figures_from_the_measured_window() {
        let mut l = LevelRec { threads: 4, events: 1000, queries: 20000, tps: 500.0, qps: 10000.0, ..LevelRec::default() };
        let cpu = |srv: f64, cli: f64| {
            vec![
                ("server:cpu_user_s", srv * 0.75),
                ("server:cpu_sys_s", srv * 0.25),
                ("server:vol_cs", 3000.0),
                ("server:invol_cs", 100.0),
                ("client:cpu_user_s", cli),
                ("client:cpu_sys_s", 0.0),
                ("host:user_s", 1.0),
                ("host:system_s", 0.5),
                ("host:idle_s", 0.4),
                ("host:iowait_s", 0.1),
                ("host:ctxt", 5000.0),
                ("Innodb_data_fsyncs", 500.0),
            ]
        };
        l.samples = vec![
            sample(0, 0.0, 0.1, &cpu(9.0, 9.0), &[("vda", [99, 99, 99, 99])]),
            sample(1, 1.0, 1.0, &cpu(0.5, 0.1), &[("vda", [10, 80, 20, 160])]),
            sample(2, 2.0, 1.0, &cpu(0.5, 0.1), &[("vda", [10, 80, 20, 160])]),
        ];
        let e = of_level(&l, &Whose { embedded: false, data_device: Some("vda"), spec: crate::db::engines::named("mysql") });
        assert_eq!(e.secs, 2.0);
        assert_eq!(e.server_cpu_us_per_trx, Some(1000.0));
        assert_eq!(e.server_cpu_us_per_query, Some(50.0));
        assert!((e.client_cpu_us_per_trx.unwrap() - 200.0).abs() < 1e-9);
        assert_eq!(e.server_vcs_per_trx, Some(6.0));
        assert_eq!(e.host_cs_per_trx, Some(10.0));
        let h = e.host.clone().unwrap();
        assert!((h.busy - 0.75).abs() < 1e-9 && (h.iowait - 0.05).abs() < 1e-9, "{h:?}");
        assert_eq!(e.reads_per_trx, Some(0.02));
        assert_eq!(e.read_kb_per_trx, Some(0.08));
        assert_eq!(e.fsyncs_per_commit, Some(1.0));
        assert!(e.notes.is_empty(), "{:?}", e.notes);
    }

    #[test]
    fn a_server_of_several_parts_has_each_parts_cpu_per_transaction() {
        let mut l = LevelRec { threads: 2, events: 1000, queries: 2000, tps: 500.0, qps: 1000.0, ..LevelRec::default() };
        let d = [
            ("server:cpu_user_s", 0.8),
            ("server:cpu_sys_s", 0.2),
            ("part:vtgate:cpu_user_s", 0.3),
            ("part:vtgate:cpu_sys_s", 0.1),
            ("part:tablet:cpu_user_s", 0.2),
            ("part:tablet:cpu_sys_s", 0.0),
            ("part:mariadb:cpu_user_s", 0.3),
            ("part:mariadb:cpu_sys_s", 0.1),
        ];
        l.samples = vec![sample(0, 0.0, 0.1, &d, &[]), sample(1, 1.0, 1.0, &d, &[]), sample(2, 2.0, 1.0, &d, &[])];
        let e = of_level(&l, &Whose { embedded: false, data_device: None, spec: None });
        assert_eq!(e.server_cpu_us_per_trx, Some(2000.0));
        let parts: Vec<(String, i64)> = e.part_cpu_us_per_trx.iter().map(|(k, v)| (k.clone(), v.round() as i64)).collect();
        assert_eq!(parts, vec![("mariadb".to_string(), 800), ("tablet".to_string(), 400), ("vtgate".to_string(), 800)]);
        let r = RunRecord { levels: vec![l], ..RunRecord::default() };
        // Words, not lines: the text wraps at the terminal's width.
        let words = text(&r, &[e]).split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("server CPU/t by part at 2 threads, µs: mariadb 800.0, tablet 400.0, vtgate 800.0"), "{words}");
    }

    #[test]
    fn what_was_not_sampled_is_absent_and_said() {
        let mut l = LevelRec { threads: 1, events: 10, queries: 10, ..LevelRec::default() };
        l.samples = vec![sample(1, 1.0, 1.0, &[("client:cpu_user_s", 0.01), ("client:cpu_sys_s", 0.0)], &[])];
        let e = of_level(&l, &Whose { embedded: false, data_device: None, spec: crate::db::engines::named("postgres") });
        assert_eq!(e.server_cpu_us_per_trx, None);
        assert_eq!(e.host, None);
        assert_eq!(e.reads_per_trx, None);
        assert_eq!(e.fsyncs_per_commit, None);
        assert_eq!(e.notes.len(), 2, "{:?}", e.notes);
        let lite = of_level(&l, &Whose { embedded: true, data_device: None, spec: crate::db::engines::named("sqlite") });
        assert_eq!(lite.server_cpu_us_per_trx, lite.client_cpu_us_per_trx);
        assert!(lite.notes[0].contains("embedded"));
    }
}
