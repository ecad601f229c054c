//! One test per bug fixed, named after what broke; each says what it was.

mod common;

use common::*;

// Every command stops when asked (Ctrl-C / SIGTERM), never hangs or spins.
mod interrupts {
    use super::*;
    use std::io::Read;
    use std::process::{Child, Command, ExitStatus, Stdio};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    /// A fairbench process in the background, its output collected as it comes.
    struct Bg {
        child: Child,
        out: Arc<Mutex<String>>,
        err: Arc<Mutex<String>>,
        readers: Vec<std::thread::JoinHandle<()>>,
    }

    fn collect(mut r: impl Read + Send + 'static, into: Arc<Mutex<String>>) -> std::thread::JoinHandle<()> {
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = r.read(&mut buf) {
                into.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        })
    }

    impl Bg {
        fn spawn(cmd: &mut Command) -> Bg {
            let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
            let (out, err) = (Arc::new(Mutex::new(String::new())), Arc::new(Mutex::new(String::new())));
            let readers = vec![collect(child.stdout.take().unwrap(), out.clone()), collect(child.stderr.take().unwrap(), err.clone())];
            Bg { child, out, err, readers }
        }

        fn show(&self) -> String {
            format!("--- stdout ---\n{}\n--- stderr ---\n{}", self.out.lock().unwrap(), self.err.lock().unwrap())
        }

        /// Waits until stdout contains `what`; panics after `limit` or if the process ends first.
        fn wait_for(&mut self, what: &str, limit: Duration) {
            let t0 = Instant::now();
            while !self.out.lock().unwrap().contains(what) {
                if self.child.try_wait().unwrap().is_some() || t0.elapsed() > limit {
                    let _ = self.child.kill();
                    panic!("no {what:?} within {limit:?} (or the process ended)\n{}", self.show());
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }

        /// Sends `sig`, then waits for the exit: (status, time it took, stdout, stderr).
        fn stop(mut self, sig: libc::c_int, limit: Duration) -> (ExitStatus, Duration, String, String) {
            // SAFETY: plain kill(2) on our own child's pid.
            assert_eq!(unsafe { libc::kill(self.child.id() as libc::pid_t, sig) }, 0, "kill failed");
            let t0 = Instant::now();
            let st = loop {
                if let Some(st) = self.child.try_wait().unwrap() {
                    break st;
                }
                if t0.elapsed() > limit * 10 {
                    let _ = self.child.kill();
                    panic!("still running {:?} after the signal\n{}", t0.elapsed(), self.show());
                }
                std::thread::sleep(Duration::from_millis(5));
            };
            let took = t0.elapsed();
            for r in self.readers.drain(..) {
                let _ = r.join();
            }
            let (o, e) = (self.out.lock().unwrap().clone(), self.err.lock().unwrap().clone());
            assert!(took <= limit, "took {took:?} to stop after the signal\n{}", self.show());
            (st, took, o, e)
        }
    }

    fn tmp(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(&format!("fb-reg-{name}-")).tempdir().expect("cannot create a temp dir")
    }

    fn in_dir(dir: &tempfile::TempDir) -> Command {
        let mut c = fairbench();
        c.current_dir(dir.path());
        c
    }

    /// The steps every engine's interrupted-prepare test takes. `query`
    /// runs SQL on the target and gives its first row's first value.
    fn interrupted_prepare_is_resumed(dir: &tempfile::TempDir, target: &str, prefix: &str, query: &dyn Fn(&str) -> String) {
        let opts = ["oltp_read_write", "--target", target, "--table-name", prefix, "--tables", "3", "--table-size", "100000", "--threads", "2"];
        let mut bg = Bg::spawn(in_dir(dir).arg("prepare").args(opts));
        // The first table is in and indexed; the others are still loading.
        bg.wait_for("Creating a secondary index on", Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(300));
        let (st, _, _, err) = bg.stop(libc::SIGINT, Duration::from_secs(2));
        assert_eq!(st.code(), Some(130), "exit status after SIGINT: {st}\n{err}");
        let line = err.lines().find(|l| l.contains("complete tables")).unwrap_or_else(|| panic!("no complete-tables line:\n{err}"));
        let complete: Vec<String> = (1..=3).map(|i| format!("{prefix}{i}")).filter(|t| line.contains(&format!("{t},")) || line.contains(&format!("{t}."))).collect();
        let fingerprint = |t: &str| query(&format!("SELECT COUNT(*) || ':' || SUM(k) || ':' || SUM(LENGTH(c)) || ':' || MAX(id) FROM {t}"));
        let before: Vec<String> = complete.iter().map(|t| fingerprint(t)).collect();

        let out = run_ok(in_dir(dir).arg("prepare").args(opts));
        assert!(stdout(&out).contains("exist already"), "{}", stdout(&out));
        for i in 1..=3 {
            let t = format!("{prefix}{i}");
            assert_eq!(query(&format!("SELECT COUNT(DISTINCT id) || ':' || COUNT(*) || ':' || MIN(id) || ':' || MAX(id) FROM {t}")), "100000:100000:1:100000", "rows of {t}");
        }
        for (t, b) in complete.iter().zip(&before) {
            assert_eq!(&fingerprint(t), b, "{t} was complete, yet its rows changed");
        }
        run_ok(in_dir(dir).args(["run", "--no-prepare", "--no-save", "--time", "1"]).args(opts));
    }

    /// `prepare` went on loading to the end after Ctrl-C and exited 0; a
    /// prepare on tables already there failed instead of finishing them.
    #[test]
    fn prepare_ignored_sigint_and_could_not_resume_on_sqlite() {
        let dir = tmp("sigint-prepare");
        let file = dir.path().join("big.db");
        let target = format!("sqlite:{}", file.display());
        let query = |sql: &str| -> String {
            let c = rusqlite::Connection::open(&file).unwrap();
            c.query_row(sql, [], |r| {
                Ok(match r.get_ref(0)? {
                    rusqlite::types::ValueRef::Integer(i) => i.to_string(),
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    _ => String::new(),
                })
            })
            .unwrap()
        };
        interrupted_prepare_is_resumed(&dir, &target, "sbtest", &query);
        assert_eq!(query("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'sbtest%_k_%'"), "3");
    }

    #[test]
    fn prepare_ignored_sigint_and_could_not_resume_on_mariadb() {
        let dir = tmp("sigint-prepare-my");
        let db = parse_url(&mysql_url()).database;
        let prefix = "reg_sigint_";
        let drop = || mysql_admin_db(&db, &(1..=3).map(|i| format!("DROP TABLE IF EXISTS {prefix}{i};")).collect::<String>());
        drop();
        let query = |sql: &str| mysql_admin_db(&db, &to_concat(sql)).trim().to_string();
        interrupted_prepare_is_resumed(&dir, &mysql_url(), prefix, &query);
        let idx = mysql_admin_db(&db, &format!("SELECT COUNT(DISTINCT table_name) FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name LIKE '{prefix}%' AND index_name LIKE 'k\\_%'"));
        assert_eq!(idx.trim(), "3", "secondary indexes");
        drop();
    }

    /// `a || ':' || b` as MySQL's CONCAT_WS(':', a, b).
    fn to_concat(sql: &str) -> String {
        let (head, rest) = sql.split_once(" FROM ").unwrap();
        let cols = head.trim_start_matches("SELECT ").split(" || ':' || ").collect::<Vec<_>>().join(", ");
        format!("SELECT CONCAT_WS(':', {cols}) FROM {rest}")
    }

    #[test]
    fn prepare_ignored_sigint_and_could_not_resume_on_postgresql() {
        let dir = tmp("sigint-prepare-pg");
        let db = parse_url(&pg_url()).database;
        let prefix = "reg_sigint_";
        let drop = || pg_admin_db(&db, &(1..=3).map(|i| format!("DROP TABLE IF EXISTS {prefix}{i};")).collect::<String>());
        drop();
        let query = |sql: &str| pg_admin_db(&db, sql).trim().to_string();
        interrupted_prepare_is_resumed(&dir, &pg_url(), prefix, &query);
        let idx = pg_admin_db(&db, &format!("SELECT COUNT(*) FROM pg_indexes WHERE tablename LIKE '{prefix}%' AND indexname LIKE '%\\_k\\_%'"));
        assert_eq!(idx.trim(), "3", "secondary indexes");
        drop();
    }

    /// `--rate 1000000000 --time 1` never ended: the arrival generator
    /// never awaited when behind, so the worker's ticker never ran.
    #[test]
    fn absurd_rate_never_ended_and_ignored_sigterm() {
        let dir = tmp("absurd-rate");
        let target = format!("sqlite:{}", dir.path().join("p.db").display());
        let opts = ["oltp_point_select", "--target", &target, "--table-size", "1000", "--rate", "1000000000", "--no-save"];
        run_ok(in_dir(&dir).args(["prepare", "oltp_point_select", "--target", &target, "--table-size", "1000"]));
        let t0 = Instant::now();
        let out = run_within(in_dir(&dir).arg("run").args(opts).args(["--time", "1"]), Duration::from_secs(60));
        assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
        assert!(t0.elapsed() < Duration::from_secs(5), "a 1 s run took {:?}", t0.elapsed());
        assert!(stdout(&out).contains("arrivals dropped (queue full)"), "{}", stdout(&out));

        let mut bg = Bg::spawn(in_dir(&dir).arg("run").args(opts).args(["--time", "60", "--report-interval", "1"]));
        bg.wait_for("[ 1s ]", Duration::from_secs(30));
        let (st, _, out, _) = bg.stop(libc::SIGTERM, Duration::from_secs(2));
        assert_eq!(st.code(), Some(130), "exit status after SIGTERM: {st}\n{out}");
        assert!(out.contains("SQL statistics"), "no summary after SIGTERM:\n{out}");
    }

    /// Ctrl-C during a sweep's `--pause` waited the pause out, then exited 0.
    #[test]
    fn sweep_pause_ignored_sigint_and_exited_0() {
        let dir = tmp("sweep-pause");
        let target = format!("sqlite:{}", dir.path().join("p.db").display());
        run_ok(in_dir(&dir).args(["prepare", "oltp_point_select", "--target", &target, "--table-size", "1000"]));
        let mut bg = Bg::spawn(in_dir(&dir).args(["run", "oltp_point_select", "--target", &target, "--table-size", "1000", "--no-save", "--threads", "1,2", "--pause", "60", "--time", "1"]));
        bg.wait_for("Threads fairness", Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(300));
        let (st, _, out, _) = bg.stop(libc::SIGINT, Duration::from_secs(2));
        assert_eq!(st.code(), Some(130), "exit status after SIGINT: {st}\n{out}");
        assert_eq!(out.matches("Threads fairness").count(), 1, "the second level ran:\n{out}");
    }

    /// A run over 99999 tables on an empty SQLite file spun for minutes
    /// before its first line (statements de-duplicated by a scan per add,
    /// tables probed one by one) and ignored SIGTERM meanwhile.
    #[test]
    fn many_tables_on_an_empty_file_spun_for_minutes() {
        let dir = tmp("many-tables");
        let target = format!("sqlite:{}", dir.path().join("empty.db").display());
        let t0 = Instant::now();
        let out = run_within(in_dir(&dir).args(["run", "OLTP_RW-1Kx99999tab", "--time", "1", "--no-prepare", "--no-save", "--target", &target]), Duration::from_secs(60));
        let took = t0.elapsed();
        assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
        assert!(took < Duration::from_secs(3), "the answer took {took:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "one line expected:\n{err}");
        assert!(err.contains("tables do not exist") && err.contains("fairbench prepare"), "{err}");

        // Without --no-prepare the run starts creating the 99999 tables: SIGTERM stops it.
        let mut bg = Bg::spawn(in_dir(&dir).args(["run", "OLTP_RW-1Kx99999tab", "--time", "1", "--no-save", "--target", &target]));
        bg.wait_for("Creating table 'sbtest100'", Duration::from_secs(30));
        let (st, _, out, _) = bg.stop(libc::SIGTERM, Duration::from_secs(2));
        assert_eq!(st.code(), Some(130), "exit status after SIGTERM: {st}\n{out}");
    }
}
