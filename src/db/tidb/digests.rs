//! TiDB's statements by digest, from its statements summary
//! (`information_schema.statements_summary`, latencies in nanoseconds) for
//! the run's database: one row per digest, plan and user, summed by
//! digest. The summary starts anew each refresh interval (30 minutes by
//! default); a window that starts mid-level counts from its start.

use crate::db::digests::{self, Digest, CALLS, ROWS_EXAMINED, ROWS_SENT, SECS};
use crate::db::facts::{rows, Server};
use crate::db::waits::UNRECORDED;
use crate::db::Conn;
use std::collections::BTreeMap;

pub const VIEW: &str = "information_schema.statements_summary";

/// Keys scanned stand for rows examined; rows changed for rows sent.
const SQL: &str = "SELECT DIGEST, ANY_VALUE(DIGEST_TEXT), SUM(EXEC_COUNT), SUM(SUM_LATENCY) / 1e9, SUM(AVG_TOTAL_KEYS * EXEC_COUNT), SUM(AVG_AFFECTED_ROWS * EXEC_COUNT) \
     FROM information_schema.statements_summary WHERE SCHEMA_NAME <=> DATABASE() AND DIGEST IS NOT NULL GROUP BY DIGEST";

/// Whether the summary is on: the view's name, or the note on turning it on.
pub fn view(s: &Server) -> Result<String, String> {
    match s.var("tidb_enable_stmt_summary").map(str::to_ascii_uppercase).as_deref() {
        Some("ON" | "1") => Ok(VIEW.to_string()),
        _ => Err(format!("{UNRECORDED}statements by digest are not kept: SET GLOBAL tidb_enable_stmt_summary = ON")),
    }
}

pub async fn read(c: &mut Conn, start: &Server, errors: &mut Vec<String>) -> BTreeMap<String, Digest> {
    if start.statements_view.is_none() {
        return BTreeMap::new();
    }
    rows(c, SQL, errors).await.iter().filter_map(|r| digests::of_row(r, &[CALLS, SECS, ROWS_EXAMINED, ROWS_SENT])).collect()
}
