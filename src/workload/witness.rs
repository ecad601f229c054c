//! `--verify-writes`: each client writes down, as it goes, the keys of the
//! writes whose COMMIT the server acknowledged and of those whose outcome it
//! cannot know (an error or a lost connection once the COMMIT was sent);
//! after the run the keys are read back from the target and judged here.
//!
//! The recording costs little on the hot path: a client appends to its own
//! buffer (no lock, no channel, no shared counter per event) and takes the
//! file's lock once per [`BATCH`] writes, when it hands the batch over.
//!
//! The log is a text file: a header line, a JSON line describing the run
//! (workload, its options, how its writes are checked), then one line per
//! write:
//!
//! ```text
//! A <client> <token> <sent µs> <acked µs> <key...>     acknowledged
//! U <client> <token> <sent µs> - <key...>              outcome unknown
//! ```
//!
//! Times are microseconds since the log was opened; a key the client never
//! learnt (an auto-increment id whose INSERT failed) is written `?`.

use crate::db::{DbError, DbResult, ErrKind};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The row a write made, as its workload names it (the names are in
/// [`Witnessing::key_names`]); unused places are 0.
pub type Key = [i64; 4];

/// Writes a client hands to the file at once.
pub const BATCH: usize = 4096;

const MAGIC: &str = "# fairbench write log 1";

/// How a workload's writes are checked once read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckKind {
    /// Each write inserts a row that nothing deletes: an acknowledged key
    /// must be there afterwards.
    Inserted,
    /// Writes overwrite the same rows, each with a token of its own: a
    /// row's final token must be its latest acknowledged write's, or that
    /// of a write that may have committed after it.
    LastWrite,
}

/// What a workload says about its writes when it can verify them.
#[derive(Clone, Copy, Debug)]
pub struct Witnessing {
    pub check: CheckKind,
    /// The names of the key's places, in order (`table`, `id`).
    pub key_names: &'static [&'static str],
}

/// The description line of a log: enough to read its keys back later
/// (`fairbench check writes FILE --target URL`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LogHeader {
    pub workload: String,
    /// The workload options the run's command line gave, as `--name=value`
    /// pairs, which rebuild the workload (its tables' names among them).
    pub options: Vec<(String, String)>,
    pub check: CheckKind,
    pub key_names: Vec<String>,
    pub target: String,
    pub started_at: String,
    #[serde(default)]
    pub run_id: Option<i64>,
    /// The results store holding that run (absolute), where `check writes`
    /// stores its verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<PathBuf>,
}

/// The file every client of a run hands its writes to.
pub struct WriteLog {
    path: PathBuf,
    file: Mutex<BufWriter<std::fs::File>>,
    t0: Instant,
    /// Random per run, in every token: a row left by another run is never
    /// taken for one of this run's writes.
    nonce: u64,
    /// Recorders handed out: each has its own number in the tokens, so
    /// the clients of a sweep's later levels never repeat a token.
    recorders: std::sync::atomic::AtomicU32,
    failed: Mutex<Option<String>>,
}

impl WriteLog {
    pub fn create(path: &Path, header: &LogHeader) -> Result<Arc<WriteLog>> {
        let f = std::fs::File::create(path).map_err(|e| Error::Usage(format!("--verify-writes: cannot create {}: {e}; give a writable path (--verify-writes=FILE)", path.display())))?;
        let mut w = BufWriter::with_capacity(1 << 16, f);
        let line = serde_json::to_string(header).map_err(|e| Error::Io(e.to_string()))?;
        writeln!(w, "{MAGIC}\n{line}").map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
        let nonce = crate::rand::entropy_seed() & 0xfff;
        Ok(Arc::new(WriteLog { path: path.to_path_buf(), file: Mutex::new(w), t0: Instant::now(), nonce, recorders: Default::default(), failed: Mutex::new(None) }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A client's recorder (one per client and load level).
    pub fn recorder(self: &Arc<Self>) -> Recorder {
        let client = self.recorders.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Recorder { log: self.clone(), client, seq: 0, open: Vec::new(), sent_us: None, done: Vec::with_capacity(BATCH) }
    }

    fn micros(&self) -> u64 {
        self.t0.elapsed().as_micros() as u64
    }

    fn append(&self, recs: &[Rec]) {
        let Ok(mut f) = self.file.lock() else { return };
        for r in recs {
            let r = match r.acked_us {
                Some(a) => write!(f, "A {} {:x} {} {a}", r.client, r.token, r.sent_us),
                None => write!(f, "U {} {:x} {} -", r.client, r.token, r.sent_us),
            }
            .and_then(|()| match r.key {
                Some(k) => writeln!(f, " {} {} {} {}", k[0], k[1], k[2], k[3]),
                None => writeln!(f, " ? ? ? ?"),
            });
            if let Err(e) = r {
                self.fail(e);
                return;
            }
        }
    }

    fn fail(&self, e: std::io::Error) {
        if let Ok(mut f) = self.failed.lock() {
            f.get_or_insert_with(|| format!("{}: {e}", self.path.display()));
        }
    }

    /// Writes out what the file buffers; Err when any write failed (the
    /// log would be incomplete, so nothing should be judged from it).
    pub fn flush(&self) -> Result<()> {
        if let Ok(mut f) = self.file.lock() {
            if let Err(e) = f.flush() {
                self.fail(e);
            }
        }
        match self.failed.lock().ok().and_then(|f| f.clone()) {
            Some(why) => Err(Error::Io(format!("--verify-writes: the write log is incomplete: {why}"))),
            None => Ok(()),
        }
    }
}

/// One write as recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct Rec {
    pub client: u32,
    pub token: u64,
    pub sent_us: u64,
    /// None: the outcome is unknown.
    pub acked_us: Option<u64>,
    pub key: Option<Key>,
}

/// One client's recording. The workload calls, for each transaction:
/// [`Recorder::write`] for each row it writes, [`Recorder::commit_sent`]
/// just before the statement that commits (COMMIT, or an autocommit
/// statement), then [`Recorder::acknowledged`] when it succeeded. An
/// attempt that failed before its COMMIT was sent committed nothing: its
/// writes are dropped at the next [`Recorder::settle`]; one that failed
/// after has an unknown outcome.
pub struct Recorder {
    log: Arc<WriteLog>,
    client: u32,
    seq: u64,
    open: Vec<Rec>,
    sent_us: Option<u64>,
    done: Vec<Rec>,
}

impl Recorder {
    /// A token no other write of the run has: the run's nonce (12 bits),
    /// the recorder's number (20 bits), its sequence (32 bits).
    #[inline]
    pub fn token(&mut self) -> u64 {
        self.seq += 1;
        (self.log.nonce << 52) | ((self.client as u64 & 0xf_ffff) << 32) | (self.seq & 0xffff_ffff)
    }

    /// The transaction under way writes `key` (None: learnt only once the
    /// statement ran, see [`Recorder::learnt_key`]) with `token`.
    #[inline]
    pub fn write(&mut self, key: Option<Key>, token: u64) {
        self.open.push(Rec { client: self.client, token, sent_us: 0, acked_us: None, key });
    }

    /// The last write recorded changed no row after all (an UPDATE whose row
    /// another transaction deleted and inserted again meanwhile: PostgreSQL
    /// then updates nothing): it wrote nothing that could be lost.
    #[inline]
    pub fn unwrite(&mut self) {
        self.open.pop();
    }

    /// The statement that commits the open writes is about to be sent.
    #[inline]
    pub fn commit_sent(&mut self) {
        self.sent_us = Some(self.log.micros());
    }

    /// The last open write's key, learnt from the server (the id an
    /// auto-increment column gave).
    #[inline]
    pub fn learnt_key(&mut self, key: Key) {
        if let Some(r) = self.open.last_mut() {
            r.key = Some(key);
        }
    }

    /// The committing statement failed. When the server answered it with an
    /// error, it did not commit (a deadlock or certification failure, a
    /// serialization failure, a duplicate key): the open writes are
    /// dropped. When no answer came (the connection was lost, the run
    /// stopped), the outcome is unknown: [`Recorder::settle`] records them so.
    #[inline]
    pub fn commit_failed(&mut self, e: &DbError) {
        if !matches!(e.kind, ErrKind::ConnectionLost | ErrKind::Stopped) {
            self.open.clear();
            self.sent_us = None;
        }
    }

    /// The result of the committing statement, passed through: a failure
    /// is told to [`Recorder::commit_failed`].
    #[inline]
    pub fn committed<T>(&mut self, r: DbResult<T>) -> DbResult<T> {
        if let Err(e) = &r {
            self.commit_failed(e);
        }
        r
    }

    /// The server acknowledged the COMMIT of the open writes.
    #[inline]
    pub fn acknowledged(&mut self) {
        let now = self.log.micros();
        self.close(Some(now));
    }

    /// Called before each attempt: what an earlier attempt left open failed
    /// (dropped when its COMMIT was never sent, unknown when it was).
    #[inline]
    pub fn settle(&mut self) {
        if self.open.is_empty() {
            self.sent_us = None;
            return;
        }
        if self.sent_us.is_some() {
            self.close(None);
        } else {
            self.open.clear();
        }
    }

    fn close(&mut self, acked: Option<u64>) {
        let sent = self.sent_us.take().unwrap_or(0);
        for mut r in self.open.drain(..) {
            r.sent_us = sent;
            r.acked_us = acked;
            self.done.push(r);
        }
        if self.done.len() >= BATCH {
            self.log.append(&self.done);
            self.done.clear();
        }
    }
}

impl Drop for Recorder {
    /// The client stopped: an attempt still open failed, and the rest goes
    /// to the file.
    fn drop(&mut self) {
        self.settle();
        if !self.done.is_empty() {
            self.log.append(&self.done);
        }
    }
}

/// The result of a committing statement, telling `rec` when it failed
/// (see [`Recorder::commit_failed`]).
pub fn committed<T>(rec: &mut Option<Recorder>, r: DbResult<T>) -> DbResult<T> {
    match rec {
        Some(rec) => rec.committed(r),
        None => r,
    }
}

/// The token a workload writes into a text column: 16 hex digits, which
/// [`parse_token`] reads back from the start of the value.
pub fn token_text(token: u64, out: &mut [u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for (i, b) in out.iter_mut().take(16).enumerate() {
        *b = HEX[((token >> (60 - 4 * i)) & 0xf) as usize];
    }
}

/// The token at the start of a value written with [`token_text`] (0: none).
pub fn parse_token(v: &str) -> u64 {
    v.get(..16).and_then(|h| u64::from_str_radix(h, 16).ok()).unwrap_or(0)
}

/// A log as read back: its description and its writes.
pub struct ReadLog {
    pub header: LogHeader,
    pub recs: Vec<Rec>,
}

/// The description of a write log, read from its first lines.
pub fn read_header(path: &Path) -> Result<LogHeader> {
    let f = std::fs::File::open(path).map_err(|e| Error::Usage(format!("{}: {e}; give the file a run with --verify-writes wrote", path.display())))?;
    let mut lines = std::io::BufReader::new(f).lines();
    let bad = |why: String| Error::Usage(format!("{}: {why}; give a file written by --verify-writes", path.display()));
    if lines.next().and_then(|l| l.ok()).as_deref() != Some(MAGIC) {
        return Err(bad("not a write log (its first line is not the write log's header)".into()));
    }
    serde_json::from_str(&lines.next().and_then(|l| l.ok()).unwrap_or_default()).map_err(|e| bad(format!("line 2: {e}")))
}

/// Reads a write log; Err(Usage) names what is wrong with it.
pub fn read(path: &Path) -> Result<ReadLog> {
    let bad = |why: String| Error::Usage(format!("{}: {why}; give a file written by --verify-writes", path.display()));
    let f = std::fs::File::open(path).map_err(|e| Error::Usage(format!("{}: {e}; give the file a run with --verify-writes wrote", path.display())))?;
    let mut lines = std::io::BufReader::new(f).lines();
    let mut next = |n: usize| lines.next().transpose().map_err(|e| bad(format!("line {n}: {e}")));
    if next(1)?.as_deref() != Some(MAGIC) {
        return Err(bad("not a write log (its first line is not the write log's header)".into()));
    }
    let header: LogHeader = serde_json::from_str(&next(2)?.unwrap_or_default()).map_err(|e| bad(format!("line 2: {e}")))?;
    let mut recs = Vec::new();
    let mut n = 2;
    while let Some(line) = next(n + 1)? {
        n += 1;
        recs.push(parse_rec(&line).ok_or_else(|| bad(format!("line {n} is not a write: '{}'", crate::error::one_line(&line))))?);
    }
    Ok(ReadLog { header, recs })
}

fn parse_rec(line: &str) -> Option<Rec> {
    let f: Vec<&str> = line.split(' ').collect();
    if f.len() != 9 {
        return None;
    }
    let acked_us = match (f[0], f[4]) {
        ("A", a) => Some(a.parse().ok()?),
        ("U", "-") => None,
        _ => return None,
    };
    let key = if f[5..].iter().all(|k| *k == "?") {
        None
    } else {
        let mut k = [0i64; 4];
        for (slot, v) in k.iter_mut().zip(&f[5..]) {
            *slot = v.parse().ok()?;
        }
        Some(k)
    };
    Some(Rec { client: f[1].parse().ok()?, token: u64::from_str_radix(f[2], 16).ok()?, sent_us: f[3].parse().ok()?, acked_us, key })
}

/// The keys to read back: every key the log names, once, in order.
pub fn keys(recs: &[Rec]) -> Vec<Key> {
    let mut seen = std::collections::HashSet::new();
    recs.iter().filter_map(|r| r.key).filter(|k| seen.insert(*k)).collect()
}

/// The verdict on a log, against what the target holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Writes whose COMMIT was acknowledged.
    pub acknowledged: u64,
    /// Acknowledged writes judged against the target.
    pub checked: u64,
    /// Acknowledged writes the target does not have.
    pub lost: u64,
    /// Their keys (for a last-write check, the key of each row whose latest
    /// acknowledged write is gone).
    pub lost_keys: Vec<Key>,
    /// Writes whose outcome the client could not know.
    pub ambiguous: u64,
    /// Of those, the ones the target shows committed.
    pub ambiguous_committed: u64,
    /// Of those, the ones whose key the client never learnt (not checked).
    pub ambiguous_unknown_key: u64,
}

/// The keys the target holds, each with the token its row carries (0 when
/// the workload writes none); a key not in the map is missing.
pub type Found = HashMap<Key, u64>;

/// Judges the writes of a log against the rows found.
pub fn judge(check: CheckKind, recs: &[Rec], found: &Found) -> Verdict {
    match check {
        CheckKind::Inserted => judge_inserted(recs, found),
        CheckKind::LastWrite => judge_last_write(recs, found),
    }
}

fn judge_inserted(recs: &[Rec], found: &Found) -> Verdict {
    let mut v = Verdict::default();
    let acked: std::collections::HashSet<Key> = recs.iter().filter(|r| r.acked_us.is_some()).filter_map(|r| r.key).collect();
    for r in recs {
        match (r.acked_us, r.key) {
            (Some(_), Some(k)) => {
                v.acknowledged += 1;
                v.checked += 1;
                if !found.contains_key(&k) {
                    v.lost += 1;
                    v.lost_keys.push(k);
                }
            }
            (Some(_), None) => v.acknowledged += 1,
            (None, None) => {
                v.ambiguous += 1;
                v.ambiguous_unknown_key += 1;
            }
            // A retry that was acknowledged under the same key tells
            // nothing about the failed attempt: it is not counted as one.
            (None, Some(k)) if acked.contains(&k) => {}
            (None, Some(k)) => {
                v.ambiguous += 1;
                if found.contains_key(&k) {
                    v.ambiguous_committed += 1;
                }
            }
        }
    }
    v
}

fn judge_last_write(recs: &[Rec], found: &Found) -> Verdict {
    let mut v = Verdict::default();
    let mut by_key: HashMap<Key, Vec<&Rec>> = HashMap::new();
    for r in recs {
        match r.key {
            Some(k) => by_key.entry(k).or_default().push(r),
            None => {
                v.ambiguous += 1;
                v.ambiguous_unknown_key += 1;
            }
        }
    }
    let mut keys: Vec<&Key> = by_key.keys().collect();
    keys.sort_unstable();
    for k in keys {
        let writes = &by_key[k];
        let fin = found.get(k).copied();
        let acked: Vec<&&Rec> = writes.iter().filter(|r| r.acked_us.is_some()).collect();
        v.acknowledged += acked.len() as u64;
        v.checked += acked.len() as u64;
        for r in writes.iter().filter(|r| r.acked_us.is_none()) {
            v.ambiguous += 1;
            if fin == Some(r.token) {
                v.ambiguous_committed += 1;
            }
        }
        let Some(latest) = acked.iter().max_by_key(|r| r.acked_us) else { continue };
        // The final value is the latest acknowledged write's, or that of a
        // write (acknowledged or not) whose commit may have come after it
        // (its acknowledgement, if any, came after the latest was sent).
        let ok = fin.is_some_and(|t| writes.iter().any(|w| w.token == t && (w.token == latest.token || w.acked_us.is_none_or(|a| a > latest.sent_us))));
        if !ok {
            v.lost += 1;
            v.lost_keys.push(*k);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(token: u64, sent: u64, acked: Option<u64>, id: i64) -> Rec {
        Rec { client: 0, token, sent_us: sent, acked_us: acked, key: Some([1, id, 0, 0]) }
    }

    #[test]
    fn inserted_rows_missing_are_lost_and_ambiguous_ones_counted_apart() {
        let recs = vec![rec(1, 0, Some(5), 10), rec(2, 6, Some(9), 11), rec(3, 10, None, 12), rec(4, 12, None, 13), Rec { key: None, ..rec(5, 13, None, 0) }];
        let found: Found = [([1, 10, 0, 0], 0), ([1, 12, 0, 0], 0)].into_iter().collect();
        let v = judge(CheckKind::Inserted, &recs, &found);
        assert_eq!((v.acknowledged, v.checked, v.lost), (2, 2, 1));
        assert_eq!(v.lost_keys, vec![[1, 11, 0, 0]]);
        assert_eq!((v.ambiguous, v.ambiguous_committed, v.ambiguous_unknown_key), (3, 1, 1));
    }

    #[test]
    fn last_write_accepts_the_latest_ack_or_a_write_that_may_follow_it() {
        // Key 1: acked at 10 then 20; the final token is the second's.
        // Key 2: latest acked sent at 30; an unacknowledged write sent at 25 may have committed after it.
        // Key 3: the final token is an earlier acked write's: the latest is lost.
        // Key 4: the row is gone.
        let recs = vec![rec(1, 5, Some(10), 1), rec(2, 15, Some(20), 1), rec(3, 30, Some(40), 2), rec(4, 25, None, 2), rec(5, 1, Some(2), 3), rec(6, 3, Some(4), 3), rec(7, 1, Some(2), 4)];
        let found: Found = [([1, 1, 0, 0], 2), ([1, 2, 0, 0], 4), ([1, 3, 0, 0], 5)].into_iter().collect();
        let v = judge(CheckKind::LastWrite, &recs, &found);
        assert_eq!((v.acknowledged, v.checked), (6, 6));
        assert_eq!(v.lost_keys, vec![[1, 3, 0, 0], [1, 4, 0, 0]]);
        assert_eq!((v.ambiguous, v.ambiguous_committed), (1, 1));
    }

    #[test]
    fn a_log_reads_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.log");
        let header = LogHeader {
            workload: "w".into(),
            options: vec![("tables".into(), "2".into())],
            check: CheckKind::Inserted,
            key_names: vec!["table".into(), "id".into()],
            target: "t".into(),
            started_at: "now".into(),
            run_id: Some(3),
            results: Some(PathBuf::from("/r/results.db")),
        };
        let log = WriteLog::create(&path, &header).unwrap();
        {
            let _first = log.recorder();
            let mut r = log.recorder();
            let t = r.token();
            r.write(Some([1, 2, 0, 0]), t);
            r.commit_sent();
            r.acknowledged();
            // Failed before its COMMIT: dropped.
            r.write(Some([1, 3, 0, 0]), r.seq);
            r.settle();
            // A COMMIT the server refused (a deadlock, a certification
            // failure) did not commit: dropped, never ambiguous.
            r.write(Some([1, 4, 0, 0]), 8);
            r.commit_sent();
            r.commit_failed(&DbError { kind: ErrKind::Retryable, code: "1213".into(), message: "deadlock".into() });
            r.settle();
            // Failed after: unknown, key never learnt.
            r.write(None, 9);
            r.commit_sent();
        }
        log.flush().unwrap();
        let back = read(&path).unwrap();
        assert_eq!(back.header.run_id, Some(3));
        assert_eq!(back.header.results, Some(PathBuf::from("/r/results.db")));
        assert_eq!(back.recs.len(), 2);
        assert_eq!(back.recs[0].key, Some([1, 2, 0, 0]));
        assert!(back.recs[0].acked_us.is_some());
        assert_eq!((back.recs[1].key, back.recs[1].acked_us, back.recs[1].client), (None, None, 1));
        std::fs::write(&path, "# fairbench write log 1\n{}\n").unwrap();
        assert!(matches!(read(&path), Err(Error::Usage(_))));
    }

    #[test]
    fn tokens_read_back_from_text() {
        let mut b = [b'x'; 20];
        token_text(0xdead_beef_0000_0001, &mut b);
        assert_eq!(parse_token(std::str::from_utf8(&b).unwrap()), 0xdead_beef_0000_0001);
        assert_eq!(parse_token("12345678901-"), 0);
    }
}
