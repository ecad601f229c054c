//! Checks the test harness itself: the servers started by `scripts/test.sh` are reachable
//! as the tests expect, and the helpers in `common` work.

mod common;

use common::*;

#[test]
fn mysql_server_is_reachable_and_configured() {
    assert_eq!(mysql_admin("SELECT 1").trim(), "1");
    let row = mysql_admin("SELECT @@max_connections, @@local_infile, @@character_set_server, @@port, CURRENT_USER()");
    let cols: Vec<&str> = row.trim().split('\t').collect();
    assert_eq!(cols[0], "2000", "max_connections: {row}");
    assert_eq!(cols[1], "1", "local_infile: {row}");
    assert_eq!(cols[2], "utf8mb4", "character_set_server: {row}");
    assert_eq!(cols[3], mysql_port().to_string(), "port: {row}");
    assert_eq!(cols[4], "fb@%", "current_user: {row}");
    assert_eq!(mysql_admin_db("fbtest", "SELECT DATABASE()").trim(), "fbtest");
    // Rights the tests rely on for setup and fault injection.
    let grants = mysql_admin("SHOW GRANTS");
    assert!(grants.contains("ALL PRIVILEGES ON *.*"), "{grants}");
    assert!(std::path::Path::new(&mysql_socket()).exists(), "{}", mysql_socket());
}

#[test]
fn pg_server_is_reachable_and_configured() {
    assert_eq!(pg_admin("SELECT 1").trim(), "1");
    let row = pg_admin_db(
        "fbtest",
        "SELECT current_setting('max_connections'), current_setting('port'), \
         current_user, current_database(), (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)",
    );
    assert_eq!(row.trim(), format!("1200|{}|fb|fbtest|t", pg_port()), "settings");
    let socket = std::path::Path::new(&pg_socket_dir()).join(format!(".s.PGSQL.{}", pg_port()));
    assert!(socket.exists(), "{}", socket.display());
}

#[test]
fn urls_parse() {
    let u = parse_url(&mysql_url());
    assert_eq!((u.user.as_str(), u.password.as_str()), ("fb", "fbpass"));
    assert_eq!(u.host, "127.0.0.1");
    assert_eq!(u.port, Some(mysql_port()));
    assert_eq!(u.database, "fbtest");
    let p = parse_url(&pg_url());
    assert_eq!(p.port, Some(pg_port()));
    let v6 = parse_url("postgres://a%40b:p%3Aw@[::1]:5/d%20b?sslmode=disable");
    assert_eq!((v6.user.as_str(), v6.password.as_str()), ("a@b", "p:w"));
    assert_eq!((v6.host.as_str(), v6.port, v6.database.as_str()), ("::1", Some(5), "d b"));
}

#[test]
fn tmp_dir_is_writable() {
    let d = scratch_dir("harness");
    std::fs::write(d.join("x"), b"ok").unwrap();
    assert!(d.starts_with(tmp_dir()));
}

#[test]
fn run_helpers_report_status() {
    let out = run_ok(&mut std::process::Command::new("true"));
    assert!(out.status.success());
    run_fail(&mut std::process::Command::new("false"));
    assert!(std::path::Path::new(env!("CARGO_BIN_EXE_fairbench")).exists());
}
