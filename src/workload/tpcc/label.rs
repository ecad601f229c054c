//! TPC-C's label tokens and canonical label, its part of the shared BMK
//! label grammar (`crate::label`), as BMK-kit names its sysbench-tpcc
//! scripts (`sb11-TPCC_1000W.sh`, `sb11-Prepare_TPCC_1000W-NULL-InnoDB-NoFK.sh`).
//!
//! | token      | settings |
//! |------------|----------|
//! | `1000W`    | `warehouses=1000`, `datasets=1` |
//! | `10x100W`  | `datasets=10`, `warehouses=100` (10 datasets of 100 warehouses each) |
//! | `NULL`     | `force-null=on`. Without it `force-null=off`: BMK's TPC-C uses DEFAULT values unless the name says NULL |
//! | `NoFK` / `NoFK2` | `fk=nofk` / `fk=nofk2`. Without either, `fk=fk`: BMK creates foreign keys unless the name says NoFK |
//! | engine, `ps`, `socket` | shared (`ps` absent means `db-ps-mode=disable`, like BMK's sysbench-tpcc, which sends plain queries) |
//! | `trx`      | accepted and sets nothing. TPC-C always runs in transactions, so `notrx` is an error |
//! | `GoTPC`    | `tpcc-shape=go-tpc`: go-tpc's statements (a run's label; without it, sysbench-tpcc's) |
//! | `Procs`    | `tpcc-shape=procedures`: a stored routine call per transaction, as HammerDB's TPROC-C (a run's label) |
//!
//! The OLTP family's tokens (distribution, query mix, `RsizeN`,
//! `reconnect`) do not apply to TPC-C and are rejected. A Prepare label
//! names the size, engine, `NULL`, `NoFK`/`NoFK2` and `socket`.
//!
//! Canonical form: `TPCC-[Dx]WW[-NULL][-ENGINE][-NoFK|-NoFK2][-GoTPC|-Procs][-ps][-socket]`,
//! and `Prepare-TPCC-…` without `ps` (e.g. `TPCC-10x100W-NULL-NoFK`,
//! `Prepare-TPCC-1000W-NULL-InnoDB-NoFK`). The InnoDB engine prints only in
//! a Prepare label, as in BMK's script names.

use crate::label::{engine_token, flag_value, parse_count, parse_size, Grammar, LabelError, Parser, ENGINE, ENGINE_LIST, PS_MODE, TRANSPORT};

const WAREHOUSES: &str = "warehouses";
const DATASETS: &str = "datasets";
const FORCE_NULL: &str = "force-null";
const FK: &str = "fk";
const SHAPE: &str = "tpcc-shape";

/// Decoded options come out in this order, whatever the token order was.
const OPTION_ORDER: [&str; 8] = [WAREHOUSES, DATASETS, ENGINE, FORCE_NULL, FK, SHAPE, PS_MODE, TRANSPORT];

/// One of TPC-C's tokens, classified by its shape alone.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Warehouses {
        datasets: u64,
        warehouses: u64,
    },
    Null,
    Fk(&'static str),
    /// (`--tpcc-shape` value, token): a run's statement shape.
    Shape(&'static str),
    Trx,
    NoTrx,
}

fn classify(tok: &str) -> Option<Result<Tok, String>> {
    let l = tok.to_ascii_lowercase();
    match l.as_str() {
        "null" => return Some(Ok(Tok::Null)),
        "nofk" => return Some(Ok(Tok::Fk("nofk"))),
        "nofk2" => return Some(Ok(Tok::Fk("nofk2"))),
        "gotpc" => return Some(Ok(Tok::Shape("go-tpc"))),
        "procs" => return Some(Ok(Tok::Shape("procedures"))),
        "trx" => return Some(Ok(Tok::Trx)),
        "notrx" => return Some(Ok(Tok::NoTrx)),
        _ => {}
    }
    if l.contains('=') {
        return None;
    }
    let body = l.strip_suffix('w')?;
    let (datasets, warehouses) = match body.split_once('x') {
        Some((d, w)) => (parse_count(d)?, parse_count(w)?),
        None => (1, parse_count(body)?),
    };
    if datasets == 0 || warehouses == 0 {
        return Some(Err(format!("'{tok}': TPC-C needs at least 1 dataset of at least 1 warehouse")));
    }
    Some(Ok(Tok::Warehouses { datasets, warehouses }))
}

/// TPC-C's part of the shared label grammar.
pub struct TpccGrammar;

impl Grammar for TpccGrammar {
    fn owner(&self) -> &'static str {
        "TPC-C"
    }

    fn classify(&self, tok: &str) -> Option<Result<(), String>> {
        classify(tok).map(|r| r.map(|_| ()))
    }

    fn apply(&self, p: &mut Parser, tok: &str) -> Result<String, LabelError> {
        let t = p.classified(tok, classify(tok))?;
        if t == Tok::NoTrx {
            return Err(p.err(tok, format!("'{tok}': TPC-C transactions always run inside BEGIN/COMMIT; TPCC takes {}", p.accepted())));
        }
        if p.prepare() && matches!(t, Tok::Trx | Tok::Shape(_)) {
            return Err(p.err(tok, format!("'{tok}' describes a run, but a Prepare label names only the dataset: {}", p.accepted())));
        }
        Ok(match t {
            Tok::Warehouses { datasets, warehouses } => {
                p.set(WAREHOUSES, warehouses.to_string(), tok)?;
                p.set(DATASETS, datasets.to_string(), tok)?;
                if datasets == 1 {
                    format!("one TPC-C dataset of {warehouses} warehouses")
                } else {
                    let total = datasets.saturating_mul(warehouses);
                    format!("{datasets} TPC-C datasets of {warehouses} warehouses each ({total} in total), used in parallel")
                }
            }
            Tok::Null => {
                p.set(FORCE_NULL, "on", tok)?;
                "NULL values as in the original TPC-C (more index lock contention than DEFAULT values)".into()
            }
            Tok::Fk(v) => {
                p.set(FK, v, tok)?;
                if v == "nofk" {
                    "no foreign keys (their secondary indexes are kept)".into()
                } else {
                    "no foreign keys and no secondary indexes for them".into()
                }
            }
            Tok::Shape(shape) => {
                p.set(SHAPE, shape, tok)?;
                if shape == "go-tpc" {
                    "go-tpc's statements: an order's items and stock in one IN list each, its lines in one INSERT (about 15 per transaction, against sysbench-tpcc's 29)".into()
                } else {
                    "HammerDB's TPROC-C shape: one stored routine call per transaction, created at prepare".into()
                }
            }
            Tok::Trx => {
                if let Some(prev) = p.remembered("trx") {
                    return Err(p.err(tok, format!("'{tok}' conflicts with '{prev}'; a label names trx at most once")));
                }
                p.remember("trx", tok);
                "TPC-C always runs its transactions inside BEGIN/COMMIT; accepted, sets nothing".into()
            }
            Tok::NoTrx => unreachable!("refused above"),
        })
    }

    fn finish(&self, p: &mut Parser) -> Result<(), LabelError> {
        p.imply(FORCE_NULL, "off", "(no NULL)", "no 'NULL' token: DEFAULT values instead of NULL (less index lock contention)");
        p.imply(FK, "fk", "(no NoFK)", "no 'NoFK'/'NoFK2' token: foreign keys are created");
        Ok(())
    }

    fn accepted(&self, prepare: bool) -> String {
        if prepare {
            format!("a size (1000W, 10x100W), NULL, NoFK or NoFK2, an engine ({ENGINE_LIST}), socket")
        } else {
            format!("a size (1000W, 10x100W), NULL, NoFK or NoFK2, an engine ({ENGINE_LIST}), GoTPC or Procs, ps, trx, socket")
        }
    }

    fn once_hint(&self, opt: &str) -> Option<String> {
        match opt {
            WAREHOUSES | DATASETS => Some("one TPC-C size such as 1000W or 10x100W".into()),
            FORCE_NULL => Some("NULL at most once".into()),
            FK => Some("at most one of NoFK and NoFK2".into()),
            SHAPE => Some("one of GoTPC and Procs, once".into()),
            _ => None,
        }
    }

    fn option_order(&self) -> &'static [&'static str] {
        &OPTION_ORDER
    }
}

/// The canonical label from the effective settings (`get` as for the shared
/// grammar; `command` = prepare gives a Prepare label).
pub fn canonical(get: &dyn Fn(&str) -> Option<String>) -> String {
    let val = |name: &str| get(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    let num = |name: &str| val(name).and_then(|v| parse_size(&v.to_ascii_lowercase()).flatten());
    let prepare = val("command").is_some_and(|c| c.eq_ignore_ascii_case("prepare"));
    let mut parts: Vec<String> = Vec::new();
    if prepare {
        parts.push("Prepare".into());
    }
    parts.push("TPCC".into());
    if let Some(w) = num(WAREHOUSES) {
        match num(DATASETS) {
            Some(d) if d != 1 => parts.push(format!("{d}x{w}W")),
            _ => parts.push(format!("{w}W")),
        }
    }
    if val(FORCE_NULL).and_then(|v| flag_value(&v)) == Some(true) {
        parts.push("NULL".into());
    }
    // BMK names the engine only in its Prepare scripts (InnoDB, the default, nowhere else).
    parts.extend(val(ENGINE).and_then(|e| engine_token(&e)).filter(|e| prepare || e != "InnoDB"));
    match val(FK).map(|v| v.to_ascii_lowercase()).as_deref() {
        Some("nofk") => parts.push("NoFK".into()),
        Some("nofk2") => parts.push("NoFK2".into()),
        _ => {}
    }
    match val(SHAPE).filter(|_| !prepare).map(|m| m.to_ascii_lowercase()).as_deref() {
        Some("go-tpc") => parts.push("GoTPC".into()),
        Some("procedures") => parts.push("Procs".into()),
        _ => {}
    }
    if !prepare && val(PS_MODE).is_some_and(|m| m.eq_ignore_ascii_case("auto")) {
        parts.push("ps".into());
    }
    if val(TRANSPORT).is_some_and(|t| t.eq_ignore_ascii_case("socket")) {
        parts.push("socket".into());
    }
    parts.join("-")
}
