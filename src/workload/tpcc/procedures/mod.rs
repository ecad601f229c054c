//! `--tpcc-shape procedures`: each transaction one call of a stored routine, as HammerDB's
//! TPROC-C sends it. The routines are created at prepare (and at the start of a run, where they
//! are missing) in the engine's own language: MySQL-family procedures that loop over an order's
//! lines as HammerDB's MySQL ones do (psm.sql), PL/pgSQL functions that are set-based as
//! HammerDB's PostgreSQL ones are (plpgsql.sql).
//!
//! Where they depart from HammerDB's, to run the same transactions as the other shapes: the
//! client draws the inputs (HammerDB's New-Order draws items uniformly inside the procedure,
//! where TPC-C asks NURand), so `--seed`, the mix and `check` hold; every stock column TPC-C
//! updates is updated (HammerDB's update only s_quantity); a line's amount is its quantity times
//! the item's price, as in the other shapes; an error rolls back and reaches the client (HammerDB's
//! MySQL procedures roll back silently on a constraint violation). On PostgreSQL a function
//! cannot end its own transaction, so New-Order's unused item is found before anything is
//! written and the function returns -1 instead of rolling back.

use super::batched::Line;
use super::schema::Names;
use super::{int, Tpcc, TpccClient};
use crate::db::{Class, Conn, ConnConfig, DbResult, Param, Procedural, StatementSet, StmtId};
use crate::error::Result;
use crate::workload::common::{ddl, first_number};
use crate::workload::{witness, Counters};

/// The routines' names in their templates, in the order they are created.
const ROUTINES: [&str; 5] = ["neword", "payment", "ostat", "delivery", "slev"];

fn template(lang: Procedural) -> &'static str {
    match lang {
        Procedural::SqlPsm => include_str!("psm.sql"),
        Procedural::PlPgSql => include_str!("plpgsql.sql"),
    }
}

/// A routine's name in dataset `n`: HammerDB's name with the tables' prefix and number.
fn routine(n: &Names, name: &str) -> String {
    format!("{}{name}{}", n.prefix, n.n)
}

/// The statements that drop and create dataset `n`'s routines; `lock` is the locking-read
/// suffix the other shapes give their stock and customer reads (`--for-update`).
pub fn create(n: &Names, lang: Procedural, lock: &str) -> Vec<String> {
    let fill = |sql: &str| {
        let mut s = sql.to_string();
        for (token, table) in [
            ("warehouse", &n.warehouse),
            ("district", &n.district),
            ("customer", &n.customer),
            ("history", &n.history),
            ("orders", &n.orders),
            ("new_orders", &n.new_orders),
            ("order_line", &n.order_line),
            ("stock", &n.stock),
            ("item", &n.item),
        ] {
            s = s.replace(&format!("{{{token}}}"), table);
        }
        for r in ROUTINES {
            s = s.replace(&format!("{{{r}}}"), &routine(n, r));
        }
        s.replace("{lock}", lock)
    };
    let mut out = dropping(n, lang);
    out.extend(template(lang).split("-- routine: ").skip(1).map(|part| fill(part.split_once('\n').map_or("", |p| p.1).trim())));
    out
}

/// The statements that drop dataset `n`'s routines, where they exist.
pub fn dropping(n: &Names, lang: Procedural) -> Vec<String> {
    let kind = match lang {
        Procedural::SqlPsm => "PROCEDURE",
        Procedural::PlPgSql => "FUNCTION",
    };
    ROUTINES.iter().map(|r| format!("DROP {kind} IF EXISTS {}", routine(n, r))).collect()
}

/// How many of dataset `n`'s routines the server holds: a query of its catalog.
pub fn count_query(n: &Names, lang: Procedural) -> String {
    let names = ROUTINES.iter().map(|r| format!("'{}'", routine(n, r).to_lowercase())).collect::<Vec<_>>().join(", ");
    match lang {
        Procedural::SqlPsm => format!("SELECT COUNT(*) FROM information_schema.routines WHERE routine_schema = DATABASE() AND LOWER(routine_name) IN ({names})"),
        Procedural::PlPgSql => format!("SELECT COUNT(*) FROM pg_proc WHERE pronamespace = ANY (current_schemas(false)::regnamespace[]) AND proname IN ({names})"),
    }
}

/// The five calls of one dataset, prepared like any statement.
#[derive(Clone, Debug)]
pub struct Calls {
    neword: StmtId,
    pub payment: StmtId,
    pub ostat: StmtId,
    pub delivery: StmtId,
    pub slev: StmtId,
}

impl Calls {
    pub fn new(set: &mut StatementSet, n: &Names, lang: Procedural) -> Calls {
        let mut call = |name: &str, args: usize| {
            let params = vec!["?"; args].join(", ");
            let sql = match lang {
                Procedural::SqlPsm => format!("CALL {}({params})", routine(n, name)),
                Procedural::PlPgSql => format!("SELECT * FROM {}({params})", routine(n, name)),
            };
            set.add(sql, true)
        };
        Calls { neword: call("neword", 8), payment: call("payment", 8), ostat: call("ostat", 5), delivery: call("delivery", 2), slev: call("slev", 3) }
    }
}

/// A customer of Payment and Order-Status: by number, or by last name where one is given, as
/// the routines take them (number, 1 or 0, name).
pub fn customer(cid: i64, last: Option<&str>) -> [Param<'_>; 3] {
    [Param::Int(cid), Param::Int(i64::from(last.is_some())), Param::Text(last.unwrap_or(""))]
}

/// Values of a list parameter, comma-separated: both languages split the text themselves.
fn listed(lines: &[Line], field: impl Fn(&Line) -> i64) -> String {
    lines.iter().map(|l| field(l).to_string()).collect::<Vec<_>>().join(",")
}

impl Tpcc {
    /// Creates every dataset's routines (prepare), or with `only_missing` those of the datasets
    /// that lack any (a run's start: data prepared with another shape runs as it is); `say`
    /// tells the user of each dataset's.
    pub(super) async fn install_routines(&self, conn: &mut Conn, cfg: &ConnConfig, only_missing: bool, say: &dyn Fn(String)) -> Result<()> {
        let lang = super::procedural(cfg.engine())?;
        let lock = if self.common.for_update >= 1 { self.dialect().for_update() } else { "" };
        for n in &self.names {
            if only_missing {
                let sql = count_query(n, lang);
                let held = conn.query_strings(&sql).await.map_err(crate::db::sql_error(&sql))?;
                if first_number(&held) == ROUTINES.len() as u64 {
                    continue;
                }
            }
            say(format!("Creating the TPC-C stored routines of dataset {} ({}, ...)...", n.n, routine(n, ROUTINES[0])));
            for sql in create(n, lang, lock) {
                ddl(conn, &sql).await?;
            }
        }
        Ok(())
    }

    /// Drops every dataset's routines where the engine has them (cleanup, whatever the shape).
    pub(super) async fn drop_routines(&self, conn: &mut Conn, cfg: &ConnConfig, quiet: bool) -> Result<()> {
        let Some(lang) = cfg.engine().procedural() else { return Ok(()) };
        for n in &self.names {
            if !quiet {
                println!("Dropping TPC-C stored routines of dataset {}...", n.n);
            }
            for sql in dropping(n, lang) {
                ddl(conn, &sql).await?;
            }
        }
        Ok(())
    }

    /// One call and its first value; `class`: what the routine does, for the counts.
    pub(super) async fn call(&self, conn: &mut Conn, q: &mut Counters, id: StmtId, p: &[Param<'_>], class: Class) -> DbResult<Option<i64>> {
        let rows = conn.exec_rows(id, p).await?;
        q.add(class);
        Ok(rows.first().and_then(|r| int(&r[0])))
    }

    /// New-Order as one call; the order's number comes back, or -1 where it rolled back.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn new_order_call(&self, conn: &mut Conn, c: &mut TpccClient, q: &mut Counters, p: &Calls, ds: u32, w: i64, d: i64, cid: i64, all_local: i64, lines: &[Line]) -> DbResult<()> {
        let (items, supply, qty) = (listed(lines, |l| l.0), listed(lines, |l| l.1), listed(lines, |l| l.2));
        let params = [Param::Int(w), Param::Int(d), Param::Int(cid), Param::Int(lines.len() as i64), Param::Int(all_local), Param::Text(&items), Param::Text(&supply), Param::Text(&qty)];
        if let Some(r) = &mut c.rec {
            // The order's number is learnt from the call, which is also its commit.
            r.write(None, 0);
            r.commit_sent();
        }
        let called = self.call(conn, q, p.neword, &params, Class::Write).await;
        let o_id = witness::committed(&mut c.rec, called)?.unwrap_or(0);
        if o_id <= 0 {
            q.rolled_back = true;
            if let Some(r) = &mut c.rec {
                r.unwrite();
                r.settle();
            }
            return Ok(());
        }
        if let Some(log) = self.commits.get() {
            log.committed(ds, w, d, o_id);
        }
        if let Some(r) = &mut c.rec {
            r.learnt_key([ds as i64, w, d, o_id]);
            r.acknowledged();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_routine_is_dropped_then_created_with_the_datasets_tables() {
        let n = Names::new("", 2);
        for lang in [Procedural::SqlPsm, Procedural::PlPgSql] {
            let sql = create(&n, lang, " FOR UPDATE");
            assert_eq!(sql.len(), 10, "{lang:?}: five drops and five creates");
            for (r, s) in ROUTINES.iter().zip(&sql[5..]) {
                assert!(s.starts_with(&format!("CREATE {} {r}2(", if lang == Procedural::SqlPsm { "PROCEDURE" } else { "FUNCTION" })), "{s}");
                assert!(!s.contains('{'), "a token left unfilled: {s}");
            }
            assert!(sql[5].contains("stock2") && sql[5].contains("order_line2"));
        }
    }
}
