//! TPC-C on MariaDB, PostgreSQL and SQLite at a small scale: prepare and
//! check, runs under contention with retries, the mix, rollbacks, remote
//! warehouses, tpmC vs NOPM, spec mode's ceiling and the schema variants.

mod common;

use common::*;
use serde_json::Value;
use std::process::Command;

fn tpcc(cmd: &str, target: &str, prefix: &str, extra: &[&str]) -> Command {
    let mut c = fairbench();
    c.arg(cmd).arg("tpcc").arg("--target").arg(target).arg("--tpcc-prefix").arg(prefix).args(extra);
    if cmd == "run" {
        c.arg("--no-save");
    }
    c
}

fn kind<'a>(s: &'a Value, name: &str) -> &'a Value {
    s["workload"]["transactions"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap()
}

fn check_passes(target: &str, prefix: &str, extra: &[&str]) {
    let out = run_ok(&mut tpcc("check", target, prefix, extra));
    let text = stdout(&out);
    assert!(text.contains("All conditions hold."), "{text}");
    assert!(!text.contains("FAIL"), "{text}");
    for c in 1..=12 {
        assert!(text.contains(&format!("condition {c:>2} ")), "condition {c} not checked:\n{text}");
    }
}

/// Condition 11 holds only on the initial population: checked right after
/// prepare, skipped once transactions ran.
fn condition_11(target: &str, prefix: &str, extra: &[&str], fresh: bool) {
    let text = stdout(&run_ok(&mut tpcc("check", target, prefix, extra)));
    let line = text.lines().find(|l| l.contains("condition 11 ")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.ends_with(if fresh { "PASS" } else { "SKIP (holds only before the first transaction)" }), "{line}");
}

/// prepare (2 datasets of 1 warehouse) + check, then 8 clients on one
/// warehouse at SERIALIZABLE (retries must happen) and check again. The
/// contention run drops the FOR UPDATE reads: with them InnoDB queues every
/// New-Order on the district row and never deadlocks; without them shared
/// locks taken at SERIALIZABLE meet and deadlock (1213) or fail to
/// serialize (40001).
fn server_flow(target: &str, prefix: &str) {
    let size = ["--warehouses", "1", "--datasets", "2"];
    run_ok(&mut tpcc("cleanup", target, prefix, &size));
    run_ok(&mut tpcc("prepare", target, prefix, &[&size[..], &["--threads", "4"]].concat()));
    check_passes(target, prefix, &size);
    condition_11(target, prefix, &size, true);
    resume_after_interruption(target, prefix, &size);

    // Both datasets hold one complete warehouse.
    let out = run_ok(&mut tpcc(
        "run",
        target,
        prefix,
        &["--warehouses", "1", "--datasets", "1", "--threads", "8", "--time", "4", "--isolation", "SER", "--for-update", "0", "--output", "json", "--report-interval", "1"],
    ));
    let s = summary(&out);
    assert_eq!(s["status"], "completed");
    let retries: u64 = s["workload"]["transactions"].as_array().unwrap().iter().map(|t| t["retries"].as_u64().unwrap()).sum();
    assert!(retries > 0 && s["ignored_errors"].as_u64().unwrap() > 0, "no retries under contention: {}", s["workload"]);
    assert!(kind(&s, "new_order")["count"].as_u64().unwrap() > 0);
    check_passes(target, prefix, &size);

    // A clean run (READ COMMITTED default isolation differs by engine; no
    // contention to speak of with 2 clients): NOPM and tpmC agree. With a
    // warmup, NOPM's first reading is taken when the warmup ends.
    let out = run_ok(&mut tpcc("run", target, prefix, &["--warehouses", "1", "--datasets", "2", "--threads", "2", "--time", "4", "--warmup-time", "1", "--output", "json"]));
    let s = summary(&out);
    let (tpmc, nopm) = (s["workload"]["tpmc"].as_f64().unwrap(), s["workload"]["nopm"].as_f64().unwrap());
    assert!(tpmc > 0.0 && (tpmc - nopm).abs() <= 0.05 * tpmc, "tpmC {tpmc} vs NOPM {nopm}");
    check_passes(target, prefix, &size);
    condition_11(target, prefix, &size, false);
    run_ok(&mut tpcc("cleanup", target, prefix, &size));
}

/// SQL on the test server behind `target`, as its superuser, with foreign
/// keys not enforced (an interrupted load leaves children without parents).
fn unchecked_sql(target: &str, sql: &str) -> String {
    let db = parse_url(target).database;
    if target.starts_with("postgres") {
        pg_admin_db(&db, &format!("SET session_replication_role = replica; {sql}"))
    } else {
        mysql_admin_db(&db, &format!("SET foreign_key_checks = 0; {sql}"))
    }
}

/// What an interrupted load leaves of dataset 2's warehouse (no WAREHOUSE
/// row, half its stock, no order lines, an index not built yet) is
/// completed by the next prepare: that warehouse alone is loaded again and
/// the data passes every check.
fn resume_after_interruption(target: &str, prefix: &str, size: &[&str]) {
    let (w, st, ol, cu) = (format!("{prefix}warehouse2"), format!("{prefix}stock2"), format!("{prefix}order_line2"), format!("{prefix}customer2"));
    let drop_index = if target.starts_with("postgres") { format!("DROP INDEX {prefix}idx_customer2") } else { format!("DROP INDEX {prefix}idx_customer2 ON {cu}") };
    unchecked_sql(target, &format!("DELETE FROM {w}; DELETE FROM {st} WHERE s_i_id > 50000; DELETE FROM {ol}; {drop_index};"));
    let out = run_ok(&mut tpcc("prepare", target, prefix, &[size, &["--threads", "4"]].concat()));
    assert!(stdout(&out).contains("Loading 1 warehouse(s) and 0 item table(s)"), "{}", stdout(&out));
    check_passes(target, prefix, size);
    condition_11(target, prefix, size, true);
    let counts = unchecked_sql(target, &format!("SELECT COUNT(*) FROM {st}; SELECT COUNT(*) FROM {w};"));
    let counts: Vec<&str> = counts.split_whitespace().collect();
    assert_eq!(counts, ["100000", "1"]);
    let index = if target.starts_with("postgres") {
        unchecked_sql(target, &format!("SELECT COUNT(*) FROM pg_indexes WHERE indexname = '{prefix}idx_customer2'"))
    } else {
        unchecked_sql(target, &format!("SELECT COUNT(DISTINCT index_name) FROM information_schema.statistics WHERE table_schema = DATABASE() AND index_name = '{prefix}idx_customer2'"))
    };
    assert_eq!(index.trim(), "1", "idx_customer2 was not built again");
    if target.starts_with("postgres") {
        // The keys were lifted for the resumed load: all back, and validated.
        let fks = unchecked_sql(target, &format!("SELECT COUNT(*), COUNT(*) FILTER (WHERE NOT convalidated) FROM pg_constraint WHERE contype = 'f' AND conname LIKE '{prefix}fk_%'"));
        let fks: Vec<u32> = fks.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
        assert!(fks.len() == 2 && fks[0] > 0 && fks[0].is_multiple_of(10) && fks[1] == 0, "foreign keys (all, not validated): {fks:?}");
    }
}

#[test]
fn tpcc_mariadb() {
    server_flow(&mysql_url(), "tpm_");
}

#[test]
fn tpcc_postgres() {
    server_flow(&pg_url(), "tpp_");
}

fn lite_count(path: &std::path::Path, sql: &str) -> i64 {
    let c = rusqlite::Connection::open(path).unwrap();
    c.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// SQLite with 2 warehouses: check, the mix, rollbacks, remote
/// warehouses, NOPM = tpmC, spec mode under its ceiling, a failing check.
#[test]
fn tpcc_sqlite() {
    let dir = scratch_dir("tpcc_sqlite");
    let db = dir.join("t.sqlite");
    let target = format!("sqlite:{}", db.display());
    let w2 = ["--warehouses", "2"];
    run_ok(&mut tpcc("prepare", &target, "", &w2));
    check_passes(&target, "", &w2);

    // Mix, remote lines and payments, NOPM vs tpmC.
    let out = run_ok(&mut tpcc("run", &target, "", &["--warehouses", "2", "--threads", "4", "--time", "6", "--output", "json", "--mix", "45,43,4,4,4"]));
    let s = summary(&out);
    let total: u64 = s["workload"]["transactions"].as_array().unwrap().iter().map(|t| t["count"].as_u64().unwrap()).sum();
    assert!(total >= 400, "too few transactions to judge the mix: {total}");
    for (name, want) in [("new_order", 45.0), ("payment", 43.0), ("order_status", 4.0), ("delivery", 4.0), ("stock_level", 4.0)] {
        let got = kind(&s, name)["mix_pct"].as_f64().unwrap();
        assert!((got - want).abs() <= 1.0, "{name}: {got}% vs {want}%");
        assert_eq!(kind(&s, name)["mix_ok"], true, "{name}: {got}% judged below the TPC-C minimum");
    }
    let (tpmc, nopm) = (s["workload"]["tpmc"].as_f64().unwrap(), s["workload"]["nopm"].as_f64().unwrap());
    assert!(tpmc > 0.0 && (tpmc - nopm).abs() <= 0.05 * tpmc, "tpmC {tpmc} vs NOPM {nopm}");
    let remote_orders = lite_count(&db, "SELECT COUNT(*) FROM order_line1 WHERE ol_supply_w_id <> ol_w_id");
    let remote_pay = lite_count(&db, "SELECT COUNT(*) FROM history1 WHERE h_c_w_id <> h_w_id");
    assert!(remote_orders > 0, "no remote order lines");
    assert!(remote_pay > 0, "no remote payments");
    check_passes(&target, "", &w2);

    // About 1% of New-Orders roll back.
    let out = run_ok(&mut tpcc("run", &target, "", &["--warehouses", "2", "--threads", "2", "--time", "6", "--output", "json", "--trx-debug", "new_order"]));
    let s = summary(&out);
    let no = kind(&s, "new_order");
    let (n, rb) = (no["count"].as_u64().unwrap(), no["rollbacks"].as_u64().unwrap());
    assert!(n >= 300, "too few New-Orders: {n}");
    let pct = rb as f64 * 100.0 / n as f64;
    assert!(rb >= 1 && pct <= 3.0, "{rb} rollbacks of {n} New-Orders ({pct:.2}%)");
    // tpmC counts the rolled-back New-Orders, NOPM (from the database)
    // cannot: the committed rate is the one that matches NOPM.
    let tpmc = s["workload"]["tpmc"].as_f64().unwrap();
    let committed = s["workload"]["committed_new_orders_per_min"].as_f64().unwrap();
    let nopm = s["workload"]["nopm"].as_f64().unwrap();
    assert!((tpmc / committed - n as f64 / (n - rb) as f64).abs() < 1e-6, "tpmC {tpmc} vs committed {committed}");
    assert!((committed - nopm).abs() <= 0.03 * committed, "committed {committed}/min vs NOPM {nopm}");

    // Spec mode: 20 terminals, times scaled by 0.01: ceiling 2 x 1286 tpmC.
    let out = run_ok(&mut tpcc("run", &target, "", &["--warehouses", "2", "--terminals", "spec", "--time-scale", "0.01", "--time", "6", "--output", "json"]));
    let s = summary(&out);
    assert_eq!(s["threads"], 20);
    let tpmc = s["workload"]["tpmc"].as_f64().unwrap();
    let ceiling = s["workload"]["ceiling_tpmc"].as_f64().unwrap();
    assert!((ceiling - 2.0 * 1286.0).abs() < 1.0, "ceiling {ceiling}");
    assert!(tpmc > 0.2 * ceiling && tpmc <= 1.1 * ceiling, "spec tpmC {tpmc} vs ceiling {ceiling}");
    assert!(s["workload"]["efficiency_pct"].as_f64().unwrap() <= 110.0);
    // Keying and think times are not latency.
    assert!(kind(&s, "new_order")["latency_ms"]["p50"].as_f64().unwrap() < 150.0);

    // tpcc-mysql's format.
    let out = run_ok(&mut tpcc("run", &target, "", &["--warehouses", "2", "--threads", "2", "--time", "2", "--format", "tpcc-mysql"]));
    let text = stdout(&out);
    assert!(text.contains("<Raw Results>") && text.contains("TpmC") && text.contains("milliseconds") && text.contains(", trx: "), "{text}");

    // A broken invariant fails the check with exit code 5.
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute("UPDATE warehouse1 SET w_ytd = w_ytd + 1 WHERE w_id = 1", []).unwrap();
    drop(c);
    let out = run_fail(&mut tpcc("check", &target, "", &w2));
    assert_eq!(out.status.code(), Some(5), "{}", stdout(&out));
    assert!(stdout(&out).contains("FAIL"));
    // A customer balance that no payment or delivery explains breaks 10 and 12.
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute("UPDATE warehouse1 SET w_ytd = w_ytd - 1 WHERE w_id = 1", []).unwrap();
    c.execute("UPDATE customer1 SET c_balance = c_balance + 7 WHERE c_w_id = 2 AND c_d_id = 3 AND c_id = 42", []).unwrap();
    drop(c);
    let out = run_fail(&mut tpcc("check", &target, "", &w2));
    let text = stdout(&out);
    let failed: Vec<&str> = text.lines().filter(|l| l.contains("FAIL")).collect();
    assert_eq!(failed.len(), 2, "{text}");
    assert!(failed[0].contains("condition 10 ") && failed[1].contains("condition 12 "), "{text}");
}

/// The label decodes into the TPC-C options; bad options fail clearly.
#[test]
fn tpcc_labels_and_usage() {
    let out = run_ok(fairbench().args(["explain", "sb11-Prepare_TPCC_10x100W-NULL-InnoDB-NoFK2.sh"]));
    let text = stdout(&out);
    assert!(text.contains("--warehouses=100") && text.contains("--datasets=10") && text.contains("--force-null=on") && text.contains("--fk=nofk2"), "{text}");
    let dir = scratch_dir("tpcc_usage");
    let target = format!("sqlite:{}", dir.join("u.sqlite").display());
    for bad in [&["--mix", "50,50"][..], &["--fk", "maybe"], &["--terminals", "open"], &["--isolation", "XX"], &["--trx-debug", "nope"]] {
        let out = run_fail(&mut tpcc("run", &target, "", bad));
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).trim().lines().count(), 1, "{bad:?}: {}", stderr(&out));
    }
    let out = run_fail(fairbench().args(["check", "oltp_read_write", "--target", &target]));
    assert_eq!(out.status.code(), Some(2));
}

/// Each variant creates what it says (schema only, no data).
#[test]
fn tpcc_variants() {
    // MariaDB: FK / NoFK / NoFK2, NULL / DEFAULT, history PK.
    let my = mysql_url();
    let db = parse_url(&my).database;
    let q = |sql: String| mysql_admin(&sql).trim().to_string();
    for (p, fk, null, pk) in [("tvf_", "fk", "off", "on"), ("tvn_", "nofk", "on", "off"), ("tvm_", "nofk2", "off", "off")] {
        run_ok(&mut tpcc("cleanup", &my, p, &[]));
        run_ok(&mut tpcc("prepare", &my, p, &["--fk", fk, "--force-null", null, "--force-pk", pk, "--schema-only"]));
        let fks: u32 = q(format!("SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA='{db}' AND TABLE_NAME LIKE '{p}%'")).parse().unwrap();
        let backing: u32 =
            q(format!("SELECT COUNT(DISTINCT INDEX_NAME) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA='{db}' AND TABLE_NAME LIKE '{p}%' AND INDEX_NAME LIKE '{p}fkey%'")).parse().unwrap();
        let secondary: u32 =
            q(format!("SELECT COUNT(DISTINCT INDEX_NAME) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA='{db}' AND TABLE_NAME LIKE '{p}%' AND INDEX_NAME LIKE '{p}idx%'")).parse().unwrap();
        assert_eq!(fks, if fk == "fk" { 10 } else { 0 }, "{fk}: foreign keys");
        assert_eq!(backing, if fk == "nofk2" { 0 } else { 4 }, "{fk}: FK-backing indexes");
        assert_eq!(secondary, 2, "{fk}: idx_customer and idx_orders");
        let nullable = q(format!("SELECT IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='{db}' AND TABLE_NAME='{p}orders1' AND COLUMN_NAME='o_carrier_id'"));
        assert_eq!(nullable, if null == "on" { "YES" } else { "NO" });
        let dnull = q(format!("SELECT IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='{db}' AND TABLE_NAME='{p}order_line1' AND COLUMN_NAME='ol_delivery_d'"));
        assert_eq!(dnull, if null == "on" { "YES" } else { "NO" });
        let hid = q(format!("SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='{db}' AND TABLE_NAME='{p}history1' AND COLUMN_NAME='id'"));
        assert_eq!(hid, if pk == "on" { "1" } else { "0" });
        run_ok(&mut tpcc("cleanup", &my, p, &[]));
    }
    // PostgreSQL: FK vs NoFK2.
    let pg = pg_url();
    let pdb = parse_url(&pg).database;
    for (p, fk) in [("tvpf_", "fk"), ("tvpm_", "nofk2")] {
        run_ok(&mut tpcc("cleanup", &pg, p, &[]));
        run_ok(&mut tpcc("prepare", &pg, p, &["--fk", fk, "--schema-only"]));
        let fks: u32 = pg_admin_db(&pdb, &format!("SELECT COUNT(*) FROM pg_constraint WHERE contype='f' AND convalidated AND conname LIKE '{p}%'")).trim().parse().unwrap();
        let backing: u32 = pg_admin_db(&pdb, &format!("SELECT COUNT(*) FROM pg_indexes WHERE indexname LIKE '{p}fkey%'")).trim().parse().unwrap();
        assert_eq!(fks, if fk == "fk" { 10 } else { 0 });
        assert_eq!(backing, if fk == "fk" { 4 } else { 0 });
        run_ok(&mut tpcc("cleanup", &pg, p, &[]));
    }
    // SQLite: foreign keys live in CREATE TABLE.
    let dir = scratch_dir("tpcc_variants");
    let path = dir.join("v.sqlite");
    let target = format!("sqlite:{}", path.display());
    run_ok(&mut tpcc("prepare", &target, "", &["--fk", "fk", "--schema-only"]));
    assert_eq!(lite_count(&path, "SELECT COUNT(*) FROM pragma_foreign_key_list('stock1')"), 2);
    assert_eq!(lite_count(&path, "SELECT COUNT(*) FROM sqlite_master WHERE type='index' AND name LIKE 'fkey%'"), 4);
}
