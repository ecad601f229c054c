//! What vtgate's and vttablet's status APIs say, as data: vtgate's
//! `/debug/vars` (Go's expvar JSON, cumulative since it started) made into
//! the counters a run samples, the routing class of a plan type, the flags
//! of a command line, and the tablets `/api/health-check/` lists. No IO.

use crate::db::hosts::address;
use serde_json::Value;
use std::collections::BTreeMap;

/// How many shards a plan sends one statement to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// One shard: the statement passes through to it whole.
    Single,
    /// Several shards, chosen from the statement's values.
    Multi,
    /// Every shard of the keyspace.
    Scatter,
    /// Answered by vtgate itself, several routes joined or merged there,
    /// DDL, transaction control, lookups.
    Other,
}

pub const ROUTES: [Route; 4] = [Route::Single, Route::Multi, Route::Scatter, Route::Other];

impl Route {
    pub fn name(self) -> &'static str {
        match self {
            Route::Single => "single",
            Route::Multi => "multi",
            Route::Scatter => "scatter",
            Route::Other => "other",
        }
    }
}

/// The routing class of a plan type as `QueryExecutions` names it: the plan
/// classes of Vitess 22 and later (Passthrough, MultiShard, Scatter, Local,
/// Complex, Join, DirectDDL, Transaction...) and the route opcodes earlier
/// releases published (EqualUnique, Equal, IN, Unsharded...).
pub fn route(plan: &str) -> Route {
    match plan {
        "Passthrough" | "EqualUnique" | "Unsharded" | "Reference" => Route::Single,
        "MultiShard" | "Equal" | "IN" | "MultiEqual" => Route::Multi,
        "Scatter" => Route::Scatter,
        _ => Route::Other,
    }
}

/// Whether a plan class is one vtgate completes itself over what its routes
/// bring back (an ORDER BY or DISTINCT over shards, a join): its class says
/// nothing of the shards reached, its `QueryRoutes` count does.
pub fn completed_by_vtgate(plan: &str) -> bool {
    matches!(plan, "Complex" | "Join")
}

/// The queries of the plans vtgate completes itself, `executions` of them
/// with `routes` shards reached over a keyspace of `shards`: as (to one
/// shard, to every one). Each is taken to reach one shard or all (so the
/// split is exact for a mix of those two, as sysbench's ordered and
/// distinct ranges beside its point selects); one answered by vtgate alone
/// (no route) counts as neither.
pub fn split_completed(executions: f64, routes: f64, shards: usize) -> (f64, f64) {
    if shards <= 1 {
        return (executions.min(routes).max(0.0), 0.0);
    }
    let scatter = ((routes - executions) / (shards - 1) as f64).clamp(0.0, executions);
    let single = (routes - scatter * shards as f64).clamp(0.0, executions - scatter);
    (single, scatter)
}

/// `STATEMENT.PLAN.TABLETTYPE` (a `QueryExecutions` key) as its three parts.
fn plan_key(k: &str) -> Option<(&str, &str, &str)> {
    let mut it = k.rsplitn(3, '.');
    let tablet = it.next()?;
    let plan = it.next()?;
    let statement = it.next()?;
    Some((statement, plan, tablet))
}

/// `Operation.Keyspace.Shard.TabletType` (a `VttabletCall` key) as (keyspace, shard).
fn call_target(k: &str) -> Option<(&str, &str)> {
    let mut it = k.rsplitn(4, '.');
    let _tablet_type = it.next()?;
    let shard = it.next()?;
    let keyspace = it.next()?;
    it.next()?;
    Some((keyspace, shard))
}

/// A shard as counter labels name it: by its name in the run's keyspace,
/// as `keyspace/shard` in another.
pub fn shard_label(keyspace: &str, shard: &str, run_keyspace: &str) -> String {
    if keyspace == run_keyspace {
        shard.to_string()
    } else {
        format!("{keyspace}/{shard}")
    }
}

/// The numbers of a JSON object of counters (`{"a": 1, "b": 2}`).
fn numbers(v: &Value) -> impl Iterator<Item = (&String, f64)> {
    v.as_object().into_iter().flat_map(|o| o.iter()).filter_map(|(k, v)| Some((k, v.as_f64()?)))
}

/// The gauge among the counters: client connections open on vtgate.
pub const CONNECTIONS: &str = "vtgate.connections";

pub fn queries_key(r: Route) -> String {
    format!("vtgate.queries{{route={}}}", r.name())
}

pub fn calls_key(shard: &str) -> String {
    format!("vttablet.calls{{shard={shard}}}")
}

/// The counters of vtgate's `/debug/vars`; `keyspace` is the run's and
/// `shards` its shards, whose keys are there from the first sample on (a
/// counter missing from the sample before has no delta).
pub fn counters(vars: &Value, keyspace: &str, shards: &[String]) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    for r in ROUTES {
        m.insert(queries_key(r), 0.0);
        m.insert(format!("vtgate.shard_routes{{route={}}}", r.name()), 0.0);
    }
    for s in shards {
        m.insert(calls_key(s), 0.0);
    }
    for mode in ["single", "cross"] {
        m.insert(format!("vtgate.transactions{{mode={mode}}}"), 0.0);
    }
    for mode in ["single", "multi", "twopc"] {
        m.insert(format!("vtgate.commits{{mode={mode}}}"), 0.0);
    }
    let mut add = |k: String, n: f64| *m.entry(k).or_insert(0.0) += n;
    for (k, n) in numbers(&vars["QueryExecutions"]) {
        if let Some((_, plan, _)) = plan_key(k) {
            add(queries_key(route(plan)), n);
            add(format!("vtgate.queries{{plan={k}}}"), n);
        }
    }
    for (k, n) in numbers(&vars["QueryRoutes"]) {
        if let Some((_, plan, _)) = plan_key(k) {
            add(format!("vtgate.shard_routes{{route={}}}", route(plan).name()), n);
            if completed_by_vtgate(plan) {
                add(format!("vtgate.shard_routes{{plan={k}}}"), n);
            }
        }
    }
    if let Some(h) = vars["VttabletCall"]["Histograms"].as_object() {
        for (k, v) in h {
            let Some((ks, shard)) = call_target(k) else { continue };
            let label = shard_label(ks, shard, keyspace);
            add(calls_key(&label), v["Count"].as_f64().unwrap_or(0.0));
            add(format!("vttablet.call_seconds{{shard={label}}}"), v["Time"].as_f64().unwrap_or(0.0) / 1e9);
        }
    }
    for (k, n) in numbers(&vars["VttabletCallErrorCount"]) {
        if let Some((ks, shard)) = call_target(k) {
            add(format!("vttablet.errors{{shard={}}}", shard_label(ks, shard, keyspace)), n);
        }
    }
    // `ErrorsByCode` is a rate; the cumulative counts are by API call, code last.
    for (k, n) in numbers(&vars["VtgateApiErrorCounts"]) {
        if let Some(code) = k.rsplit('.').next() {
            add(format!("vtgate.errors{{code={code}}}"), n);
        }
    }
    for (k, n) in numbers(&vars["TransactionsProcessed"]) {
        let mode = k.split('.').next().unwrap_or(k).to_ascii_lowercase();
        add(format!("vtgate.transactions{{mode={mode}}}"), n);
    }
    if let Some(h) = vars["CommitModeTimings"]["Histograms"].as_object() {
        for (mode, v) in h {
            add(format!("vtgate.commits{{mode={}}}", mode.to_ascii_lowercase()), v["Count"].as_f64().unwrap_or(0.0));
        }
    }
    for (name, key) in [("QueryPlanCacheHits", "vtgate.plan_cache_hits"), ("QueryPlanCacheMisses", "vtgate.plan_cache_misses"), ("MysqlServerConnCount", CONNECTIONS)] {
        if let Some(n) = vars[name].as_f64() {
            m.insert(key.to_string(), n);
        }
    }
    m
}

/// A program's flags from its `cmdline` (`--name value`, `--name=value`,
/// a bare `--name` is `true`), names with `-` for `_` as Vitess accepts both.
pub fn flags(cmdline: &Value) -> BTreeMap<String, String> {
    let args: Vec<&str> = cmdline.as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let mut out = BTreeMap::new();
    let mut i = 1;
    while i < args.len() {
        let Some(flag) = args[i].strip_prefix("--").or_else(|| args[i].strip_prefix('-')) else {
            i += 1;
            continue;
        };
        let (name, value) = match flag.split_once('=') {
            Some((n, v)) => (n, v.to_string()),
            None => match args.get(i + 1) {
                Some(v) if !v.starts_with('-') => {
                    i += 1;
                    (flag, v.to_string())
                }
                _ => (flag, "true".to_string()),
            },
        };
        out.insert(name.replace('_', "-"), value);
        i += 1;
    }
    out
}

/// Whether a status API's `/debug/vars` is vtgate's (its program is vtgate).
pub fn is_vtgate(vars: &Value) -> bool {
    let program = vars["cmdline"][0].as_str().unwrap_or("");
    program.rsplit('/').next() == Some("vtgate")
}

/// The release in vtgate's `version_comment` ("Version: 24.0.4 (Git revision ...").
pub fn release(version_comment: &str) -> Option<String> {
    let v = version_comment.trim().strip_prefix("Version:")?.split_whitespace().next()?;
    Some(v.to_string())
}

/// A tablet as vtgate's health check sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    /// `cell-uid`, as `SHOW VITESS_TABLETS` names it.
    pub alias: String,
    /// `host:port` of its status API.
    pub status: Option<String>,
    /// `host:port` of the MySQL server it fronts, as it registered it.
    pub mysql: Option<String>,
}

/// The tablets of vtgate's `/api/health-check/`.
pub fn health_check(v: &Value) -> Vec<Seen> {
    let mut out = Vec::new();
    for target in v.as_array().into_iter().flatten() {
        for t in target["TabletsStats"].as_array().into_iter().flatten() {
            let tablet = &t["Tablet"];
            let (Some(cell), Some(uid)) = (tablet["alias"]["cell"].as_str(), tablet["alias"]["uid"].as_u64()) else { continue };
            let host = tablet["hostname"].as_str().unwrap_or("");
            let status = tablet["port_map"]["vt"].as_u64().filter(|_| !host.is_empty()).map(|p| address(host, p));
            let mysql = match (tablet["mysql_hostname"].as_str(), tablet["mysql_port"].as_u64()) {
                (Some(h), Some(p)) if !h.is_empty() && p > 0 => Some(address(h, p)),
                _ => None,
            };
            let alias = format!("{cell}-{uid:010}");
            if !out.iter().any(|s: &Seen| s.alias == alias) {
                out.push(Seen { alias, status, mysql });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plan_types_fall_into_routing_classes() {
        for p in ["Passthrough", "EqualUnique", "Unsharded", "Reference"] {
            assert_eq!(route(p), Route::Single, "{p}");
        }
        for p in ["MultiShard", "Equal", "IN", "MultiEqual"] {
            assert_eq!(route(p), Route::Multi, "{p}");
        }
        assert_eq!(route("Scatter"), Route::Scatter);
        for p in ["Local", "Complex", "Join", "JoinOp", "Lookup", "DirectDDL", "OnlineDDL", "Transaction", "TopoOp", "ForeignKey", "Something"] {
            assert_eq!(route(p), Route::Other, "{p}");
        }
        assert_eq!(plan_key("SELECT.Passthrough.PRIMARY"), Some(("SELECT", "Passthrough", "PRIMARY")));
        assert_eq!(plan_key("oops"), None);
        assert_eq!(call_target("Execute.sbtest.-80.primary"), Some(("sbtest", "-80")));
        assert_eq!(call_target("-80.primary"), None);
    }

    fn vars() -> Value {
        json!({
            "QueryExecutions": {"SELECT.Passthrough.PRIMARY": 10, "UPDATE.EqualUnique.PRIMARY": 2, "INSERT.MultiShard.PRIMARY": 3,
                "SELECT.Scatter.PRIMARY": 4, "BEGIN.Transaction.PRIMARY": 5, "SELECT.Complex.PRIMARY": 1},
            "QueryRoutes": {"SELECT.Passthrough.PRIMARY": 10, "SELECT.Scatter.PRIMARY": 8, "INSERT.MultiShard.PRIMARY": 6, "SELECT.Complex.PRIMARY": 2},
            "VttabletCall": {"TotalCount": 9, "Histograms": {
                "Execute.sbtest.-80.primary": {"500000": 1, "Count": 5, "Time": 2_000_000_000u64},
                "Commit.sbtest.-80.primary": {"Count": 1, "Time": 500_000_000u64},
                "Execute.sbtest.80-.primary": {"Count": 3, "Time": 1_000_000_000u64},
                "Execute.other.-.primary": {"Count": 7, "Time": 0}}},
            "VttabletCallErrorCount": {"Execute.sbtest.80-.primary": 2},
            "VtgateApiErrorCounts": {"Execute.sbtest.primary.INVALID_ARGUMENT": 2, "ExecuteBatch.sbtest.primary.INVALID_ARGUMENT": 1, "Execute.sbtest.primary.UNAVAILABLE": 4},
            "ErrorsByCode": {"INVALID_ARGUMENT": [0.1]},
            "TransactionsProcessed": {"Single.ReadWrite": 4, "Single.ReadOnly": 1, "Cross.ReadWrite": 2},
            "CommitModeTimings": {"TotalCount": 3, "Histograms": {"Single": {"Count": 2}, "Multi": {"Count": 1}}},
            "QueryPlanCacheHits": 40, "QueryPlanCacheMisses": 3, "MysqlServerConnCount": 6,
            "cmdline": ["/usr/bin/vtgate", "--port", "15001"]
        })
    }

    #[test]
    fn queries_vtgate_completes_are_split_by_the_shards_they_reached() {
        // sysbench's ordered and distinct ranges: 20 queries, each to both of 2 shards.
        assert_eq!(split_completed(20.0, 40.0, 2), (0.0, 20.0));
        // Beside 5 ordered queries to one shard each.
        assert_eq!(split_completed(25.0, 45.0, 2), (5.0, 20.0));
        // 4 shards: 3 queries to all, 2 to one.
        assert_eq!(split_completed(5.0, 14.0, 4), (2.0, 3.0));
        // Answered by vtgate alone (no route): neither.
        assert_eq!(split_completed(3.0, 0.0, 2), (0.0, 0.0));
        // One shard: every query is to one.
        assert_eq!(split_completed(4.0, 4.0, 1), (4.0, 0.0));
    }

    #[test]
    fn debug_vars_become_counters_by_route_shard_code_and_mode() {
        let shards = vec!["-80".to_string(), "80-".to_string(), "unused".to_string()];
        let m = counters(&vars(), "sbtest", &shards);
        let g = |k: &str| m.get(k).copied().unwrap_or_else(|| panic!("no {k} in {m:?}"));
        assert_eq!(g("vtgate.queries{route=single}"), 12.0);
        assert_eq!(g("vtgate.queries{route=multi}"), 3.0);
        assert_eq!(g("vtgate.queries{route=scatter}"), 4.0);
        assert_eq!(g("vtgate.queries{route=other}"), 6.0);
        assert_eq!(g("vtgate.queries{plan=UPDATE.EqualUnique.PRIMARY}"), 2.0);
        assert_eq!(g("vtgate.shard_routes{route=scatter}"), 8.0);
        assert_eq!(g("vtgate.shard_routes{plan=SELECT.Complex.PRIMARY}"), 2.0);
        assert_eq!(g("vtgate.shard_routes{route=other}"), 2.0);
        assert_eq!(g("vttablet.calls{shard=-80}"), 6.0);
        assert_eq!(g("vttablet.calls{shard=80-}"), 3.0);
        assert_eq!(g("vttablet.calls{shard=unused}"), 0.0);
        assert_eq!(g("vttablet.calls{shard=other/-}"), 7.0);
        assert_eq!(g("vttablet.call_seconds{shard=-80}"), 2.5);
        assert_eq!(g("vttablet.errors{shard=80-}"), 2.0);
        assert_eq!(g("vtgate.errors{code=INVALID_ARGUMENT}"), 3.0);
        assert_eq!(g("vtgate.errors{code=UNAVAILABLE}"), 4.0);
        assert_eq!(g("vtgate.transactions{mode=single}"), 5.0);
        assert_eq!(g("vtgate.transactions{mode=cross}"), 2.0);
        assert_eq!(g("vtgate.commits{mode=single}"), 2.0);
        assert_eq!(g("vtgate.commits{mode=multi}"), 1.0);
        assert_eq!(g("vtgate.commits{mode=twopc}"), 0.0);
        assert_eq!(g("vtgate.plan_cache_hits"), 40.0);
        assert_eq!(g(CONNECTIONS), 6.0);
        // The rate is no counter.
        assert!(!m.keys().any(|k| k.contains("ErrorsByCode")));
        // A fresh vtgate's empty vars still give every class and shard.
        let empty = counters(&json!({}), "sbtest", &shards[..2]);
        assert_eq!(empty.get("vtgate.queries{route=single}"), Some(&0.0));
        assert_eq!(empty.get("vttablet.calls{shard=80-}"), Some(&0.0));
    }

    #[test]
    fn flags_in_both_forms_and_spellings() {
        let f = flags(&json!(["/vt/bin/vtgate", "--transaction-mode", "TWOPC", "--planner_version=Gen4", "--enable-buffer", "--port", "15001", "-cell", "zone1"]));
        assert_eq!(f.get("transaction-mode").map(String::as_str), Some("TWOPC"));
        assert_eq!(f.get("planner-version").map(String::as_str), Some("Gen4"));
        assert_eq!(f.get("enable-buffer").map(String::as_str), Some("true"));
        assert_eq!(f.get("port").map(String::as_str), Some("15001"));
        assert_eq!(f.get("cell").map(String::as_str), Some("zone1"));
        assert!(flags(&json!(null)).is_empty());
        assert!(is_vtgate(&vars()));
        assert!(!is_vtgate(&json!({"cmdline": ["/vt/bin/vttablet"]})));
        assert!(!is_vtgate(&json!({})));
        assert_eq!(release("Version: 24.0.4 (Git revision  branch '') built on"), Some("24.0.4".to_string()));
        assert_eq!(release("MariaDB Server"), None);
    }

    #[test]
    fn the_health_check_names_each_tablet_and_its_status_address() {
        let v = json!([
            {"Target": {"shard": "-80"}, "TabletsStats": [{"Tablet": {"alias": {"cell": "zone1", "uid": 100}, "hostname": "127.0.0.1",
                "port_map": {"grpc": 15318, "vt": 15317}, "mysql_hostname": "127.0.0.1", "mysql_port": 15316}}]},
            {"Target": {"shard": "80-"}, "TabletsStats": [{"Tablet": {"alias": {"cell": "zone1", "uid": 101}, "hostname": "::1", "port_map": {"vt": 15320}}}]}
        ]);
        assert_eq!(
            health_check(&v),
            vec![
                Seen { alias: "zone1-0000000100".into(), status: Some("127.0.0.1:15317".into()), mysql: Some("127.0.0.1:15316".into()) },
                Seen { alias: "zone1-0000000101".into(), status: Some("[::1]:15320".into()), mysql: None },
            ]
        );
        assert!(health_check(&json!({})).is_empty());
    }
}
