//! Writing a table the engine keeps whole on every shard (a reference
//! table): the engine's proxy routes reads to any copy but will not write
//! to them, so each copy is written apart, with the connection pointed at
//! its shard ([`Copies`]) and back. Such tables are small (TPC-C's ITEM,
//! dbSTRESS's fixed tables): their rows are generated once and held.

use super::bulk::{Column, LoadMode, Row, RowSource};
use super::error::{DbError, DbResult};
use super::sharding::Copies;
use super::Conn;

/// Rows generated once, given again for every copy.
struct Replay<'a> {
    rows: &'a [Row],
    next: usize,
}

impl RowSource for Replay<'_> {
    fn next_row(&mut self, row: &mut Row) -> bool {
        let Some(r) = self.rows.get(self.next) else { return false };
        row.clone_from(r);
        self.next += 1;
        true
    }
}

/// What is done on each copy.
enum Op<'a> {
    Load { table: &'a str, cols: &'a [Column], rows: &'a [Row], bulk_rows: usize, mode: LoadMode },
    Query(&'a str),
}

/// What one copy gave back.
enum Done {
    Loaded(u64),
    Rows(Vec<Vec<Option<String>>>),
}

impl Conn {
    /// `op` on each copy in turn, the connection pointed at it; pointed
    /// back once done, failed or not (the first error wins).
    async fn each_copy(&mut self, copies: &Copies, op: Op<'_>) -> DbResult<Vec<Done>> {
        let mut out = Vec::new();
        let mut failed: Option<DbError> = None;
        for at in &copies.each {
            let r = match self.query(at).await {
                Err(e) => Err(e),
                Ok(_) => match &op {
                    Op::Load { table, cols, rows, bulk_rows, mode } => self.bulk_load_one(table, cols, &mut Replay { rows, next: 0 }, *bulk_rows, *mode).await.map(Done::Loaded),
                    Op::Query(sql) => self.query_strings(sql).await.map(Done::Rows),
                },
            };
            match r {
                Ok(v) => out.push(v),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        let back = self.query(&copies.back).await;
        match (failed, back) {
            (Some(e), _) | (None, Err(e)) => Err(e),
            (None, Ok(_)) => Ok(out),
        }
    }

    /// The rows generated once, then loaded into each copy: the count of one.
    pub(super) async fn bulk_load_copies(&mut self, copies: &Copies, table: &str, cols: &[Column], rows: &mut dyn RowSource, bulk_rows: usize, mode: LoadMode) -> DbResult<u64> {
        let mut held = Vec::new();
        let mut row = Row::default();
        while rows.next_row(&mut row) {
            held.push(row.clone());
        }
        let done = self.each_copy(copies, Op::Load { table, cols, rows: &held, bulk_rows, mode }).await?;
        Ok(match done.first() {
            Some(Done::Loaded(n)) => *n,
            _ => 0,
        })
    }

    /// `sql` about `table` run where its rows are: on each copy when the
    /// engine keeps one on every shard (each copy's rows, in shard order),
    /// else once: how many rows each copy holds.
    /// Where the copies of `table` are, when the engine keeps one on every shard.
    pub(super) async fn copies(&mut self, table: &str) -> Option<Copies> {
        match self.cfg.engine().sharded() {
            Some(s) => s.copies(self, table).await,
            None => None,
        }
    }

    pub async fn query_each_copy(&mut self, table: &str, sql: &str) -> DbResult<Vec<Vec<Vec<Option<String>>>>> {
        let Some(copies) = self.copies(table).await else { return Ok(vec![self.query_strings(sql).await?]) };
        let done = self.each_copy(&copies, Op::Query(sql)).await?;
        Ok(done.into_iter().filter_map(|d| if let Done::Rows(r) = d { Some(r) } else { None }).collect())
    }

    /// Every row of `table` gone: `DELETE FROM`, or each copy truncated
    /// where the engine keeps one on every shard (a shard's server takes
    /// a DELETE of more rows than its proxy lets one statement touch).
    pub async fn empty_table(&mut self, table: &str) -> DbResult<()> {
        match self.copies(table).await {
            Some(copies) => self.each_copy(&copies, Op::Query(&format!("TRUNCATE TABLE {table}"))).await.map(|_| ()),
            None => self.query(&format!("DELETE FROM {table}")).await.map(|_| ()),
        }
    }
}
