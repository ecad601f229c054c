//! Small Datum's pause after l.i2, before the query steps (its iq.sh's
//! `vac_pg` and `vac_my`): the tables' upkeep done and the dirty pages
//! written back, so that a query step does not pay for what the writes
//! before it left behind, and the server left to rest 60 s plus 1 s per
//! million rows loaded (at most 1200 s), counted from the pause's start.
//!
//! The upkeep of every table runs at once: VACUUM (ANALYZE, INDEX_CLEANUP
//! ON) on PostgreSQL, then a CHECKPOINT; ANALYZE TABLE on MariaDB/MySQL
//! while InnoDB's dirty page targets are held at 1% (put back afterwards,
//! Ctrl-C included); ANALYZE and a WAL checkpoint on SQLite. Small Datum's
//! RESET MASTER, which throws the binary logs away, is left out: that is
//! not a benchmark's to do to a server it was given.

use super::Shape;
use crate::db::{sql_error, Conn, ConnConfig};
use crate::error::{Error, Result};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Small Datum's rest: 60 s plus 1 s per million rows, at most 1200 s.
pub fn default_secs(rows: u64) -> f64 {
    (60.0 + rows as f64 / 1e6).min(1200.0)
}

/// Runs the pause; its figures (the upkeep's, the checkpoint's and its
/// whole seconds).
pub async fn settle(shape: &Shape, cfg: &Arc<ConnConfig>, rest: f64) -> Result<Vec<(String, String)>> {
    let start = Instant::now();
    let d = shape.dialect();
    eprintln!("Settling for {rest:.0} s after l.i2: the tables' upkeep and their pages written back, then rest, as Small Datum's scripts do (--settle off skips it)");
    let mut admin = Conn::admin(cfg).await?;
    let held = hold(&mut admin, d.write_back_settings()).await;
    // The server finishes a VACUUM or ANALYZE it started on its own after
    // Ctrl-C; it does the tables no harm.
    let r = crate::signal::unless_interrupted(work(shape, cfg, &mut admin, start, rest)).await;
    // Put back whatever the server was set to, however the pause ended.
    for (name, old) in held.iter().rev() {
        let sql = format!("SET GLOBAL {name} = {old}");
        if let Err(e) = admin.query(&sql).await {
            eprintln!("warning: could not put {name} back to {old} ({e}): set it by hand");
        }
    }
    admin.close().await;
    r
}

async fn work(shape: &Shape, cfg: &Arc<ConnConfig>, admin: &mut Conn, start: Instant, rest: f64) -> Result<Vec<(String, String)>> {
    let d = shape.dialect();
    let upkeep = futures_util::future::join_all(shape.tables.iter().map(|t| async move {
        let mut conn = Conn::admin(cfg).await?;
        let sql = d.upkeep(t);
        conn.query(&sql).await.map_err(sql_error(&sql))?;
        conn.close().await;
        Ok::<(), Error>(())
    }))
    .await;
    upkeep.into_iter().collect::<Result<Vec<()>>>()?;
    let mut figures = vec![("settle: upkeep s".to_string(), format!("{:.1}", start.elapsed().as_secs_f64()))];
    if let Some(sql) = d.checkpoint() {
        // CHECKPOINT takes a superuser or pg_checkpoint: without them the
        // pages are written back at the server's own pace, as said.
        let t = Instant::now();
        match admin.query(sql).await {
            Ok(_) => figures.push(("settle: checkpoint s".to_string(), format!("{:.1}", t.elapsed().as_secs_f64()))),
            Err(e) => eprintln!("warning: {sql} refused ({e}): the settle goes on without it"),
        }
    }
    tokio::time::sleep_until(tokio::time::Instant::from_std(start + Duration::from_secs_f64(rest))).await;
    figures.push(("settle: total s".to_string(), format!("{:.1}", start.elapsed().as_secs_f64())));
    Ok(figures)
}

/// Sets each of `settings` the server has, and returns their old values;
/// one it lacks (innodb_idle_flush_pct before MySQL 8.0.18, MariaDB) or
/// refuses (no privilege) is left alone, with a line saying so.
async fn hold(conn: &mut Conn, settings: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut held = Vec::new();
    for (name, value) in settings {
        let read = format!("SELECT @@GLOBAL.{name}");
        let Ok(rows) = conn.query_strings(&read).await else { continue };
        let Some(old) = rows.first().and_then(|r| r.first().cloned().flatten()) else { continue };
        match conn.query(&format!("SET GLOBAL {name} = {value}")).await {
            Ok(_) => held.push((name.to_string(), old)),
            Err(e) => eprintln!("warning: {name} left at {old} for the settle: {e}"),
        }
    }
    held
}
