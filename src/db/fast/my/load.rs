//! LOAD DATA LOCAL INFILE fed from memory, for prepare's bulk load.

use super::*;

impl BulkConn for MyFast {
    async fn load_infile(&mut self, q: &str, data: &[u8]) -> DbResult<()> {
        self.start(0x03);
        self.w.extend_from_slice(q.as_bytes());
        self.command().await?;
        let p = self.next().await.map_err(lost)?;
        let pl = self.payload(p);
        match pl.first() {
            Some(0xfb) => {}
            Some(0xff) => {
                let e = server_error(pl);
                self.broken = false;
                return Err(e);
            }
            _ => return Err(bad_packet()),
        }
        // The data in packets of at most 16 MB, then an empty packet.
        let mut seq = self.seq;
        for ch in data.chunks(MAX_PAYLOAD - 1) {
            self.w.clear();
            self.w.extend_from_slice(&(ch.len() as u32).to_le_bytes()[..3]);
            self.w.push(seq);
            seq = seq.wrapping_add(1);
            self.w.extend_from_slice(ch);
            self.sock.send(&self.w).await.map_err(lost)?;
        }
        self.w.clear();
        self.w.extend_from_slice(&[0, 0, 0, seq]);
        self.sock.send(&self.w).await.map_err(lost)?;
        self.results(Collect::Nothing).await.map(|_| ())
    }

    async fn run(&mut self, sql: &str) -> DbResult<()> {
        self.query(sql).await.map(|_| ())
    }

    async fn infile_allowed(&mut self) -> bool {
        matches!(self.query_rows("SELECT @@GLOBAL.local_infile").await.as_deref(), Ok([r, ..]) if matches!(r.first(), Some(Some(v)) if v == "1" || v.eq_ignore_ascii_case("ON")))
    }
}
