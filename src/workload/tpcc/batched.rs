//! go-tpc's shape of New-Order's lines and of Delivery (see `shape`): lists where per-item sends
//! a statement per line or per district.

use super::shape::{Batched, MIN_LINES};
use super::{cents, int, missing, Stmts, Tpcc};
use crate::db::{Conn, DbResult, Param};
use crate::workload::Counters;
use std::collections::HashMap;

/// An order line as New-Order draws it: (item, supply warehouse, quantity).
pub(super) type Line = (i64, i64, i64);

/// The column of `s_dist_01` in the stock list's rows (after s_i_id, s_quantity, s_data).
const FIRST_DIST: usize = 3;

impl Tpcc {
    /// The order's lines in go-tpc's statements: its items in one IN list, their stock rows
    /// locked in another, a stock update per line, the lines in one INSERT. False: an item
    /// is unused (TPC-C's 1% of New-Orders that roll back), and nothing was written for lines.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn lines_batched(&self, conn: &mut Conn, q: &mut Counters, b: &Batched, st: &Stmts, d: i64, w: i64, o_id: i64, lines: &[Line]) -> DbResult<bool> {
        let k = lines.len() - MIN_LINES;
        let ids: Vec<Param> = lines.iter().map(|l| Param::Int(l.0)).collect();
        let items = self.rows(conn, q, b.items[k], &ids).await?;
        if items.len() < lines.len() {
            return Ok(false);
        }
        let price: HashMap<i64, i64> = items.iter().filter_map(|r| Some((int(&r[0])?, cents(&r[1])))).collect();
        let pairs: Vec<Param> = lines.iter().flat_map(|l| [Param::Int(l.1), Param::Int(l.0)]).collect();
        let stock = self.rows(conn, q, b.stock[k], &pairs).await?;
        // Items are distinct within an order, so an item names its stock row.
        let stock: HashMap<i64, &Vec<Option<String>>> = stock.iter().filter_map(|r| Some((int(&r[0])?, r))).collect();
        let mut dist_info = Vec::with_capacity(lines.len());
        for &(item, supply, qty) in lines {
            let s = stock.get(&item).ok_or_else(|| missing("stock", supply, item))?;
            let s_qty = int(&s[1]).unwrap_or(0);
            let new_qty = if s_qty >= qty + 10 { s_qty - qty } else { s_qty - qty + 91 };
            dist_info.push(s[FIRST_DIST + d as usize - 1].clone().unwrap_or_default());
            self.x(conn, q, st.no_stock_upd, &[Param::Int(new_qty), Param::Int(qty), Param::Int(i64::from(supply != w)), Param::Int(item), Param::Int(supply)]).await?;
        }
        let mut values = Vec::with_capacity(lines.len() * 9);
        for (n, (&(item, supply, qty), info)) in lines.iter().zip(&dist_info).enumerate() {
            let amount = qty * price.get(&item).copied().unwrap_or(0);
            values.extend([Param::Int(o_id), Param::Int(d), Param::Int(w), Param::Int(n as i64 + 1), Param::Int(item), Param::Int(supply), Param::Int(qty), Param::Int(amount), Param::Text(info)]);
        }
        self.x(conn, q, b.lines[k], &values).await?;
        Ok(true)
    }

    /// Delivery in go-tpc's statements: each district's oldest new order read and locked, then
    /// the ten orders deleted from new_order, given their carrier, read for their customers,
    /// their lines marked delivered and summed, each with one statement; a customer update per
    /// order delivered. A district without an undelivered order is in the lists as order 0,
    /// which matches nothing, as go-tpc sends it.
    pub(super) async fn delivery_batched(&self, conn: &mut Conn, q: &mut Counters, b: &Batched, st: &Stmts, w: i64, carrier: i64) -> DbResult<()> {
        let mut oldest = [0i64; 10];
        for (d, o) in oldest.iter_mut().enumerate() {
            let r = self.rows(conn, q, b.oldest, &[Param::Int(w), Param::Int(d as i64 + 1)]).await?;
            *o = r.first().and_then(|r| int(&r[0])).unwrap_or(0);
        }
        let keys: Vec<Param> = oldest.iter().enumerate().flat_map(|(d, &o)| [Param::Int(w), Param::Int(d as i64 + 1), Param::Int(o)]).collect();
        self.x(conn, q, b.delete_new, &keys).await?;
        let with_carrier: Vec<Param> = std::iter::once(Param::Int(carrier)).chain(keys.iter().cloned()).collect();
        self.x(conn, q, b.carrier, &with_carrier).await?;
        let mut customer = [0i64; 10];
        for r in self.rows(conn, q, b.customers, &keys).await? {
            if let (Some(d), Some(c)) = (int(&r[0]), int(&r[1])) {
                customer[(d - 1).clamp(0, 9) as usize] = c;
            }
        }
        self.x(conn, q, b.delivered, &keys).await?;
        let mut total = [0i64; 10];
        for r in self.rows(conn, q, b.amounts, &keys).await? {
            if let Some(d) = int(&r[0]) {
                total[(d - 1).clamp(0, 9) as usize] = cents(&r[1]);
            }
        }
        for d in 0..10 {
            if oldest[d] == 0 {
                continue;
            }
            if customer[d] == 0 {
                return Err(missing("order", w, oldest[d]));
            }
            self.x(conn, q, st.dl_c_upd, &[Param::Int(total[d]), Param::Int(w), Param::Int(d as i64 + 1), Param::Int(customer[d])]).await?;
        }
        Ok(())
    }
}
