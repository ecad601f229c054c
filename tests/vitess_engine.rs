//! Vitess as a target, on a sharded keyspace behind vtgate (the URL in
//! FAIRBENCH_TEST_VITESS_URL, with vtgate's `status-port`): `env` names the
//! cluster (vtgate, keyspace, shards, tablets) and each shard's MySQL
//! server and durability as the shard itself reports them; a point-select
//! run stores per-interval counters of single-shard queries and of calls
//! to every shard; a status port that does not answer is said once.

mod common;

use common::*;
use serde_json::Value;

/// Runs `sql` through vtgate with the mariadb client (the test's own view).
fn vitess_sql(sql: &str) -> String {
    mysql_at(&vitess_url(), sql)
}

/// The URL with its `status-port` parameter replaced by `with` (None: left out).
fn with_status_port(with: Option<u16>) -> String {
    let url = vitess_url();
    let (head, query) = url.split_once('?').unwrap_or((&url, ""));
    let mut params: Vec<String> = query.split('&').filter(|p| !p.is_empty() && !p.to_ascii_lowercase().replace('_', "-").starts_with("status-port=")).map(String::from).collect();
    params.extend(with.map(|p| format!("status-port={p}")));
    if params.is_empty() {
        head.to_string()
    } else {
        format!("{head}?{}", params.join("&"))
    }
}

fn env_json(url: &str) -> Value {
    serde_json::from_str(&stdout(&run_ok(fairbench().args(["env", "--json", "--target", url])))).unwrap()
}

fn shards(server: &Value) -> Vec<String> {
    server["variables"]["shards"].as_str().unwrap_or("").split(',').filter(|s| !s.is_empty()).map(String::from).collect()
}

#[test]
fn env_on_vitess_shows_the_keyspace_shards_tablets_and_each_shards_durability() {
    let url = vitess_url();
    let out = stdout(&run_ok(fairbench().args(["env", "--target", &url])));
    let lines = |start: &str| -> Vec<String> { out.lines().filter(|l| l.trim_start().starts_with(start)).map(String::from).collect() };
    assert!(out.contains("Server: vitess ") && out.contains("-Vitess (Vitess "), "{out}");
    assert!(lines("Not captured").is_empty(), "{out}");
    assert!(lines("cluster member: vtgate ").iter().any(|l| l.contains("status ")), "{out}");
    assert!(lines("counters from:").iter().any(|l| l.ends_with("/debug/vars")), "{out}");
    assert!(lines("commit:").iter().any(|l| l.contains("transaction_mode=")), "{out}");
    let durability = lines("durability:").join("");
    assert!(durability.contains("shard ") && durability.contains(".innodb_flush_log_at_trx_commit="), "{durability}");

    let json = env_json(&url);
    let server = &json["server"];
    assert_eq!(server["engine"], "vitess", "{json}");
    let vars = &server["variables"];
    let keyspace = vars["keyspace"].as_str().unwrap().to_string();
    assert_eq!(keyspace, parse_url(&url).database, "{vars}");
    let shards = shards(server);
    assert!(shards.len() >= 2, "a sharded keyspace has two shards or more: {vars}");
    let members: Vec<&str> = server["members"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    for shard in &shards {
        // The primary tablet of every shard, with the MySQL server behind it.
        let primary = vars[format!("shard.{shard}.primary")].as_str().unwrap_or_else(|| panic!("no primary of {shard}: {vars}"));
        let member = members.iter().find(|m| m.starts_with(&format!("vttablet {primary}: {keyspace}/{shard} PRIMARY "))).unwrap_or_else(|| panic!("{primary} not in {members:?}"));
        assert!(member.contains("MySQL server ") && member.contains("status "), "{member}");
        assert!(out.contains(&format!("    shard.{shard}.innodb_flush_log_at_trx_commit = ")), "{out}");
        // The shard's own settings, as the shard answers when targeted.
        let own = vitess_sql(&format!("USE `{keyspace}:{shard}`; SELECT @@global.innodb_flush_log_at_trx_commit, @@global.sync_binlog, @@global.version"));
        let recorded: Vec<&str> = ["innodb_flush_log_at_trx_commit", "sync_binlog", "version"].iter().map(|n| vars[format!("shard.{shard}.{n}")].as_str().unwrap_or("?")).collect();
        assert_eq!(own, recorded.join("\t"), "shard {shard}");
        assert!(vars[format!("shard.{shard}.innodb_buffer_pool_size")].as_str().is_some(), "{vars}");
    }
    assert_eq!(vars["transaction_mode"].as_str().map(str::to_ascii_uppercase), Some(vitess_sql("SELECT @@transaction_mode").to_ascii_uppercase()));
    // No password of the tablets' command lines is recorded.
    assert!(!json.to_string().contains("password"), "{json}");
    // The transaction mode the sessions run with is the commit setting.
    let single = stdout(&run_ok(fairbench().args(["env", "--target", &url, "--session-options", "SET transaction_mode = 'single'"])));
    assert!(single.contains("commit: transaction_mode=SINGLE"), "{single}");
}

#[test]
fn a_point_select_run_counts_single_shard_queries_and_calls_to_every_shard() {
    let url = vitess_url();
    let dir = scratch_dir("vitess-samples");
    let store = dir.join("r.sqlite");
    let size = ["--tables", "1", "--table-size", "1000", "--table-name", "vtps"];
    // The table is sharded by id before prepare creates it (vtgate routes its rows by the VSchema).
    vitess_sql("DROP TABLE IF EXISTS vtps1");
    vitess_sql("ALTER VSCHEMA ON vtps1 ADD VINDEX hash(id) USING hash");
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &url]).args(size));
    assert_eq!(vitess_sql("SELECT COUNT(*) FROM vtps1"), "1000");
    run_ok(fairbench().args(["run", "oltp_point_select", "--target", &url, "--threads", "2", "--time", "3", "--report-interval", "1"]).args(size).arg("--results").arg(&store));
    let v: Value = serde_json::from_str(&stdout(&run_ok(fairbench().args(["results", "export", "--json", "last", "--results"]).arg(&store)))).unwrap();
    let run = if v["runs"].is_array() { v["runs"][0].clone() } else { v[0].clone() };
    assert_eq!(run["engine"], "vitess", "{run}");
    let level = &run["levels"][0];
    let samples = level["samples"].as_array().unwrap_or_else(|| panic!("no samples: {run}"));
    // The first sample is the baseline before the level starts.
    let during = &samples[1..];
    let sum = |key: &str| -> f64 { during.iter().filter_map(|s| s["deltas"][key].as_f64()).sum() };
    let events = level["events"].as_f64().unwrap();
    assert!(events > 0.0, "{level}");
    // Every point select goes to the one shard its id hashes to (other clients of the cluster only add).
    let single = sum("vtgate.queries{route=single}");
    assert!(single >= events * 0.9, "{single} single-shard queries counted for {events} events");
    for shard in shards(&run["env_start"]["server"]) {
        let calls = sum(&format!("vttablet.calls{{shard={shard}}}"));
        assert!(calls > 0.0, "no call to shard {shard}: {during:?}");
    }
    assert!(during.iter().any(|s| s["deltas"]["vtgate.process_cpu_seconds_total"].is_number()), "{during:?}");
    assert!(during.iter().any(|s| s["deltas"].as_object().unwrap().keys().any(|k| k.starts_with("vttablet.process_cpu_seconds_total{shard="))), "{during:?}");
    assert!(during.iter().any(|s| s["gauges"]["vtgate.connections"].as_f64().unwrap_or(0.0) >= 2.0), "{during:?}");
    // The cleanup takes the table out of the VSchema with it.
    run_ok(fairbench().args(["cleanup", "oltp_point_select", "--target", &url]).args(size));
    // (vtgate learns of the change from the topology a moment later).
    let gone = || !vitess_sql("SHOW VSCHEMA TABLES").lines().any(|t| t.trim() == "vtps1");
    assert!(eventually(std::time::Duration::from_secs(20), gone), "{}", vitess_sql("SHOW VSCHEMA TABLES"));
}

#[test]
fn a_status_port_that_does_not_answer_is_said_once_and_none_given_is_guessed_or_asked_for() {
    // A port nothing listens on: bound, then released.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let out = stdout(&run_ok(fairbench().args(["env", "--target", &with_status_port(Some(closed))])));
    let missing: Vec<&str> = out.lines().filter(|l| l.starts_with("Not captured")).collect();
    assert_eq!(missing.len(), 1, "{out}");
    assert!(missing[0].contains(&format!("status-port={closed}")), "{out}");
    // The shards are read through vtgate all the same.
    assert!(out.contains("durability: ") && out.contains(".innodb_flush_log_at_trx_commit="), "{out}");
    // Without the parameter: vtgate's status API at the port after its MySQL port when
    // it is there, else one line saying to add the parameter.
    let out = stdout(&run_ok(fairbench().args(["env", "--target", &with_status_port(None)])));
    let asked = out.lines().filter(|l| l.starts_with("Not captured") && l.contains("add ?status-port=N")).count();
    let guessed = out.lines().any(|l| l.trim_start().starts_with("counters from:"));
    assert!(asked + usize::from(guessed) == 1, "{out}");
}
