//! `fairbench server start tidb`: a throwaway tidb-server with its embedded
//! store (unistore), in memory or on disk. The tests need the tidb-server that
//! `bash scripts/build-tidb.sh` builds (scripts/test.sh runs it first); without
//! it they fail, with the start's one-line error saying how to build it.

mod common;

use common::{assert_one_line_error, fairbench, hostile_env, run_fail, run_ok, stdout, test_ca, url_saying_everything};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A directory of one test (its own sandbox registry, its own --dir), removed
/// at the end. Each test's registry lets it see exactly what it left behind.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("fairbench-tidb-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("root")).unwrap();
        Scratch(d)
    }

    fn root(&self) -> PathBuf {
        self.0.join("root")
    }

    /// `fairbench` with this test's registry.
    fn fairbench(&self) -> Command {
        let mut c = fairbench();
        c.env("FAIRBENCH_SANDBOX_ROOT", self.root());
        c
    }

    /// What is left in the registry.
    fn registered(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.root()).unwrap().flatten().map(|e| e.path()).collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // Also when the test failed half-way: nothing of it goes on running.
        let _ = self.fairbench().args(["server", "stop", "--all"]).output();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A started TiDB sandbox as `server start --env` printed it.
struct Started {
    name: String,
    dir: PathBuf,
    url: String,
    port: u16,
    status_port: u16,
}

fn field(out: &Output, key: &str) -> Option<String> {
    stdout(out).lines().find_map(|l| l.strip_prefix(&format!("export {key}=")).map(|v| v.trim_matches('\'').to_string()))
}

/// Started with wrong client variables in the environment (`HOSTILE_ENV`):
/// the sandbox's programs must not see them.
fn start(s: &Scratch, extra: &[&str]) -> Started {
    let out = run_ok(hostile_env(&mut s.fairbench()).args(["server", "start", "tidb", "--env"]).args(extra));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let name = err.lines().find_map(|l| l.split_once(" started: ").map(|(n, _)| n.to_string())).unwrap_or_else(|| panic!("no name in {err}"));
    let need = |k: &str| field(&out, k).unwrap_or_else(|| panic!("no {k} in\n{}", stdout(&out)));
    Started {
        name,
        dir: PathBuf::from(need("FAIRBENCH_SANDBOX_DIR")),
        url: need("FAIRBENCH_SANDBOX_URL"),
        port: need("FAIRBENCH_SANDBOX_PORT").parse().unwrap(),
        status_port: need("FAIRBENCH_SANDBOX_STATUS_PORT").parse().unwrap(),
    }
}

/// SQL through the MariaDB client over TCP (TiDB speaks MySQL's protocol):
/// Ok(rows) or Err(the client's error).
fn sql_as(port: u16, user: &str, password: &str, extra: &[&str], sql: &str) -> Result<String, String> {
    let o = Command::new("mariadb")
        .args(["--no-defaults", "--protocol=TCP", "-h127.0.0.1", "-N", "-B", "--connect-timeout=5"])
        .arg(format!("-P{port}"))
        .arg(format!("-u{user}"))
        .args(extra)
        .env("MYSQL_PWD", password)
        .arg("-e")
        .arg(sql)
        .output()
        .expect("the mariadb client");
    if o.status.success() {
        Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).trim().to_string())
    }
}

fn sql(sb: &Started, q: &str) -> String {
    sql_as(sb.port, "fairbench", "fairbench", &[], q).unwrap_or_else(|e| panic!("{q}: {e}"))
}

/// Processes whose command line names `dir` (the sandbox's server among them).
fn processes_in(dir: &Path) -> Vec<String> {
    let d = dir.display().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.chars().all(|c| c.is_ascii_digit())))
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok().map(|c| (e.file_name(), String::from_utf8_lossy(&c).replace('\0', " "))))
        .filter(|(_, c)| c.contains(&d) && c.contains("tidb-server"))
        .map(|(pid, c)| format!("{}: {c}", pid.to_string_lossy()))
        .collect()
}

/// unistore's temp dirs under the system temp dir (an in-memory store must not leave one).
fn unistore_temp_dirs() -> Vec<PathBuf> {
    std::fs::read_dir(std::env::temp_dir()).unwrap().flatten().map(|e| e.path()).filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("tidb-unistore-temp"))).collect()
}

/// GET `path` from the status API; the whole response.
fn http_get(port: u16, path: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| panic!("status port {port}: {e}"));
    s.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    let mut r = String::new();
    let _ = s.read_to_string(&mut r);
    r
}

#[test]
fn an_in_memory_sandbox_starts_answers_is_listed_and_stops_leaving_nothing() {
    let s = Scratch::new("memory");
    let temp_before = unistore_temp_dirs();
    let sb = start(&s, &[]);
    assert_eq!(sb.name, format!("tidb-{}", sb.port));
    assert_eq!(sb.url, format!("mysql://fairbench:fairbench@127.0.0.1:{}/fairbench", sb.port));
    assert_ne!(sb.status_port, sb.port);

    // The account and database, over TCP; the server is TiDB.
    assert!(sql(&sb, "SELECT VERSION()").contains("TiDB"), "{}", sql(&sb, "SELECT VERSION()"));
    sql(&sb, "CREATE TABLE fairbench.t (id INT PRIMARY KEY, v VARCHAR(10)); INSERT INTO fairbench.t VALUES (1, 'a'), (2, 'b')");
    assert_eq!(sql(&sb, "SELECT COUNT(*) FROM fairbench.t"), "2");
    // Its root is no open door.
    assert!(sql_as(sb.port, "root", "", &[], "SELECT 1").is_err(), "root connects without a password");
    // In memory: no data directory, and unistore's temp dir inside the sandbox's.
    assert_eq!(sql(&sb, "SELECT @@datadir"), "");
    assert!(!sb.dir.join("data").exists());
    let tmp: Vec<_> = std::fs::read_dir(sb.dir.join("tmp")).unwrap().flatten().map(|e| e.file_name().to_string_lossy().to_string()).collect();
    assert!(tmp.iter().any(|n| n.starts_with("tidb-unistore-temp")), "no store in {}/tmp: {tmp:?}", sb.dir.display());
    assert_eq!(sql(&sb, "SELECT @@socket"), sb.dir.join("tidb.sock").display().to_string());
    // The status API on its own port.
    let status = http_get(sb.status_port, "/status");
    assert!(status.contains("\"version\""), "{status}");

    let list = stdout(&run_ok(s.fairbench().args(["server", "list"])));
    let line = list.lines().find(|l| l.starts_with(&sb.name)).unwrap_or_else(|| panic!("{} not listed:\n{list}", sb.name));
    assert!(line.contains("running") && line.contains("packaged") && line.contains(&sb.port.to_string()), "{line}");
    let json: serde_json::Value = serde_json::from_str(&stdout(&run_ok(s.fairbench().args(["server", "list", "--json"])))).unwrap();
    assert_eq!(json[0]["engine"], "tidb");
    assert_eq!(json[0]["status_port"], sb.status_port);
    // A build of a commit names it, not the placeholder its release version says.
    let version = json[0]["version"].as_str().unwrap();
    assert!(!version.is_empty() && !version.contains("placeholder"), "{version}");
    let env = stdout(&run_ok(s.fairbench().args(["server", "env", &sb.name])));
    assert!(env.contains(&format!("export FAIRBENCH_SANDBOX_STATUS_PORT={}\n", sb.status_port)), "{env}");

    assert!(!processes_in(&sb.dir).is_empty(), "no tidb-server names {}", sb.dir.display());
    run_ok(s.fairbench().args(["server", "stop", &sb.name]));
    assert!(!sb.dir.exists(), "stop left {} behind", sb.dir.display());
    assert_eq!(processes_in(&sb.dir), Vec::<String>::new());
    assert_eq!(s.registered(), Vec::<PathBuf>::new());
    let made: Vec<_> = unistore_temp_dirs().into_iter().filter(|d| !temp_before.contains(d)).collect();
    assert_eq!(made, Vec::<PathBuf>::new(), "temp dirs left by the in-memory store");
}

#[test]
fn fairbench_prepares_and_runs_on_it() {
    let s = Scratch::new("run");
    let sb = start(&s, &[]);
    let store = s.0.join("r.sqlite");
    // The wrong client variables are not read: the URL says everything.
    let url = url_saying_everything(&sb.url);
    run_ok(hostile_env(&mut fairbench()).args(["prepare", "oltp_point_select", "--tables", "1", "--table-size", "1000", "--target", &url]));
    assert_eq!(sql(&sb, "SELECT COUNT(*) FROM fairbench.sbtest1"), "1000");
    let out = run_ok(
        hostile_env(&mut fairbench()).args(["run", "oltp_point_select", "--tables", "1", "--table-size", "1000", "--threads", "2", "--time", "2", "--target", &url]).arg("--results").arg(&store),
    );
    assert!(stdout(&out).contains("transactions:"), "{}", stdout(&out));
}

#[test]
fn the_durable_profile_keeps_the_store_on_disk_in_data() {
    let s = Scratch::new("durable");
    // A directory that exists: stop removes only what the sandbox put there.
    let dir = s.0.join("srv");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mine.txt"), "kept").unwrap();
    let sb = start(&s, &["--profile", "durable", "--dir", dir.to_str().unwrap()]);
    assert_eq!(sb.dir, dir);
    assert_eq!(sql(&sb, "SELECT @@datadir"), dir.join("data").display().to_string());
    sql(&sb, "CREATE TABLE fairbench.t (id INT PRIMARY KEY); INSERT INTO fairbench.t VALUES (1)");
    let files = std::fs::read_dir(dir.join("data")).map(|d| d.count()).unwrap_or(0);
    assert!(files > 0, "nothing in {}/data", dir.display());
    // Nothing of the store under tmp/: unistore is not in its volatile mode.
    let tmp: Vec<_> = std::fs::read_dir(dir.join("tmp")).into_iter().flatten().flatten().map(|e| e.file_name()).filter(|n| n.to_string_lossy().starts_with("tidb-unistore-temp")).collect();
    assert!(tmp.is_empty(), "{tmp:?}");
    run_ok(s.fairbench().args(["server", "stop", dir.to_str().unwrap()]));
    assert_eq!(processes_in(&dir), Vec::<String>::new());
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().to_string()).collect();
    assert_eq!(left, ["mine.txt"]);
    assert_eq!(s.registered(), Vec::<PathBuf>::new());
}

#[test]
fn set_gives_system_variables_and_an_unknown_one_is_one_line_with_exit_code_2() {
    let s = Scratch::new("set");
    let sb = start(&s, &["--set", "tidb_mem_quota_query=536870912", "--set", "tidb_txn_mode=optimistic"]);
    assert_eq!(sql(&sb, "SELECT @@global.tidb_mem_quota_query, @@global.tidb_txn_mode"), "536870912\toptimistic");
    run_ok(s.fairbench().args(["server", "stop", &sb.name]));

    let out = run_fail(s.fairbench().args(["server", "start", "tidb", "--set", "no_such_variable=1"]));
    assert_eq!(out.status.code(), Some(2));
    assert_one_line_error(&out, &["no_such_variable"]);
    assert_eq!(s.registered(), Vec::<PathBuf>::new(), "a refused start stays registered");
    assert_eq!(processes_in(&s.root()), Vec::<String>::new());
}

#[test]
fn tls_only_user_connects_only_over_tls() {
    let s = Scratch::new("tls");
    let tls = Path::new(&test_ca()).parent().unwrap().to_path_buf();
    let sb = start(&s, &["--tls-dir", tls.to_str().unwrap(), "--tls-only-user", "fbssl"]);
    let ca = format!("--ssl-ca={}", test_ca());
    assert_eq!(sql_as(sb.port, "fbssl", "fairbench", &["--ssl", &ca, "--ssl-verify-server-cert"], "SELECT 1").unwrap(), "1");
    let plain = sql_as(sb.port, "fbssl", "fairbench", &["--skip-ssl"], "SELECT 1");
    assert!(plain.is_err(), "fbssl connected without TLS");
    // The main account may use TLS too.
    assert!(sql_as(sb.port, "fairbench", "fairbench", &["--ssl", &ca], "SHOW STATUS LIKE 'Ssl_cipher'").unwrap().contains("Ssl_cipher\t"));
}

#[test]
fn a_missing_binary_is_one_line_with_exit_code_2_and_nothing_registered() {
    let s = Scratch::new("missing");
    let out = run_fail(s.fairbench().args(["server", "start", "tidb"]).env("FAIRBENCH_TIDB", "/nonexistent/tidb-server"));
    assert_eq!(out.status.code(), Some(2));
    assert_one_line_error(&out, &["/nonexistent/tidb-server", "bash scripts/build-tidb.sh"]);
    // Not on PATH nor in the cache either.
    let empty = s.0.join("empty-cache");
    std::fs::create_dir_all(&empty).unwrap();
    let out = run_fail(s.fairbench().args(["server", "start", "tidb"]).env_remove("FAIRBENCH_TIDB").env("PATH", "/usr/bin:/bin").env("XDG_CACHE_HOME", &empty));
    assert_eq!(out.status.code(), Some(2));
    assert_one_line_error(&out, &["tidb-server not found", "bash scripts/build-tidb.sh"]);
    assert_eq!(s.registered(), Vec::<PathBuf>::new());
}

/// The tidb-server the test command built (the one `server start tidb` finds).
fn built_tidb_server() -> PathBuf {
    if let Some(p) = std::env::var_os("FAIRBENCH_TIDB").filter(|v| !v.is_empty()) {
        return PathBuf::from(p);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"));
    let p = cache.join("fairbench/bin/tidb-server");
    assert!(p.is_file(), "no tidb-server at {}: bash scripts/build-tidb.sh builds it", p.display());
    p
}

/// A build of the user's choice: `--basedir` the directory of a tidb-server, `--version V` a
/// commit scripts/build-tidb.sh built into the cache (here the same binary, linked where the
/// script puts a version); each starts and says where it came from, and a version not built
/// names the command that builds it.
#[test]
fn a_tidb_build_of_the_users_choice_starts_and_says_where_it_came_from() {
    let s = Scratch::new("builds");
    let server = built_tidb_server();
    let dir = s.0.join("mybuild");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(&server, dir.join("tidb-server")).unwrap();
    let out = run_ok(s.fairbench().args(["server", "start", "tidb", "--basedir"]).arg(&dir));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains(&format!("build: basedir {}", dir.display())), "{err}");
    let name = err.lines().find_map(|l| l.split_once(" started: ").map(|(n, _)| n.to_string())).unwrap();
    run_ok(s.fairbench().args(["server", "stop", &name]));

    let version = "20990101000000-abcdefabcdef";
    let cache = s.0.join("cache");
    let built = cache.join(format!("fairbench/bin/tidb-{version}"));
    std::fs::create_dir_all(&built).unwrap();
    std::os::unix::fs::symlink(&server, built.join("tidb-server")).unwrap();
    let out = run_ok(s.fairbench().args(["server", "start", "tidb", "--version", version]).env("XDG_CACHE_HOME", &cache).env_remove("FAIRBENCH_TIDB"));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains(&format!("build: scripts/build-tidb.sh --version {version}")), "{err}");
    run_ok(s.fairbench().args(["server", "stop", "--all"]));

    let out = run_fail(s.fairbench().args(["server", "start", "tidb", "--version", "20990101000000-000000000000"]).env("XDG_CACHE_HOME", &cache));
    assert_eq!(out.status.code(), Some(2));
    assert_one_line_error(&out, &["TiDB 20990101000000-000000000000 is not built here", "bash scripts/build-tidb.sh --version 20990101000000-000000000000"]);
    assert_eq!(s.registered(), Vec::<PathBuf>::new());
}
