//! What the hardware figures per operation say about a run's fairness: a
//! load generator that took the CPU the server needed, a noisy neighbour
//! stealing the hypervisor's time, an "in memory" run that read from disk,
//! swapping, and two runs whose servers synced differently in practice.

use super::{apart, finding, ids, memory_fit, per_run_figure, Fit};
use crate::db::waits::Class;
use crate::model::efficiency::{of_run, Efficiency};
use crate::model::record::{Finding, RunRecord, Severity};

/// The host was this busy or more: the server needed every cycle it could get.
const SATURATED_HOST: f64 = 0.90;
/// The client's share of the busy CPU above which it denied the server.
const CLIENT_SHARE: f64 = 0.10;
/// Other processes' share of the busy CPU, and of the host's time, above
/// which a run measured a machine shared with something else.
const OTHERS_SHARE: f64 = 0.5;
const OTHERS_OF_HOST: f64 = 0.25;
/// Hypervisor steal above this share of the host's time: a noisy neighbour.
const STEAL: f64 = 0.05;
/// iowait share, or KB read per transaction, above which a run read from disk.
const IOWAIT: f64 = 0.05;
const READ_KB: f64 = 1.0;
/// Waits on reads above this share of a transaction's time: it read from disk.
const READ_WAIT_SHARE: f64 = 0.1;
/// fsyncs per commit two runs may differ by before their durability differs in practice.
const FSYNC_FACTOR: f64 = 2.0;
/// Below this many fsyncs per commit on both sides, a ratio is noise (read-only work).
const FSYNC_FLOOR: f64 = 0.05;

fn pct(v: f64) -> String {
    format!("{:.0}%", v * 100.0)
}

/// Each measured level's figures, for the rules of one run.
fn levels(r: &RunRecord) -> Vec<Efficiency> {
    of_run(r).into_iter().filter(|e| e.secs > 0.0).collect()
}

/// The rules of one run, over its figures computed once.
pub fn single(r: &RunRecord) -> Vec<Finding> {
    let hw = levels(r);
    [rule_client_took_the_host(r, &hw), rule_busy_with_others(r, &hw), rule_steal(r, &hw), rule_in_memory_read_disk(r, &hw), rule_swap(r, &hw), super::waits::rule_lock_waits_dominate(r, &hw)].concat()
}

pub fn rule_client_took_the_host(r: &RunRecord, hw: &[Efficiency]) -> Vec<Finding> {
    let mut out = Vec::new();
    for e in hw {
        let (Some(h), Some(share)) = (&e.host, e.client_share_of_busy) else { continue };
        if h.busy > SATURATED_HOST && share > CLIENT_SHARE && r.transport != "embedded" {
            out.push(finding(
                "client-took-server-cpu",
                Severity::Warning,
                vec![r.id],
                format!("run {} at {} threads: the host was {} busy and fairbench took {} of that CPU, which the server was denied", r.id, e.threads, pct(h.busy), pct(share)),
                vec![format!("host busy {} (user {}, system {}), client share of the busy CPU {}", pct(h.busy), pct(h.user), pct(h.system), pct(share))],
                "run the client on another machine (or pin client and server to separate cores) before comparing engines or versions on this host",
            ));
        }
    }
    out
}

/// Most of the busy CPU went to processes other than fairbench and the
/// server: the same run on a quiet host gave 8 times the transactions.
/// compare sees it between two runs; one run's audit says it too.
pub fn rule_busy_with_others(r: &RunRecord, hw: &[Efficiency]) -> Vec<Finding> {
    let shared: Vec<(&Efficiency, f64, f64)> =
        hw.iter().filter_map(|e| Some((e, e.host.as_ref()?.busy, e.others_share_of_busy?))).filter(|(_, busy, others)| *others > OTHERS_SHARE && busy * others > OTHERS_OF_HOST).collect();
    let Some(&(worst, busy, others)) = shared.iter().max_by(|a, b| a.2.total_cmp(&b.2)) else { return vec![] };
    let whose = if r.transport == "embedded" { "fairbench (the embedded engine included)" } else { "fairbench and the server" };
    vec![finding(
        "host-busy-with-others",
        Severity::Warning,
        vec![r.id],
        format!(
            "run {} at {} threads: other processes took {} of the busy CPU (the host was {} busy): it measured a shared machine, and will not repeat on a quiet one",
            r.id,
            worst.threads,
            pct(others),
            pct(busy)
        ),
        shared.iter().map(|(e, busy, others)| format!("{} threads: host busy {}, other processes {} of it, {whose} the rest", e.threads, pct(*busy), pct(*others))).collect(),
        "stop what else runs on the host (top shows it) and run again, or repeat the run to see how far it moves",
    )]
}

pub fn rule_steal(r: &RunRecord, hw: &[Efficiency]) -> Vec<Finding> {
    let noisy: Vec<String> = hw.iter().filter_map(|e| e.host.as_ref().filter(|h| h.steal > STEAL).map(|h| format!("{} threads: steal {} of the host's time", e.threads, pct(h.steal)))).collect();
    if noisy.is_empty() {
        return vec![];
    }
    vec![finding(
        "hypervisor-steal",
        Severity::Warning,
        vec![r.id],
        format!("run {}: the hypervisor gave more than {} of the host's CPU time to other guests: the result will not repeat", r.id, pct(STEAL)),
        noisy,
        "run on dedicated hosts (or at a quiet time), and repeat the run to see how far it moves",
    )]
}

pub fn rule_in_memory_read_disk(r: &RunRecord, hw: &[Efficiency]) -> Vec<Finding> {
    let Some(s) = r.env_start.as_ref().map(|e| &e.server) else { return vec![] };
    let says = format!("{} {}", r.label, r.tag).to_ascii_lowercase().replace(['_', ' '], "-");
    let claims = memory_fit(s).0 == Fit::InMemory || says.contains("in-memory") || says.contains("inmemory");
    if !claims {
        return vec![];
    }
    // The server's own storage reads when they were measured; otherwise the
    // disk's reads and the host's iowait, which other processes add to.
    // And the transactions' own waits on reads, where the server times
    // them: a miss of its cache, when the OS page cache is not counted as
    // memory (a PostgreSQL read the OS cache served is a wait all the same).
    let own_cache = crate::db::engines::named(&s.engine).is_some_and(|e| !e.os_cache_holds_data());
    let waited = |e: &Efficiency| Some(e.server_time.as_ref()?.of_class(Class::DiskRead)).filter(|us| super::waits::mean_latency_us(e).is_some_and(|lat| *us > READ_WAIT_SHARE * lat));
    let read_disk = |e: &Efficiency| {
        (own_cache && waited(e).is_some())
            || match e.server_read_kb_per_trx {
                Some(kb) => kb > READ_KB,
                None => e.host.as_ref().is_some_and(|h| h.iowait > IOWAIT) || e.read_kb_per_trx.is_some_and(|kb| kb > READ_KB),
            }
    };
    let kb = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.2}"));
    let read: Vec<String> = hw
        .iter()
        .filter(|e| read_disk(e))
        .map(|e| {
            let iowait = e.host.as_ref().map_or("-".into(), |h| pct(h.iowait));
            let waits = waited(e).map(|us| format!(", its transactions waited {us:.1} µs each on reads")).unwrap_or_default();
            format!("{} threads: the server read {} KB per transaction from storage (the disk: {} KB), iowait {iowait}{waits}", e.threads, kb(e.server_read_kb_per_trx), kb(e.read_kb_per_trx))
        })
        .collect();
    if read.is_empty() {
        return vec![];
    }
    vec![finding(
        "in-memory-run-read-disk",
        Severity::Critical,
        vec![r.id],
        format!("run {} is taken to be in memory, but the server read from disk while it ran", r.id),
        read,
        "prewarm the cache (fairbench prewarm), size it to the data, or call the run IO-bound",
    )]
}

pub fn rule_swap(r: &RunRecord, hw: &[Efficiency]) -> Vec<Finding> {
    let swapped: Vec<String> = hw.iter().filter_map(|e| e.swapped_pages.filter(|p| *p > 0.0).map(|p| format!("{} threads: {p:.0} pages swapped in or out", e.threads))).collect();
    if swapped.is_empty() {
        return vec![];
    }
    vec![finding(
        "swapping",
        Severity::Critical,
        vec![r.id],
        format!("run {}: the host swapped while the run went on: latency and throughput measure the swap device", r.id),
        swapped,
        "give the server less memory (smaller cache) or the host more, so nothing swaps",
    )]
}

/// Two compared runs whose servers fsynced per commit by a factor of two or
/// more: their durability differs in practice, whatever the settings say.
pub fn rule_fsync_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    let per: Vec<Option<f64>> = rs.iter().map(|r| levels(r).iter().filter_map(|e| e.fsyncs_per_commit).fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))).collect();
    let Some((lo, hi)) = apart(&per, FSYNC_FLOOR, FSYNC_FACTOR) else { return vec![] };
    vec![finding(
        "fsync-mismatch",
        Severity::Critical,
        ids(rs),
        format!("the servers synced to disk differently in practice: {lo:.2} against {hi:.2} fsyncs per commit"),
        per_run_figure(rs, &per, |v| format!("{v:.3} fsyncs per commit"), "fsyncs not counted"),
        "make every side sync the same way (the durability settings, the same log and group-commit behaviour) before comparing throughput",
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::Sample;
    use crate::model::record::{LevelRec, StoredSample};

    fn run(id: i64, fsyncs: f64, host: &[(&str, f64)]) -> RunRecord {
        let mut deltas: std::collections::BTreeMap<String, f64> = host.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        deltas.insert("Innodb_data_fsyncs".into(), fsyncs);
        let l = LevelRec { threads: 1, events: 100, queries: 100, samples: vec![StoredSample { seq: 1, t: 1.0, dt: 1.0, sample: Sample { deltas, ..Sample::default() } }], ..LevelRec::default() };
        let mut r = RunRecord { id, engine: "mysql".into(), transport: "tcp".into(), levels: vec![l], ..RunRecord::default() };
        r.env_start = Some(crate::env::Snapshot { server: crate::db::Server { engine: "mysql".into(), ..Default::default() }, ..Default::default() });
        r
    }

    #[test]
    fn each_rule_fires_on_its_case_and_stays_silent_on_a_fair_one() {
        let fair = run(
            1,
            100.0,
            &[("host:user_s", 0.5), ("host:system_s", 0.2), ("host:idle_s", 1.3), ("client:cpu_user_s", 0.05), ("client:cpu_sys_s", 0.0), ("server:cpu_user_s", 0.5), ("server:cpu_sys_s", 0.1)],
        );
        let relaxed = run(2, 10.0, &[]);
        let busy = run(
            3,
            100.0,
            &[("host:user_s", 1.6), ("host:system_s", 0.35), ("host:idle_s", 0.05), ("client:cpu_user_s", 0.5), ("client:cpu_sys_s", 0.2), ("server:cpu_user_s", 1.0), ("server:cpu_sys_s", 0.2)],
        );
        let on = |rule: fn(&RunRecord, &[Efficiency]) -> Vec<Finding>, r: &RunRecord| rule(r, &levels(r));
        // The host busy, fairbench and the server with a tenth of it: a build beside the run.
        let shared = run(
            6,
            100.0,
            &[("host:user_s", 1.7), ("host:system_s", 0.2), ("host:idle_s", 0.1), ("client:cpu_user_s", 0.1), ("client:cpu_sys_s", 0.02), ("server:cpu_user_s", 0.2), ("server:cpu_sys_s", 0.05)],
        );
        assert!(on(rule_busy_with_others, &fair).is_empty() && on(rule_busy_with_others, &busy).is_empty());
        let f = rule_busy_with_others(&shared, &levels(&shared));
        assert_eq!(f.len(), 1, "{:?}", of_run(&shared));
        assert!(f[0].message.contains("other processes took 81% of the busy CPU (the host was 95% busy)"), "{:?}", f[0]);
        let stolen = run(4, 100.0, &[("host:user_s", 1.0), ("host:system_s", 0.2), ("host:idle_s", 0.5), ("host:steal_s", 0.3)]);
        let swapping = run(5, 100.0, &[("host:user_s", 1.0), ("host:idle_s", 1.0), ("host:swap_in", 30.0), ("host:swap_out", 12.0)]);
        assert!(on(rule_client_took_the_host, &fair).is_empty() && on(rule_steal, &fair).is_empty() && on(rule_swap, &fair).is_empty());
        assert!(single(&fair).is_empty(), "{:?}", single(&fair));
        assert_eq!(on(rule_client_took_the_host, &busy).len(), 1, "{:?}", of_run(&busy));
        assert!(on(rule_client_took_the_host, &busy)[0].message.contains("98% busy"), "{:?}", on(rule_client_took_the_host, &busy));
        assert_eq!(on(rule_steal, &stolen).len(), 1);
        assert_eq!(on(rule_swap, &swapping).len(), 1);
        assert_eq!(rule_fsync_mismatch(&[&fair, &relaxed]).len(), 1);
        assert!(rule_fsync_mismatch(&[&fair, &busy]).is_empty());
    }

    /// A PostgreSQL read the OS page cache served is a wait on reads all
    /// the same: with no storage read, a run in memory did not read disk.
    /// InnoDB's wait on a read is a miss of its own cache, whatever served it.
    #[test]
    fn a_postgres_read_the_os_cache_served_is_not_a_disk_read() {
        let tagged = |engine: &str| {
            let mut r = run(1, 0.0, &[("server:read_bytes", 0.0), (&crate::db::waits::key(Class::DiskRead, "DataFileRead"), 0.5)]);
            r.tag = "in-memory".into();
            r.levels[0].tps = 100.0;
            r.env_start.as_mut().unwrap().server.engine = engine.into();
            r
        };
        let pg = tagged("postgres");
        assert!(rule_in_memory_read_disk(&pg, &levels(&pg)).is_empty(), "{:?}", rule_in_memory_read_disk(&pg, &levels(&pg)));
        let my = tagged("mysql");
        let f = rule_in_memory_read_disk(&my, &levels(&my));
        assert_eq!(f.len(), 1);
        assert!(f[0].evidence[0].contains("waited 5000.0 µs each on reads"), "{:?}", f[0].evidence);
    }
}
