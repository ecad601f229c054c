//! Bulk loads: the rows a workload produces and how prepare sends them.

use super::encode::{push_date, push_int, push_scaled, push_timestamp};

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
    /// DATE; the value comes from `ints` as days since 1970-01-01.
    Date,
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

/// One value of a generated row, as its column holds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell<'a> {
    Null,
    /// An integer column's value, or a scaled, timestamp or numeric one's (see [`ColType`]).
    Int(i64),
    Text(&'a [u8]),
}

impl Row {
    /// The row's values in column order, each with its column's number and
    /// type: NULL where its bit is set, else the next of `ints` or `texts`
    /// as the column's type says (a NULL column still takes its slot).
    pub fn cells<'a>(&'a self, cols: &'a [Column]) -> impl Iterator<Item = (usize, ColType, Cell<'a>)> + 'a {
        let (mut ii, mut ti) = (0, 0);
        cols.iter().enumerate().map(move |(k, c)| {
            let null = self.nulls & (1 << k) != 0;
            let cell = if c.ty.is_int() {
                ii += 1;
                if null {
                    Cell::Null
                } else {
                    Cell::Int(self.ints[ii - 1])
                }
            } else {
                ti += 1;
                if null {
                    Cell::Null
                } else {
                    Cell::Text(&self.texts[ti - 1])
                }
            };
            (k, c.ty, cell)
        })
    }
}

/// Produces rows for a bulk load. Values come in column order: every Int or
/// BigInt column takes the next entry of `ints`, every Text column the next
/// of `texts`.
pub trait RowSource: Send {
    /// Fill `row` with the next row; false when done.
    fn next_row(&mut self, row: &mut Row) -> bool;
}

/// The multi-row INSERT statements that write `rows` into `table`, up to
/// `bulk_rows` rows each: for a workload that writes generated rows inside
/// a transaction of its own. Quotes are doubled; a backslash is written as
/// it is, so text holding one reads differently on the MySQL family.
pub fn insert_statements(table: &str, cols: &[Column], rows: &mut dyn RowSource, bulk_rows: usize) -> Vec<String> {
    let mut row = Row::default();
    std::iter::from_fn(|| next_insert(table, cols, rows, &mut row, bulk_rows, false).map(|(sql, _)| sql)).collect()
}

/// The next multi-row INSERT of a bulk load (`--load-mode=insert`, as
/// sysbench loads): up to `bulk_rows` of `rows` in one statement, with how
/// many it holds; None when the rows are done. `row` is the buffer rows are
/// generated into, kept between calls.
pub(crate) fn next_insert(table: &str, cols: &[Column], rows: &mut dyn RowSource, row: &mut Row, bulk_rows: usize, backslash_escapes: bool) -> Option<(String, u64)> {
    let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
    let mut sql = format!("INSERT INTO {table} ({}) VALUES ", names.join(","));
    let mut n = 0;
    while n < bulk_rows.max(1) && rows.next_row(row) {
        encode_values(cols, row, &mut sql, n == 0, backslash_escapes);
        n += 1;
    }
    (n > 0).then_some((sql, n as u64))
}

/// One row of a multi-row INSERT, as SQL literals. Numbers go through one
/// scratch buffer per row and text is copied between the characters that
/// need escaping, so a row costs no allocation per column.
pub(crate) fn encode_values(cols: &[Column], row: &Row, sql: &mut String, first: bool, backslash_escapes: bool) {
    if !first {
        sql.push(',');
    }
    sql.push('(');
    let mut num: Vec<u8> = Vec::with_capacity(32);
    for (k, ty, cell) in row.cells(cols) {
        if k > 0 {
            sql.push(',');
        }
        num.clear();
        let quoted = match (ty, cell) {
            (_, Cell::Null) => {
                sql.push_str("NULL");
                continue;
            }
            (_, Cell::Text(t)) => {
                sql.push('\'');
                push_sql_text(sql, &String::from_utf8_lossy(t), backslash_escapes);
                sql.push('\'');
                continue;
            }
            (ColType::Numeric(scale), Cell::Int(v)) => {
                push_scaled(&mut num, v, scale);
                false
            }
            (ColType::Timestamp, Cell::Int(v)) => {
                push_timestamp(&mut num, v);
                true
            }
            (ColType::Date, Cell::Int(v)) => {
                push_date(&mut num, v);
                true
            }
            (_, Cell::Int(v)) => {
                push_int(&mut num, v);
                false
            }
        };
        // The number writers only write ASCII digits, signs, '.', '-', ':' and ' '.
        let text = std::str::from_utf8(&num).unwrap_or_default();
        if quoted {
            sql.push('\'');
            sql.push_str(text);
            sql.push('\'');
        } else {
            sql.push_str(text);
        }
    }
    sql.push(')');
}

/// A string literal's body: quotes doubled, and backslashes doubled where
/// the server reads them as escapes (MySQL's default sql_mode).
fn push_sql_text(sql: &mut String, mut s: &str, backslash_escapes: bool) {
    while let Some(i) = s.find(|c| c == '\'' || (backslash_escapes && c == '\\')) {
        sql.push_str(&s[..i]);
        sql.push_str(if s.as_bytes()[i] == b'\'' { "''" } else { "\\\\" });
        s = &s[i + 1..];
    }
    sql.push_str(s);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_row_quotes_text_and_writes_numbers() {
        let cols = [("id", ColType::BigInt), ("p", ColType::Numeric(2)), ("t", ColType::Timestamp), ("c", ColType::Text), ("n", ColType::Int), ("d", ColType::Text)]
            .map(|(n, ty)| Column { name: n.into(), ty });
        let row = Row { ints: vec![i64::MIN, -1205, 86_400, 0], texts: vec![b"it's a\\b".to_vec(), b"\xffz".to_vec()], nulls: 1 << 4 };
        let mut sql = String::new();
        encode_values(&cols, &row, &mut sql, true, true);
        assert_eq!(sql, "(-9223372036854775808,-12.05,'1970-01-02 00:00:00','it''s a\\\\b',NULL,'\u{fffd}z')");
        let mut sql = String::from("X");
        encode_values(&cols, &row, &mut sql, false, false);
        assert_eq!(sql, "X,(-9223372036854775808,-12.05,'1970-01-02 00:00:00','it''s a\\b',NULL,'\u{fffd}z')");
    }

    /// A NULL column takes its value's slot: the columns after it read theirs.
    #[test]
    fn cells_skip_the_slot_of_a_null() {
        let cols = [("a", ColType::Int), ("b", ColType::Text), ("c", ColType::Int), ("d", ColType::Text)].map(|(n, ty)| Column { name: n.into(), ty });
        let row = Row { ints: vec![1, 2], texts: vec![b"x".to_vec(), b"y".to_vec()], nulls: 1 << 0 | 1 << 1 };
        let cells: Vec<Cell> = row.cells(&cols).map(|(_, _, c)| c).collect();
        assert_eq!(cells, [Cell::Null, Cell::Null, Cell::Int(2), Cell::Text(b"y")]);
    }
}
