//! The connection a scenario's steps share, and the target's command-line
//! client for the imports that go through it.

use crate::db::{Conn, ConnConfig, Protocol, StatementSet, Target};
use crate::error::{Error, Result};
use crate::usage;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runs a scenario's statements on one target over fairbench's own
/// connection (the benchmarks' `Conn`), opened once; the server's
/// command-line client only for CSV imports.
pub struct Client {
    pub target: Target,
    rt: tokio::runtime::Runtime,
    /// None once dropped by Ctrl-C (a statement abandoned mid-flight).
    conn: Option<Conn>,
    /// The CLI, found on first use: a scenario without imports needs none.
    cli: Option<PathBuf>,
}

pub(crate) fn find_client(protocol: Protocol) -> Result<PathBuf> {
    let names: &[&str] = match protocol {
        Protocol::Mysql => &["mariadb", "mysql"],
        Protocol::Postgres => &["psql"],
        Protocol::Sqlite => return Err(usage!("scenarios run on MySQL-family servers and PostgreSQL, not SQLite")),
    };
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    if protocol == Protocol::Postgres {
        dirs.extend(crate::server::pg_bindir());
    }
    for n in names {
        for d in &dirs {
            if d.join(n).is_file() {
                return Ok(d.join(n));
            }
        }
    }
    Err(crate::server::missing(names[0], if protocol == Protocol::Postgres { "postgresql-client" } else { "mariadb-client" }))
}

/// A statement's result, or the server's error as one line.
pub(crate) type Outcome<T = String> = std::result::Result<T, String>;

/// Resolves once Ctrl-C was pressed: raced against every database call so
/// that a statement in flight is abandoned within the polling period.
pub(crate) async fn interrupt() {
    while !crate::model::interrupted() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A row as the `mariadb` client's batch mode prints it: values as the
/// server sent them as text, tab-separated, NULL as `NULL`; the same on
/// both engines, so that checksums compare.
pub(crate) fn row_text(row: &[Option<String>]) -> String {
    row.iter().map(|v| v.as_deref().unwrap_or("NULL")).collect::<Vec<_>>().join("\t")
}

impl Client {
    /// Opens the connection the steps share (the target's engine decides
    /// which; SQLite is refused).
    pub fn connect(cfg: ConnConfig) -> Result<Client> {
        if cfg.target.protocol == Protocol::Sqlite {
            return Err(usage!("scenarios run on MySQL-family servers and PostgreSQL, not SQLite"));
        }
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Error::Io(format!("cannot start runtime: {e}")))?;
        let cfg = Arc::new(cfg);
        let opened = rt.block_on(async {
            tokio::select! {
                c = Conn::connect(cfg.clone(), Arc::new(StatementSet::default()), 0) => Some(c),
                () = interrupt() => None,
            }
        });
        let conn = match opened {
            None => return Err(Error::Interrupted),
            Some(Err(e)) => return Err(crate::db::connect_error(&cfg.target, &e)),
            Some(Ok(c)) => c,
        };
        Ok(Client { target: cfg.target.clone(), rt, conn: Some(conn), cli: None })
    }

    /// Runs `sql` on the connection, its rows as text lines. Ctrl-C drops
    /// the connection (the server rolls back what was not committed).
    pub fn rows(&mut self, sql: &str) -> Result<Outcome<Vec<String>>> {
        let Some(conn) = self.conn.as_mut() else { return Err(Error::Interrupted) };
        let done = self.rt.block_on(async {
            tokio::select! {
                r = conn.query_strings(sql) => Some(r),
                () = interrupt() => None,
            }
        });
        match done {
            Some(r) => Ok(r.map(|rows| rows.iter().map(|r| row_text(r)).collect()).map_err(|e| e.to_string())),
            None => {
                let _in_runtime = self.rt.enter();
                self.conn = None;
                Err(Error::Interrupted)
            }
        }
    }

    /// Runs `sql` on the connection, rows (if any) discarded.
    pub fn exec(&mut self, sql: &str) -> Result<Outcome<()>> {
        let Some(conn) = self.conn.as_mut() else { return Err(Error::Interrupted) };
        let done = self.rt.block_on(async {
            tokio::select! {
                r = conn.query(sql) => Some(r),
                () = interrupt() => None,
            }
        });
        match done {
            Some(r) => Ok(r.map(|_| ()).map_err(|e| e.to_string())),
            None => {
                let _in_runtime = self.rt.enter();
                self.conn = None;
                Err(Error::Interrupted)
            }
        }
    }

    pub(crate) fn command(&mut self) -> Result<Command> {
        let bin = match &self.cli {
            Some(b) => b.clone(),
            None => {
                let b = find_client(self.target.protocol)?;
                self.cli = Some(b.clone());
                b
            }
        };
        let t = &self.target;
        // The target says everything: the user's PG*/MYSQL_* variables were
        // read into it already, and must not override it here.
        let mut c = crate::server::environ::command(&bin);
        let (host, port) = t.hosts.first().cloned().unwrap_or(("127.0.0.1".into(), 0));
        match t.protocol {
            Protocol::Mysql => {
                c.args(["--no-defaults", "-N", "-B", "--local-infile=1"]);
                match &t.socket {
                    Some(s) => c.arg("--protocol=SOCKET").arg(format!("--socket={s}")),
                    None => c.arg("--protocol=TCP").arg(format!("-h{host}")).arg(format!("-P{port}")),
                };
                c.arg(format!("-u{}", t.user)).arg(format!("-D{}", t.database));
                c.env("MYSQL_PWD", t.password.clone().unwrap_or_default());
            }
            _ => {
                c.args(["-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1"]);
                c.arg("-h").arg(t.socket.clone().unwrap_or(host)).arg("-p").arg(port.to_string()).arg("-U").arg(&t.user).arg("-d").arg(&t.database);
                c.env("PGPASSWORD", t.password.clone().unwrap_or_default());
                c.env("PGSSLMODE", t.ssl_mode.libpq_name());
                if let Some(ca) = &t.ssl_ca {
                    c.env("PGSSLROOTCERT", ca);
                }
                if let Some(o) = &t.options {
                    c.env("PGOPTIONS", o);
                }
            }
        }
        c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).current_dir("/");
        Ok(c)
    }

    /// Runs `script` through the server's command-line client (imports:
    /// fairbench's bulk paths load generated rows, not a CSV file).
    /// Ctrl-C ends the client.
    pub fn run_cli(&mut self, script: &str) -> Result<Outcome> {
        let mut cmd = self.command()?;
        let mut child = cmd.spawn().map_err(|e| Error::Io(format!("{:?}: {e}", cmd.get_program())))?;
        let mut stdin = child.stdin.take().expect("piped");
        let script = script.to_string();
        let feeder = std::thread::spawn(move || {
            let _ = stdin.write_all(script.as_bytes());
        });
        let out = std::thread::spawn({
            let mut o = child.stdout.take().expect("piped");
            move || {
                let mut v = Vec::new();
                let _ = std::io::Read::read_to_end(&mut o, &mut v);
                v
            }
        });
        let err = std::thread::spawn({
            let mut o = child.stderr.take().expect("piped");
            move || {
                let mut v = Vec::new();
                let _ = std::io::Read::read_to_end(&mut o, &mut v);
                v
            }
        });
        let status = loop {
            if let Some(st) = child.try_wait().map_err(|e| Error::Io(e.to_string()))? {
                break st;
            }
            if crate::model::interrupted() {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::Interrupted);
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let _ = feeder.join();
        let out = String::from_utf8_lossy(&out.join().unwrap_or_default()).to_string();
        let err = String::from_utf8_lossy(&err.join().unwrap_or_default()).to_string();
        if status.success() {
            Ok(Ok(out))
        } else {
            let line = err.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
            Ok(Err(if line.is_empty() { format!("client exited with {status}") } else { line }))
        }
    }

    pub(crate) fn is_pg(&self) -> bool {
        self.target.protocol == Protocol::Postgres
    }

    /// The fastest of three `SELECT 1` through the command-line client:
    /// what every import's time carries.
    pub fn cli_overhead(&mut self) -> Result<f64> {
        let mut best = f64::MAX;
        for _ in 0..3 {
            let t = Instant::now();
            if let Err(e) = self.run_cli("SELECT 1;")? {
                return Err(Error::Connect(format!("{}: {e}", self.target)));
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        Ok(best)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let Some(c) = self.conn.take() else { return };
        if crate::model::interrupted() {
            // Ctrl-C: the connection is dropped, not closed politely, so the exit stays prompt.
            let _in_runtime = self.rt.enter();
            drop(c);
            return;
        }
        // A polite close, bounded: a server that went away must not hold the exit.
        self.rt.block_on(async {
            let _ = tokio::time::timeout(Duration::from_secs(1), c.close()).await;
        });
    }
}
