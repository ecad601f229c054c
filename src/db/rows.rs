//! A result's rows kept as the server sent them and turned into text only
//! when a row is read. Scripts run many SELECTs whose rows they never look
//! at (sysbench's OLTP scripts drop every point-select result), so copying
//! the packets into one reused buffer costs a memcpy where decoding cost an
//! allocation per value.

use super::{DbError, DbResult, ErrKind};

/// How the kept rows are encoded.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Form {
    /// Values already decoded (the driver paths and SQLite).
    #[default]
    Decoded,
    /// MySQL text-protocol rows.
    MyText,
    /// MySQL binary-protocol rows, with the columns' (type, flags).
    MyBinary,
    /// PostgreSQL DataRows: text, or binary with the columns' type OIDs.
    PgText,
    PgBinary,
}

/// The rows of one result, reused from statement to statement.
#[derive(Debug, Default)]
pub struct RowBuf {
    form: Form,
    ncols: usize,
    /// The row packets' payloads, one after the other.
    bytes: Vec<u8>,
    /// Where each row ends in `bytes`.
    ends: Vec<usize>,
    my_types: Vec<(u8, u16)>,
    pg_types: Vec<u32>,
    decoded: Vec<Vec<Option<String>>>,
}

impl RowBuf {
    /// Empties the buffer, keeping its memory.
    pub fn clear(&mut self) {
        self.form = Form::Decoded;
        self.ncols = 0;
        self.bytes.clear();
        self.ends.clear();
        self.my_types.clear();
        self.pg_types.clear();
        self.decoded.clear();
    }

    pub fn len(&self) -> usize {
        match self.form {
            Form::Decoded => self.decoded.len(),
            _ => self.ends.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Columns of the result (0 for a statement that returned none).
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Row `i` as text (NULL as None), decoded now.
    pub fn row(&self, i: usize) -> Option<DbResult<Vec<Option<String>>>> {
        if self.form == Form::Decoded {
            return self.decoded.get(i).map(|r| Ok(r.clone()));
        }
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        let p = &self.bytes[start..end];
        let bad = || DbError { kind: ErrKind::Fatal, code: String::new(), message: "a result row could not be read".into() };
        Some(match self.form {
            Form::MyText => super::fast::my::text_row(p, self.ncols).ok_or_else(bad),
            Form::MyBinary => super::fast::my::binary_row(p, &self.my_types).ok_or_else(bad),
            Form::PgText => super::fast::pg::decode_row(p, None),
            Form::PgBinary => super::fast::pg::decode_row(p, Some(&self.pg_types)),
            Form::Decoded => unreachable!("handled above"),
        })
    }

    /// Rows decoded by a driver.
    pub(crate) fn set_decoded(&mut self, rows: Vec<Vec<Option<String>>>) {
        self.clear();
        self.ncols = rows.first().map(Vec::len).unwrap_or(0);
        self.decoded = rows;
    }

    pub(crate) fn start_my(&mut self, types: Option<&[(u8, u16)]>, ncols: usize) {
        self.clear();
        self.ncols = ncols;
        match types {
            Some(t) => {
                self.form = Form::MyBinary;
                self.my_types.extend_from_slice(t);
            }
            None => self.form = Form::MyText,
        }
    }

    pub(crate) fn start_pg(&mut self, types: Option<&[u32]>) {
        self.clear();
        match types {
            Some(t) => {
                self.form = Form::PgBinary;
                self.ncols = t.len();
                self.pg_types.extend_from_slice(t);
            }
            None => self.form = Form::PgText,
        }
    }

    /// Keeps one row packet's payload.
    pub(crate) fn push(&mut self, payload: &[u8]) {
        if self.form == Form::PgText && self.ends.is_empty() && payload.len() >= 2 {
            // Text rows of a plain query: the count comes with the first row.
            self.ncols = u16::from_be_bytes([payload[0], payload[1]]) as usize;
        }
        self.bytes.extend_from_slice(payload);
        self.ends.push(self.bytes.len());
    }
}
