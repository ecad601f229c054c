//! Statements as a workload writes them: SQL once, with `?` placeholders,
//! in a set each protocol's client prepares its own way.

/// A bound parameter. Integers bind as BIGINT everywhere (as sysbench does).
#[derive(Clone, Copy, Debug)]
pub enum Param<'a> {
    Int(i64),
    Text(&'a str),
}

/// sysbench's classification: a result set is a read, a statement that
/// changed rows is a write, anything else (BEGIN, COMMIT, an UPDATE that
/// matched nothing) is "other".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Read,
    Write,
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StmtId(pub u32);

/// One statement as the workload wrote it.
#[derive(Clone, Debug)]
pub struct Statement {
    /// SQL with `?` placeholders.
    pub sql: String,
    /// Whether the statement returns rows (decides read vs write/other).
    pub returns_rows: bool,
}

/// All statements of a workload, shared read-only by every client; each
/// connection prepares an entry the first time it runs it.
#[derive(Clone, Debug, Default)]
pub struct StatementSet {
    pub(super) stmts: Vec<Statement>,
    /// Ids by hash of their SQL: a workload over 100k tables adds a million
    /// statements, and a scan for duplicates per add grew with their square.
    by_hash: std::collections::HashMap<u64, Vec<u32>>,
}

impl StatementSet {
    pub fn add(&mut self, sql: impl Into<String>, returns_rows: bool) -> StmtId {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let sql = sql.into();
        let h = BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(&sql);
        let same = self.by_hash.entry(h).or_default();
        if let Some(&i) = same.iter().find(|&&i| self.stmts[i as usize].sql == sql) {
            return StmtId(i);
        }
        same.push(self.stmts.len() as u32);
        self.stmts.push(Statement { sql, returns_rows });
        StmtId(self.stmts.len() as u32 - 1)
    }
    pub fn get(&self, id: StmtId) -> &Statement {
        &self.stmts[id.0 as usize]
    }
    pub fn len(&self) -> usize {
        self.stmts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.stmts.is_empty()
    }
}

pub(super) fn classify_result(returns_rows: bool, changed: u64) -> Class {
    if returns_rows {
        Class::Read
    } else if changed > 0 {
        Class::Write
    } else {
        Class::Other
    }
}
