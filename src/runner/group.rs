//! Many generator processes, one start: `--group NAME --group-size N`.
//!
//! Each process registers in a small table of the target database itself
//! (no extra service: every host that reaches the database can take part),
//! waits until N members of the group are there, and all start at one
//! instant the group's rows decide: the latest registration plus a lead.
//! Every member computes the same instant from the same rows, so no member
//! has to write it. Times are on the database's clock: each member measures
//! its offset to it with a few round trips of the server's clock and
//! sleeps until the start on its own clock corrected by that offset.

use crate::db::{Conn, ConnConfig, Engine, StatementSet};
use crate::error::{Error, Result};
use crate::model::{interrupted, GroupMember as Membership, StartGate};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The barrier table; `cleanup` drops it.
pub const TABLE: &str = "fairbench_group";

/// Time between a group's last registration and its start: every member
/// polls far more often than this, so all see the full group before it.
const LEAD_MS: i64 = 1000;
const POLL: Duration = Duration::from_millis(20);
/// Round trips to the server's clock; the one with the shortest trip wins.
const CLOCK_PROBES: usize = 7;

#[derive(Debug)]
pub struct Group {
    pub name: String,
    pub size: usize,
    pub timeout: Duration,
    cfg: Arc<ConnConfig>,
    token: String,
    host: String,
    last: Mutex<Option<Membership>>,
}

impl Group {
    /// `member_name`: the `--group-member` (already checked to be a plain
    /// word); without one the member is named after its arrival order.
    pub fn new(name: &str, member_name: Option<&str>, size: usize, timeout: Duration, cfg: Arc<ConnConfig>) -> Group {
        let host = crate::env::hostname();
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        // The name leads the token, so every member reads the others' names
        // from the rows; the rest keeps two processes' rows apart.
        let token = format!("{}@{}:{}:{nanos}", member_name.map(safe).unwrap_or_default(), safe(&host), std::process::id());
        Group { name: name.to_string(), size, timeout, cfg, token, host, last: Mutex::new(None) }
    }

    /// The membership of the level that started last.
    pub fn membership(&self) -> Option<Membership> {
        self.last.lock().unwrap().clone()
    }

    async fn barrier(&self, round: usize) -> Result<Membership> {
        let mut conn = Conn::connect(self.cfg.clone(), Arc::new(StatementSet::default()), 0).await.map_err(|e| crate::db::connect_error(&self.cfg.target, &e))?;
        let r = self.barrier_on(&mut conn, round).await;
        conn.close().await;
        r
    }

    async fn barrier_on(&self, conn: &mut Conn, round: usize) -> Result<Membership> {
        let engine = conn.engine();
        let sql_err = |e: crate::db::DbError| Error::Sql(format!("group barrier table {TABLE}: {e}"));
        // PostgreSQL's CREATE TABLE IF NOT EXISTS is not safe against itself:
        // members creating the table at once may fail on a catalog unique
        // index (23505) while another's creation commits. Once that one has
        // committed, the statement finds the table and passes.
        let mut tries = 0;
        while let Err(e) = conn.query(&create_sql(engine)).await {
            tries += 1;
            if tries == 5 {
                return Err(sql_err(e));
            }
            tokio::time::sleep(std::time::Duration::from_millis(50 * tries)).await;
        }
        let offset = clock_offset(conn).await?;
        let joined = (now_ms() + offset).round() as i64;
        conn.query(&format!("DELETE FROM {TABLE} WHERE grp = '{}' AND member = '{}'", self.name, self.token)).await.map_err(sql_err)?;
        conn.query(&format!("INSERT INTO {TABLE} (grp, round, member, host, joined_ms, offset_ms) VALUES ('{}', {round}, '{}', '{}', {joined}, {offset})", self.name, self.token, safe(&self.host)))
            .await
            .map_err(sql_err)?;
        // Rows of a group of the same name that ran earlier are older than
        // one timeout before this member: a live member joined after that.
        let since = joined - self.timeout.as_millis() as i64;
        let select = format!("SELECT member, joined_ms FROM {TABLE} WHERE grp = '{}' AND round = {round} AND joined_ms >= {since} ORDER BY joined_ms, member", self.name);
        let deadline = std::time::Instant::now() + self.timeout;
        loop {
            if interrupted() {
                self.leave_on(conn, round).await;
                return Err(Error::Interrupted);
            }
            let rows = conn.query_strings(&select).await.map_err(sql_err)?;
            let members: Vec<(String, i64)> = rows.iter().filter_map(|r| Some((r.first()?.clone()?, r.get(1)?.as_deref()?.parse::<f64>().ok()? as i64))).take(self.size).collect();
            if members.len() >= self.size {
                let start_ms = members.iter().map(|m| m.1).max().unwrap_or(joined) + LEAD_MS;
                let member = members.iter().position(|m| m.0 == self.token).map(|i| i + 1).unwrap_or(self.size);
                let names = member_names(members.iter().map(|m| m.0.as_str()));
                if let Some(dup) = first_duplicate(&names) {
                    self.leave_on(conn, round).await;
                    return Err(Error::Group(format!("group {}: two members are named {dup}: give each member its own --group-member", self.name)));
                }
                let name = names[member - 1].clone();
                return Ok(Membership { group: self.name.clone(), member, name, names, size: self.size, host: self.host.clone(), clock_offset_ms: offset, start_ms });
            }
            if std::time::Instant::now() >= deadline {
                self.leave_on(conn, round).await;
                return Err(Error::Group(format!(
                    "group {}: {} of {} members arrived within --group-timeout={}s; {}",
                    self.name,
                    members.len(),
                    self.size,
                    self.timeout.as_secs_f64(),
                    missing_hint()
                )));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    async fn leave_on(&self, conn: &mut Conn, round: usize) {
        let _ = conn.query(&format!("DELETE FROM {TABLE} WHERE grp = '{}' AND round = {round} AND member = '{}'", self.name, self.token)).await;
    }

    /// Takes this member's row away once its level is over, so a group of
    /// the same name started later does not count it.
    pub fn leave(&self, round: usize) {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
        rt.block_on(async {
            if let Ok(mut conn) = Conn::connect(self.cfg.clone(), Arc::new(StatementSet::default()), 0).await {
                self.leave_on(&mut conn, round).await;
                conn.close().await;
            }
        });
    }
}

impl StartGate for Group {
    fn member(&self) -> Option<Membership> {
        self.membership()
    }

    fn wait(&self, round: usize) -> Result<()> {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Error::Io(format!("cannot start runtime: {e}")))?;
        let m = rt.block_on(self.barrier(round))?;
        let local_start = m.start_ms as f64 - m.clock_offset_ms;
        let late = now_ms() - local_start;
        if late > 0.0 {
            eprintln!("fairbench: group {}: member {} saw the full group {late:.0} ms after the start; starting now", self.name, m.name);
        }
        *self.last.lock().unwrap() = Some(m);
        // Sleep in short steps, so Ctrl-C ends the wait at once.
        loop {
            if interrupted() {
                return Err(Error::Interrupted);
            }
            let left = local_start - now_ms();
            if left <= 0.0 {
                let m = self.membership().expect("set above");
                let started = now_ms() + m.clock_offset_ms;
                eprintln!(
                    "fairbench: group {}: member {} of {} on {} (clock offset {:+.3} ms) started at {:.3} ms (database clock), {:.3} ms after the group's start",
                    m.group,
                    m.name,
                    m.size,
                    m.host,
                    m.clock_offset_ms,
                    started,
                    started - m.start_ms as f64
                );
                return Ok(());
            }
            std::thread::sleep(Duration::from_secs_f64((left / 1000.0).min(0.02)));
        }
    }
}

/// `cleanup`: the barrier table goes with the workload's tables.
pub async fn drop_table(cfg: Arc<ConnConfig>) -> Result<()> {
    let mut conn = Conn::connect(cfg.clone(), Arc::new(StatementSet::default()), 0).await.map_err(|e| crate::db::connect_error(&cfg.target, &e))?;
    let r = conn.query(&format!("DROP TABLE IF EXISTS {TABLE}")).await.map(|_| ()).map_err(|e| Error::Sql(format!("dropping {TABLE}: {e}")));
    conn.close().await;
    r
}

/// The members' names from their tokens (in arrival order): the
/// `--group-member` a token leads with, or else the arrival position.
fn member_names<'a>(tokens: impl Iterator<Item = &'a str>) -> Vec<String> {
    tokens
        .enumerate()
        .map(|(i, t)| match t.split_once('@') {
            Some((name, _)) if !name.is_empty() => name.to_string(),
            _ => (i + 1).to_string(),
        })
        .collect()
}

fn first_duplicate(names: &[String]) -> Option<&str> {
    names.iter().enumerate().find(|(i, n)| names[..*i].contains(n)).map(|(_, n)| n.as_str())
}

fn now_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
}

/// What to do about members that did not come: in a Kubernetes pod they
/// are most often pods the cluster could not schedule.
fn missing_hint() -> &'static str {
    if std::env::var_os("KUBERNETES_SERVICE_HOST").is_some() {
        "see which pods are Pending and why with `kubectl get pods` and `kubectl describe pod` (the Job's parallelism must fit the cluster at once), or raise FAIRBENCH_GROUP_TIMEOUT"
    } else {
        "start the missing ones against the same database, or raise --group-timeout"
    }
}

/// Host names go into SQL text: keep the characters a host name has.
fn safe(s: &str) -> String {
    s.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')).take(100).collect()
}

fn create_sql(engine: &'static dyn Engine) -> String {
    let d = engine.dialect();
    let (text, float) = (d.text_up_to(200), d.double_type());
    format!("CREATE TABLE IF NOT EXISTS {TABLE} (grp {text} NOT NULL, round INTEGER NOT NULL, member {text} NOT NULL, host {text} NOT NULL, joined_ms BIGINT NOT NULL, offset_ms {float} NOT NULL, PRIMARY KEY (grp, round, member))")
}

/// The server's clock as ms since the Unix epoch.
fn server_now_sql(engine: &'static dyn Engine) -> &'static str {
    engine.dialect().clock_ms_query()
}

/// Database clock minus local clock (ms), from the round trip with the
/// shortest time: its midpoint is the best guess of when the server read it.
async fn clock_offset(conn: &mut Conn) -> Result<f64> {
    let sql = server_now_sql(conn.engine());
    let mut best: Option<(f64, f64)> = None;
    for _ in 0..CLOCK_PROBES {
        let t0 = now_ms();
        let rows = conn.query_strings(sql).await.map_err(|e| Error::Sql(format!("reading the server's clock: {e}")))?;
        let t1 = now_ms();
        let server: f64 = rows.first().and_then(|r| r.first()).and_then(|v| v.as_deref()).and_then(|v| v.parse().ok()).ok_or_else(|| Error::Sql("reading the server's clock: no value".into()))?;
        let rtt = t1 - t0;
        if best.map(|b| rtt < b.0).unwrap_or(true) {
            best = Some((rtt, server - (t0 + t1) / 2.0));
        }
    }
    Ok(best.map(|b| b.1).unwrap_or(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_named_by_their_group_member_or_arrival() {
        let names = member_names(["0@pod-a:7:1", "@host:8:2", "2@pod-c:9:3"].into_iter());
        assert_eq!(names, ["0", "2", "2"]);
        assert_eq!(first_duplicate(&names), Some("2"));
        assert_eq!(first_duplicate(&member_names(["@h:1:1", "@h:2:2"].into_iter())), None);
    }
}
