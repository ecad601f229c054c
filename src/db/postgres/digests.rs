//! PostgreSQL's statements by shape, from pg_stat_statements (times in
//! ms), for the run's database only; nothing when the extension is not
//! loaded and created there.

use crate::db::digests::{self, Digest, BLOCKS_HIT, BLOCKS_READ, CALLS, ROWS_SENT, SECS, TEMP_BLOCKS};
use crate::db::facts::{rows, value, Server};
use crate::db::waits::UNRECORDED;
use crate::db::Conn;
use std::collections::BTreeMap;

/// The view's name in the schema the extension was created in; a note on
/// what to do when it is not there.
pub async fn view(c: &mut Conn, s: &Server, errors: &mut Vec<String>) -> Result<String, String> {
    let schema = value(c, "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_stat_statements'", errors).await;
    let loaded = s.variables.contains_key("pg_stat_statements.max");
    match (loaded, schema) {
        (true, Some(schema)) => Ok(format!("\"{}\".pg_stat_statements", schema.replace('"', "\"\""))),
        (false, _) => {
            Err(format!("{UNRECORDED}statements by shape are not kept: load pg_stat_statements (shared_preload_libraries = 'pg_stat_statements', a restart) and CREATE EXTENSION pg_stat_statements"))
        }
        (true, None) => Err(format!("{UNRECORDED}statements by shape are not read: pg_stat_statements is loaded but not created in this database (CREATE EXTENSION pg_stat_statements)")),
    }
}

/// Execution time (and planning time, when tracked) by the version's
/// names; no text (the function's `showtext` off): reading every
/// statement's text means reading the extension's whole text file, at
/// every sample.
fn sql(view: &str, version: Option<u32>) -> String {
    let time = if version.unwrap_or(0) >= 130000 { "total_exec_time + total_plan_time" } else { "total_time" };
    format!(
        "SELECT queryid::text, '', sum(calls), sum({time}) / 1000, sum(rows), sum(shared_blks_read), sum(shared_blks_hit), sum(temp_blks_written) FROM {view}(false) \
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND calls > 0 AND queryid IS NOT NULL GROUP BY queryid"
    )
}

/// The texts of the statements `ids`.
fn texts_sql(view: &str, ids: &[String]) -> String {
    format!("SELECT queryid::text, min(query) FROM {view}(true) WHERE queryid IN ({}) GROUP BY queryid", digests::id_list(ids).replace('\'', ""))
}

fn of_row(r: &[String]) -> Option<(String, Digest)> {
    digests::of_row(r, &[CALLS, SECS, ROWS_SENT, BLOCKS_READ, BLOCKS_HIT, TEMP_BLOCKS])
}

pub async fn read(c: &mut Conn, start: &Server, errors: &mut Vec<String>) -> BTreeMap<String, Digest> {
    let Some(view) = &start.statements_view else { return BTreeMap::new() };
    rows(c, &sql(view, super::spec::version_num(start)), errors).await.iter().filter_map(|r| of_row(r)).collect()
}

pub async fn texts(c: &mut Conn, start: &Server, ids: &[String], errors: &mut Vec<String>) -> BTreeMap<String, String> {
    let Some(view) = &start.statements_view else { return BTreeMap::new() };
    if digests::id_list(ids).is_empty() {
        return BTreeMap::new();
    }
    rows(c, &texts_sql(view, ids), errors).await.into_iter().filter_map(|r| Some((r.first()?.clone(), r.get(1)?.clone()))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_column_follows_the_version() {
        assert!(sql("public.pg_stat_statements", Some(150004)).contains("total_exec_time"));
        assert!(sql("public.pg_stat_statements", Some(150004)).contains("pg_stat_statements(false)"));
        assert_eq!(texts_sql("p.pg_stat_statements", &["-12".into(), "34".into()]), "SELECT queryid::text, min(query) FROM p.pg_stat_statements(true) WHERE queryid IN (-12, 34) GROUP BY queryid");
        assert!(sql("public.pg_stat_statements", Some(120010)).contains("sum(total_time)"));
        let r: Vec<String> = ["42", "SELECT c FROM sbtest1 WHERE id = $1", "100", "0.25", "100", "3", "397", "0"].iter().map(|s| s.to_string()).collect();
        let (id, d) = of_row(&r).unwrap();
        assert_eq!((id.as_str(), d.count(CALLS), d.count(BLOCKS_READ)), ("42", 100.0, 3.0));
    }
}
