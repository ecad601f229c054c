//! The spec's rows: TPC-C's strings, addresses and per-table row
//! generators, and the loaders that send one table's rows of one
//! warehouse (or the items) through the engine's bulk path.

use super::*;

/// Random alphanumeric string of length [lo, hi] (TPC-C's a-string).
pub fn astr(rng: &mut Rng, lo: u64, hi: u64, out: &mut Vec<u8>) {
    out.clear();
    let n = rng.uniform(lo, hi) as usize;
    let mut bits = 0u64;
    let mut left = 0;
    for _ in 0..n {
        if left == 0 {
            bits = rng.next_u64();
            left = 10;
        }
        out.push(ALNUM[((bits & 63) % 62) as usize]);
        bits >>= 6;
        left -= 1;
    }
}

/// Random digit string of length n (TPC-C's n-string).
fn nstr(rng: &mut Rng, n: usize, out: &mut Vec<u8>) {
    out.clear();
    for _ in 0..n {
        out.push(b'0' + rng.uniform(0, 9) as u8);
    }
}

/// 10% of i_data / s_data carry "ORIGINAL" at a random position.
fn data_original(rng: &mut Rng, out: &mut Vec<u8>) {
    astr(rng, 26, 50, out);
    if rng.uniform(1, 10) == 1 {
        let pos = rng.uniform(0, out.len() as u64 - 8) as usize;
        out[pos..pos + 8].copy_from_slice(b"ORIGINAL");
    }
}

fn col(name: &str, ty: ColType) -> Column {
    Column { name: name.into(), ty }
}

/// Rows produced by a closure, with progress reported every few thousand rows.
struct Gen<F: FnMut(&mut Row) -> bool + Send> {
    f: F,
    progress: Arc<Progress>,
    pending: u64,
    /// Once exhausted, stay exhausted (bulk paths may ask again).
    done: bool,
}

impl<F: FnMut(&mut Row) -> bool + Send> Gen<F> {
    fn new(progress: &Arc<Progress>, f: F) -> Self {
        Gen { f, progress: progress.clone(), pending: 0, done: false }
    }
}

/// Walks (district, number) over a warehouse's ten districts, numbers
/// `first..=last` in each: customers and their history rows, orders, new
/// orders.
struct Districts {
    dist: usize,
    n: usize,
    first: usize,
    last: usize,
}

impl Districts {
    fn new(first: usize, last: usize) -> Self {
        Districts { dist: 1, n: first - 1, first, last }
    }

    fn next(&mut self) -> Option<(usize, usize)> {
        self.n += 1;
        if self.n > self.last {
            self.n = self.first;
            self.dist += 1;
        }
        (self.dist <= 10).then_some((self.dist, self.n))
    }
}

impl<F: FnMut(&mut Row) -> bool + Send> RowSource for Gen<F> {
    fn next_row(&mut self, row: &mut Row) -> bool {
        row.nulls = 0;
        if self.done || !(self.f)(row) {
            self.done = true;
            self.progress.add(self.pending);
            self.pending = 0;
            return false;
        }
        self.pending += 1;
        if self.pending >= 4096 {
            self.progress.add(self.pending);
            self.pending = 0;
        }
        true
    }
}

fn set_texts(row: &mut Row, n: usize) {
    row.ints.clear();
    row.texts.resize(n, Vec::new());
}

impl Tpcc {
    fn rng_for(&self, d: u32, w: u32, table: u64) -> Rng {
        Rng::from_seed(self.load_seed, ((d as u64) << 40) ^ ((w as u64) << 8) ^ table)
    }

    pub(super) async fn load_items(&self, conn: &mut Conn, d: u32, mode: LoadMode, progress: &Arc<Progress>) -> Result<()> {
        let n = &self.names[d as usize - 1];
        let cols = [col("i_id", ColType::Int), col("i_im_id", ColType::Int), col("i_name", ColType::Text), col("i_price", ColType::Numeric(2)), col("i_data", ColType::Text)];
        let mut rng = self.rng_for(d, 0, 9);
        let mut i = 0u32;
        let mut src = Gen::new(progress, |row: &mut Row| {
            if i >= ITEMS {
                return false;
            }
            i += 1;
            set_texts(row, 2);
            row.ints.extend([i as i64, rng.uniform(1, 10_000) as i64]);
            astr(&mut rng, 14, 24, &mut row.texts[0]);
            row.ints.push(rng.uniform(100, 10_000) as i64);
            data_original(&mut rng, &mut row.texts[1]);
            true
        });
        bulk(conn, &n.item, &cols, &mut src, self.common.load_bulk_size, mode).await
    }

    /// One table's rows of warehouse `w`, after removing what an
    /// interrupted load left of them when `clear`.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn load_part(&self, conn: &mut Conn, d: u32, w: u32, part: Part, clear: bool, mode: LoadMode, progress: &Arc<Progress>) -> Result<()> {
        let n = &self.names[d as usize - 1];
        let bulk_rows = self.common.load_bulk_size;
        if clear {
            ddl(conn, &format!("DELETE FROM {} WHERE {} = {w}", part.table(n), part.w_col())).await?;
        }
        let now = self.load_time;
        let wi = w as i64;
        let force_null = self.schema.force_null;
        match part {
            Part::Stock => {
                let mut cols = vec![col("s_i_id", ColType::Int), col("s_w_id", ColType::SmallInt), col("s_quantity", ColType::SmallInt)];
                for k in 1..=10 {
                    cols.push(col(&format!("s_dist_{k:02}"), ColType::Text));
                }
                cols.extend([col("s_ytd", ColType::Numeric(0)), col("s_order_cnt", ColType::SmallInt), col("s_remote_cnt", ColType::SmallInt), col("s_data", ColType::Text)]);
                let mut rng = self.rng_for(d, w, 1);
                let mut i = 0u32;
                let mut src = Gen::new(progress, |row: &mut Row| {
                    if i >= ITEMS {
                        return false;
                    }
                    i += 1;
                    set_texts(row, 11);
                    row.ints.extend([i as i64, wi, rng.uniform(10, 100) as i64, 0, 0, 0]);
                    for k in 0..10 {
                        astr(&mut rng, 24, 24, &mut row.texts[k]);
                    }
                    data_original(&mut rng, &mut row.texts[10]);
                    true
                });
                bulk(conn, &n.stock, &cols, &mut src, bulk_rows, mode).await
            }
            Part::Customer => {
                // CUSTOMER (3000 per district; last names sequential, then NURand(255))
                let cols = [
                    col("c_id", ColType::Int),
                    col("c_d_id", ColType::SmallInt),
                    col("c_w_id", ColType::SmallInt),
                    col("c_first", ColType::Text),
                    col("c_middle", ColType::Text),
                    col("c_last", ColType::Text),
                    col("c_street_1", ColType::Text),
                    col("c_street_2", ColType::Text),
                    col("c_city", ColType::Text),
                    col("c_state", ColType::Text),
                    col("c_zip", ColType::Text),
                    col("c_phone", ColType::Text),
                    col("c_since", ColType::Timestamp),
                    col("c_credit", ColType::Text),
                    col("c_credit_lim", ColType::BigInt),
                    col("c_discount", ColType::Numeric(4)),
                    col("c_balance", ColType::Numeric(2)),
                    col("c_ytd_payment", ColType::Numeric(2)),
                    col("c_payment_cnt", ColType::SmallInt),
                    col("c_delivery_cnt", ColType::SmallInt),
                    col("c_data", ColType::Text),
                ];
                let mut rng = self.rng_for(d, w, 2);
                let mut walk = Districts::new(1, 3000);
                let mut src = Gen::new(progress, |row: &mut Row| {
                    let Some((dist, c)) = walk.next() else { return false };
                    set_texts(row, 11);
                    let t = &mut row.texts;
                    astr(&mut rng, 8, 16, &mut t[0]);
                    t[1].clear();
                    t[1].extend_from_slice(b"OE");
                    let ln = if c <= 1000 { c as u64 - 1 } else { nurand(&mut rng, 255, C_LOAD_LAST, 0, 999) };
                    t[2].clear();
                    t[2].extend_from_slice(last_name(ln).as_bytes());
                    astr(&mut rng, 10, 20, &mut t[3]);
                    astr(&mut rng, 10, 20, &mut t[4]);
                    astr(&mut rng, 10, 20, &mut t[5]);
                    astr(&mut rng, 2, 2, &mut t[6]);
                    nstr(&mut rng, 4, &mut t[7]);
                    t[7].extend_from_slice(b"11111");
                    nstr(&mut rng, 16, &mut t[8]);
                    t[9].clear();
                    t[9].extend_from_slice(if rng.uniform(1, 100) <= 10 { b"BC" } else { b"GC" });
                    astr(&mut rng, 300, 500, &mut t[10]);
                    row.ints.extend([c as i64, dist as i64, wi, now, 50_000, rng.uniform(0, 5000) as i64, -1000, 1000, 1, 0]);
                    true
                });
                bulk(conn, &n.customer, &cols, &mut src, bulk_rows, mode).await
            }
            Part::History => {
                // HISTORY (one per customer)
                let cols = [
                    col("h_c_id", ColType::Int),
                    col("h_c_d_id", ColType::SmallInt),
                    col("h_c_w_id", ColType::SmallInt),
                    col("h_d_id", ColType::SmallInt),
                    col("h_w_id", ColType::SmallInt),
                    col("h_date", ColType::Timestamp),
                    col("h_amount", ColType::Numeric(2)),
                    col("h_data", ColType::Text),
                ];
                let mut rng = self.rng_for(d, w, 3);
                let mut walk = Districts::new(1, 3000);
                let mut src = Gen::new(progress, |row: &mut Row| {
                    let Some((dist, c)) = walk.next() else { return false };
                    set_texts(row, 1);
                    row.ints.extend([c as i64, dist as i64, wi, dist as i64, wi, now, 1000]);
                    astr(&mut rng, 12, 24, &mut row.texts[0]);
                    true
                });
                bulk(conn, &n.history, &cols, &mut src, bulk_rows, mode).await
            }
            Part::Orders => {
                // ORDERS with a shuffled customer per district, and their line counts.
                let (mut rng, perms, ol_cnt) = self.order_shapes(d, w);
                let cols = [
                    col("o_id", ColType::Int),
                    col("o_d_id", ColType::SmallInt),
                    col("o_w_id", ColType::SmallInt),
                    col("o_c_id", ColType::Int),
                    col("o_entry_d", ColType::Timestamp),
                    col("o_carrier_id", ColType::SmallInt),
                    col("o_ol_cnt", ColType::SmallInt),
                    col("o_all_local", ColType::SmallInt),
                ];
                let mut walk = Districts::new(1, 3000);
                let mut src = Gen::new(progress, |row: &mut Row| {
                    let Some((dist, o)) = walk.next() else { return false };
                    set_texts(row, 0);
                    let delivered = o <= 2100;
                    let carrier = if delivered { rng.uniform(1, 10) as i64 } else { 0 };
                    if !delivered && force_null {
                        row.nulls |= 1 << 5;
                    }
                    row.ints.extend([o as i64, dist as i64, wi, perms[dist - 1][o - 1] as i64, now, carrier, ol_cnt[(dist - 1) * 3000 + o - 1] as i64, 1]);
                    true
                });
                bulk(conn, &n.orders, &cols, &mut src, bulk_rows, mode).await
            }
            Part::NewOrders => {
                // NEW_ORDERS: the last 900 orders of each district.
                let cols = [col("no_o_id", ColType::Int), col("no_d_id", ColType::SmallInt), col("no_w_id", ColType::SmallInt)];
                let mut walk = Districts::new(2101, 3000);
                let mut src = Gen::new(progress, |row: &mut Row| {
                    let Some((dist, o)) = walk.next() else { return false };
                    set_texts(row, 0);
                    row.ints.extend([o as i64, dist as i64, wi]);
                    true
                });
                bulk(conn, &n.new_orders, &cols, &mut src, bulk_rows, mode).await
            }
            Part::OrderLine => {
                // ORDER_LINE, with the line counts ORDERS drew
                let (_, _, ol_cnt) = self.order_shapes(d, w);
                let cols = [
                    col("ol_o_id", ColType::Int),
                    col("ol_d_id", ColType::SmallInt),
                    col("ol_w_id", ColType::SmallInt),
                    col("ol_number", ColType::SmallInt),
                    col("ol_i_id", ColType::Int),
                    col("ol_supply_w_id", ColType::SmallInt),
                    col("ol_delivery_d", ColType::Timestamp),
                    col("ol_quantity", ColType::SmallInt),
                    col("ol_amount", ColType::Numeric(2)),
                    col("ol_dist_info", ColType::Text),
                ];
                let mut rng = self.rng_for(d, w, 5);
                let (mut dist, mut o, mut l) = (1usize, 1usize, 0u8);
                let mut src = Gen::new(progress, |row: &mut Row| {
                    l += 1;
                    if l > ol_cnt[(dist - 1) * 3000 + o - 1] {
                        l = 1;
                        o += 1;
                        if o > 3000 {
                            o = 1;
                            dist += 1;
                        }
                    }
                    if dist > 10 {
                        return false;
                    }
                    set_texts(row, 1);
                    let delivered = o <= 2100;
                    if !delivered && force_null {
                        row.nulls |= 1 << 6;
                    }
                    let amount = if delivered { 0 } else { rng.uniform(1, 999_999) as i64 };
                    row.ints.extend([o as i64, dist as i64, wi, l as i64, rng.uniform(1, ITEMS as u64) as i64, wi, if delivered { now } else { 0 }, 5, amount]);
                    astr(&mut rng, 24, 24, &mut row.texts[0]);
                    true
                });
                bulk(conn, &n.order_line, &cols, &mut src, bulk_rows, mode).await
            }
            Part::District => {
                let cols = [
                    col("d_id", ColType::SmallInt),
                    col("d_w_id", ColType::SmallInt),
                    col("d_name", ColType::Text),
                    col("d_street_1", ColType::Text),
                    col("d_street_2", ColType::Text),
                    col("d_city", ColType::Text),
                    col("d_state", ColType::Text),
                    col("d_zip", ColType::Text),
                    col("d_tax", ColType::Numeric(4)),
                    col("d_ytd", ColType::Numeric(2)),
                    col("d_next_o_id", ColType::Int),
                ];
                let mut rng = self.rng_for(d, w, 6);
                let mut dist = 0i64;
                let mut src = Gen::new(progress, |row: &mut Row| {
                    dist += 1;
                    if dist > 10 {
                        return false;
                    }
                    set_texts(row, 6);
                    address(&mut rng, &mut row.texts);
                    row.ints.extend([dist, wi, rng.uniform(0, 2000) as i64, 3_000_000, 3001]);
                    true
                });
                bulk(conn, &n.district, &cols, &mut src, bulk_rows, mode).await
            }
        }
    }

    /// Each district's shuffled customers and each order's line count,
    /// drawn from the ORDERS stream, which goes on to draw the carriers;
    /// ORDER_LINE draws them again to agree with ORDERS.
    fn order_shapes(&self, d: u32, w: u32) -> (Rng, Vec<Vec<u32>>, Vec<u8>) {
        let mut rng = self.rng_for(d, w, 4);
        let mut perms: Vec<Vec<u32>> = Vec::with_capacity(10);
        let mut ol_cnt: Vec<u8> = Vec::with_capacity(30_000);
        for _ in 0..10 {
            let mut p: Vec<u32> = (1..=3000).collect();
            for i in (1..p.len()).rev() {
                let j = rng.uniform(0, i as u64) as usize;
                p.swap(i, j);
            }
            perms.push(p);
            for _ in 0..3000 {
                ol_cnt.push(rng.uniform(5, 15) as u8);
            }
        }
        (rng, perms, ol_cnt)
    }

    /// The WAREHOUSE rows of warehouses `ws`, written once all their other
    /// rows are: a WAREHOUSE row marks its warehouse complete.
    pub(super) async fn load_warehouse_rows(&self, conn: &mut Conn, d: u32, ws: &[u32], mode: LoadMode, progress: &Arc<Progress>) -> Result<()> {
        let n = &self.names[d as usize - 1];
        let cols = [
            col("w_id", ColType::SmallInt),
            col("w_name", ColType::Text),
            col("w_street_1", ColType::Text),
            col("w_street_2", ColType::Text),
            col("w_city", ColType::Text),
            col("w_state", ColType::Text),
            col("w_zip", ColType::Text),
            col("w_tax", ColType::Numeric(4)),
            col("w_ytd", ColType::Numeric(2)),
        ];
        let mut next = ws.iter();
        let mut src = Gen::new(progress, |row: &mut Row| {
            let Some(&w) = next.next() else { return false };
            let mut rng = self.rng_for(d, w, 7);
            let wi = w as i64;
            set_texts(row, 6);
            address(&mut rng, &mut row.texts);
            row.ints.extend([wi, rng.uniform(0, 2000) as i64, 30_000_000]);
            true
        });
        bulk(conn, &n.warehouse, &cols, &mut src, self.common.load_bulk_size, mode).await
    }
}

/// name, street 1/2, city, state, zip into texts[0..6].
fn address(rng: &mut Rng, t: &mut [Vec<u8>]) {
    astr(rng, 6, 10, &mut t[0]);
    astr(rng, 10, 20, &mut t[1]);
    astr(rng, 10, 20, &mut t[2]);
    astr(rng, 10, 20, &mut t[3]);
    astr(rng, 2, 2, &mut t[4]);
    nstr(rng, 4, &mut t[5]);
    t[5].extend_from_slice(b"11111");
}
