//! A MySQL-family server's statements by digest, from performance_schema's
//! `events_statements_summary_by_digest` (timers in picoseconds), for the
//! run's database only.

use crate::db::digests::{self, Digest, CALLS, NO_INDEX, ROWS_EXAMINED, ROWS_SENT, SECS, SORT_MERGES, TMP_DISK_TABLES, TMP_TABLES};
use crate::db::facts::{rows, value, Server};
use crate::db::waits::UNRECORDED;
use crate::db::Conn;
use std::collections::BTreeMap;

pub const VIEW: &str = "performance_schema.events_statements_summary_by_digest";
/// Prepared statements run over the binary protocol are not in the digest
/// summary: MySQL counts them per statement here.
const PREPARED: &str = "performance_schema.prepared_statements_instances";
/// What stands for them where that table counts no execution (MariaDB):
/// all prepared statements together.
const EXECUTE_TEXT: &str = "(all prepared statements; each apart: --db-ps-mode=disable)";

/// The columns in the order [`of_row`] reads them: rows sent and rows
/// changed together are what a statement gave back. The texts are read
/// apart, for the statements that moved ([`texts`]).
fn sql() -> String {
    format!(
        "SELECT DIGEST, '', COUNT_STAR, SUM_TIMER_WAIT / 1e12, SUM_ROWS_EXAMINED, SUM_ROWS_SENT + SUM_ROWS_AFFECTED, SUM_CREATED_TMP_TABLES, \
         SUM_CREATED_TMP_DISK_TABLES, SUM_SORT_MERGE_PASSES, SUM_NO_INDEX_USED FROM {VIEW} WHERE SCHEMA_NAME <=> DATABASE() AND COUNT_STAR > 0 AND DIGEST IS NOT NULL"
    )
}

/// The prepared statements of every session, by text.
fn prepared_sql() -> String {
    format!(
        "SELECT CONCAT('prepared:', MD5(SQL_TEXT)), MIN(SQL_TEXT), SUM(COUNT_EXECUTE), SUM(SUM_TIMER_EXECUTE) / 1e12, SUM(SUM_ROWS_EXAMINED), SUM(SUM_ROWS_SENT + SUM_ROWS_AFFECTED), \
         SUM(SUM_CREATED_TMP_TABLES), SUM(SUM_CREATED_TMP_DISK_TABLES), SUM(SUM_SORT_MERGE_PASSES), SUM(SUM_NO_INDEX_USED) FROM {PREPARED} GROUP BY SQL_TEXT HAVING SUM(COUNT_EXECUTE) > 0"
    )
}

fn execute_sql() -> String {
    format!(
        "SELECT 'execute', '{EXECUTE_TEXT}', COUNT_STAR, SUM_TIMER_WAIT / 1e12, SUM_ROWS_EXAMINED, SUM_ROWS_SENT + SUM_ROWS_AFFECTED, SUM_CREATED_TMP_TABLES, \
         SUM_CREATED_TMP_DISK_TABLES, SUM_SORT_MERGE_PASSES, SUM_NO_INDEX_USED FROM performance_schema.events_statements_summary_global_by_event_name WHERE EVENT_NAME = 'statement/com/Execute' AND COUNT_STAR > 0"
    )
}

fn of_row(r: &[String]) -> Option<(String, Digest)> {
    digests::of_row(r, &[CALLS, SECS, ROWS_EXAMINED, ROWS_SENT, TMP_TABLES, TMP_DISK_TABLES, SORT_MERGES, NO_INDEX])
}

/// Whether the summary is kept (performance_schema on, its digest consumer
/// enabled): the views read when it is, a note on what is missing when not.
pub async fn view(c: &mut Conn, errors: &mut Vec<String>) -> Result<String, String> {
    let consumer = value(c, "SELECT ENABLED FROM performance_schema.setup_consumers WHERE NAME = 'statements_digest'", errors).await;
    if consumer.as_deref() != Some("YES") {
        return Err(format!(
            "{UNRECORDED}statements by digest are not kept (performance_schema's statements_digest consumer is off): UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'statements_digest'"
        ));
    }
    // Older servers have no table of prepared statements: no sample asks for it then.
    let prepared = value(c, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'performance_schema' AND table_name = 'prepared_statements_instances'", errors).await;
    Ok(if prepared.as_deref() == Some("1") { format!("{VIEW}, {PREPARED}") } else { VIEW.to_string() })
}

pub async fn read(c: &mut Conn, start: &Server, errors: &mut Vec<String>) -> BTreeMap<String, Digest> {
    let Some(view) = &start.statements_view else { return BTreeMap::new() };
    let mut out: BTreeMap<String, Digest> = rows(c, &sql(), errors).await.iter().filter_map(|r| of_row(r)).collect();
    let prepared: Vec<_> = if view.contains(PREPARED) { rows(c, &prepared_sql(), errors).await.iter().filter_map(|r| of_row(r)).collect() } else { Vec::new() };
    if prepared.is_empty() {
        out.extend(rows(c, &execute_sql(), errors).await.iter().filter_map(|r| of_row(r)));
    }
    out.extend(prepared);
    out
}

pub async fn texts(c: &mut Conn, start: &Server, ids: &[String], errors: &mut Vec<String>) -> BTreeMap<String, String> {
    let list = digests::id_list(ids);
    if start.statements_view.is_none() || list.is_empty() {
        return BTreeMap::new();
    }
    let sql = format!("SELECT DIGEST, DIGEST_TEXT FROM {VIEW} WHERE SCHEMA_NAME <=> DATABASE() AND DIGEST IN ({list})");
    rows(c, &sql, errors).await.into_iter().filter_map(|r| Some((r.first()?.clone(), r.get(1)?.clone()))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_row_becomes_its_counters_and_the_samplers_own_are_left_out() {
        let r: Vec<String> = ["abc", "SELECT `c` FROM `sbtest1` WHERE `id` = ?", "10", "0.5", "10", "10", "0", "0", "0", "0"].iter().map(|s| s.to_string()).collect();
        let (id, d) = of_row(&r).unwrap();
        assert_eq!(id, "abc");
        assert_eq!(d.count(CALLS), 10.0);
        assert_eq!(d.count(SECS), 0.5);
        assert_eq!(d.count(ROWS_EXAMINED), 10.0);
        let mut own = r.clone();
        own[1] = "SHOW GLOBAL STATUS".into();
        assert_eq!(of_row(&own), None);
    }
}
