//! Bulk loads: the rows a workload produces and how prepare sends them.

/// How prepare loads rows (`--load-mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadMode {
    /// The fastest path the engine allows: binary COPY, LOAD DATA LOCAL
    /// when the server permits it, else multi-row INSERT.
    Auto,
    /// MySQL-family: LOAD DATA LOCAL INFILE, an error if the server refuses.
    Infile,
    /// Multi-row INSERT statements (what sysbench does).
    Insert,
}

impl LoadMode {
    pub fn parse(s: &str) -> Option<LoadMode> {
        match s.to_ascii_lowercase().as_str() {
            "auto" | "copy" | "parallel" | "parallel_ordered" | "original" => Some(LoadMode::Auto),
            "infile" | "load-data" => Some(LoadMode::Infile),
            "insert" => Some(LoadMode::Insert),
            _ => None,
        }
    }
}

/// Column of a bulk-loaded table, so each engine can encode values natively.
#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub ty: ColType,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColType {
    /// 32-bit INTEGER
    Int,
    BigInt,
    /// CHAR/VARCHAR/TEXT
    Text,
    /// 16-bit SMALLINT (PostgreSQL's binary COPY needs the exact width).
    SmallInt,
    /// DECIMAL with this many fraction digits; the value comes from `ints`,
    /// scaled (12.34 with scale 2 is 1234), so loaders never format decimals.
    Numeric(u8),
    /// DATETIME/TIMESTAMP; the value comes from `ints` as Unix seconds (UTC).
    Timestamp,
}

impl ColType {
    /// Whether the value comes from `Row::ints` (else from `Row::texts`).
    pub fn is_int(self) -> bool {
        !matches!(self, ColType::Text)
    }
}

/// One generated row; values are reused between rows to avoid allocation.
#[derive(Clone, Debug, Default)]
pub struct Row {
    pub ints: Vec<i64>,
    pub texts: Vec<Vec<u8>>,
    /// Bit k set: column k is NULL (its value slot is still consumed).
    pub nulls: u64,
}

/// Produces rows for a bulk load. Values come in column order: every Int or
/// BigInt column takes the next entry of `ints`, every Text column the next
/// of `texts`.
pub trait RowSource: Send {
    /// Fill `row` with the next row; false when done.
    fn next_row(&mut self, row: &mut Row) -> bool;
}
