//! The sysbench OLTP family's label tokens and canonical label, its part of
//! the shared BMK label grammar (`crate::label`).
//!
//! # Scenarios
//!
//! | label                | workload                 | notes |
//! |----------------------|--------------------------|-------|
//! | `OLTP_RO`            | `oltp_read_only`         | 10 point + 4 range selects per event |
//! | `OLTP_RW`            | `oltp_read_write`        | the RO selects + 2 UPDATEs + DELETE/INSERT |
//! | `OLTP_RW+`           | `oltp_read_write`        | = `OLTP_RW-p_sel10`: no ranges, 10 point selects |
//! | `OLTP_RW++`          | `oltp_read_write`        | = `OLTP_RW-p_sel1`: no ranges, 1 point select |
//! | `OLTP_WO`            | `oltp_write_only`        | index + non-index UPDATE + DELETE/INSERT |
//! | `oltp_update_index`… | (the name itself)        | any OLTP workload name, written in lowercase |
//! | `Prepare`            | command `prepare`        | `Prepare_10M_8tab` = the OLTP dataset (`oltp_read_write`) |
//!
//! BMK has no point-select scenario: its point-select test is
//! `OLTP_RO-…-p_sel1`. That is why `OLTP_PS` is not accepted. Workloads that
//! have no BMK scenario keep their fairbench name as the scenario
//! (`oltp_update_index-10Kx1tab-uniform-ps-notrx`). It takes every token below
//! except the query-mix ones, because the workload's name already fixes what
//! an event runs.
//!
//! # Tokens
//!
//! | token                    | settings |
//! |--------------------------|----------|
//! | `10Mx8tab`, `10M_8tab`   | `table-size=10000000`, `tables=8` (suffixes K, M, B; `500K`, `8tab` alone also work) |
//! | `uniform` `gaussian` `special` `pareto` `zipfian` | `rand-type` |
//! | `ps`, `socket`, engines  | shared (see `crate::label`) |
//! | `trx` / `notrx`          | `skip-trx=off` / `skip-trx=on`. With neither, `skip-trx` is left alone |
//! | `p_selN`                 | `point-selects=N`, `range-selects=off` |
//! | `upd_noidxN`             | only N non-index UPDATEs per event: `point-selects=0 range-selects=off index-updates=0 non-index-updates=N delete-inserts=0` |
//! | `upd_idxN`               | only N index UPDATEs per event (same pattern) |
//! | `upd_insdelN`            | the write-only mix: `point-selects=0 range-selects=off index-updates=N non-index-updates=N delete-inserts=N`. Needs `trx` |
//! | `s_rangesN` `sum_rangesN` `ord_rangesN` `dst_rangesN` | only one kind of range select: `point-selects=0 range-selects=on`, that kind `=N`, the other three `=0` |
//! | `RsizeN`                 | `range-size=N` |
//! | `reconnect`              | `reconnect=1` (reconnect after every event) |
//! | `name=value`             | an explicit setting for what no BMK token expresses: `point_selects`, `range_selects`, `simple_ranges`, `sum_ranges`, `order_ranges`, `distinct_ranges`, `index_updates`, `non_index_updates`, `delete_inserts`, `range_size`, `reconnect`, `engine` |
//!
//! At most one query-mix token (`p_sel…`, `upd_…`, `…_ranges…`, or the
//! `+`/`++` of the scenario) may appear. `OLTP_RO` rejects write tokens and
//! `OLTP_WO` rejects select tokens, because those scenarios never run them.
//! A Prepare label names only the dataset: size, engine and `socket`.
//!
//! # Canonical labels
//!
//! [`canonical`] prints one fixed order. It follows the order of BMK's own
//! script names (`…-pareto-ps-p_sel1-reconnect-notrx-socket`,
//! `…-ps-dst_ranges1-Rsize10-notrx`):
//!
//! ```text
//! run:     SCENARIO-SIZExNtab[-ENGINE]-DIST[-ps][-MIX][-name=value…][-RsizeN][-reconnect]-trx|notrx[-socket]
//! prepare: Prepare[-SCENARIO]-SIZE[-ENGINE][-socket]
//! ```
//!
//! For example `OLTP_RW-10Mx8tab-uniform-ps-trx`,
//! `oltp_update_index-10Kx1tab-uniform-ps-notrx`. Sizes print compactly
//! (10000 → `10K`). A setting equal to sysbench's default (10 point selects,
//! 1 of each range and write query, ranges on, range size 100, no reconnect)
//! prints nothing, because `get` returns values in effect, defaults
//! included. The InnoDB engine also prints nothing in a run label: BMK names
//! the engine only in its Prepare scripts. The query mix is printed as a BMK
//! name when it is one. Otherwise it becomes `name=value` tokens, so that
//! two runs with different mixes never share a label.
//!
//! `parse(canonical(x))` gives back exactly the options that `x` decoded to.
//! The exceptions are tokens that only spell out a default
//! (`OLTP_WO-…-upd_insdel1`, `-InnoDB` in a run label, `point_selects=10`):
//! canonical() drops those, so they come back with the same effect but not
//! word for word.

use super::family::SCENARIOS;
use crate::label::{
    compact, counted, dist_meaning, engine_token, flag_value, parse_count, parse_size, too_large, Grammar, LabelError, Parser, Scenario, Shape, DISTRIBUTIONS, ENGINE, ENGINE_LIST, PS_MODE, RAND_TYPE,
    SKIP_TRX, TRANSPORT,
};

// Option names, as the fairbench CLI spells them (dash form).
const TABLE_SIZE: &str = "table-size";
const TABLES: &str = "tables";
const POINT_SELECTS: &str = "point-selects";
const RANGE_SELECTS: &str = "range-selects";
const SIMPLE_RANGES: &str = "simple-ranges";
const SUM_RANGES: &str = "sum-ranges";
const ORDER_RANGES: &str = "order-ranges";
const DISTINCT_RANGES: &str = "distinct-ranges";
const INDEX_UPDATES: &str = "index-updates";
const NON_INDEX_UPDATES: &str = "non-index-updates";
const DELETE_INSERTS: &str = "delete-inserts";
const RANGE_SIZE: &str = "range-size";
const RECONNECT: &str = "reconnect";

/// Decoded options come out in this order, whatever the token order was,
/// so two spellings of the same test compare equal.
const OPTION_ORDER: [&str; 18] = [
    TABLE_SIZE,
    TABLES,
    ENGINE,
    RAND_TYPE,
    PS_MODE,
    POINT_SELECTS,
    RANGE_SELECTS,
    SIMPLE_RANGES,
    SUM_RANGES,
    ORDER_RANGES,
    DISTINCT_RANGES,
    INDEX_UPDATES,
    NON_INDEX_UPDATES,
    DELETE_INSERTS,
    RANGE_SIZE,
    RECONNECT,
    SKIP_TRX,
    TRANSPORT,
];

const RANGE_OPTIONS: [&str; 4] = [SIMPLE_RANGES, SUM_RANGES, ORDER_RANGES, DISTINCT_RANGES];
const WRITE_OPTIONS: [&str; 3] = [INDEX_UPDATES, NON_INDEX_UPDATES, DELETE_INSERTS];
/// Options that only matter to workloads that select rows.
const READ_OPTIONS: [&str; 7] = [POINT_SELECTS, RANGE_SELECTS, SIMPLE_RANGES, SUM_RANGES, ORDER_RANGES, DISTINCT_RANGES, RANGE_SIZE];
/// The BMK token for "only this kind of range select", per range option.
/// `s_ranges`, `sum_ranges` and `dst_ranges` appear in BMK script names.
/// `ord_ranges` is our own spelling: no BMK name for it was found.
const RANGE_TOKENS: [(&str, &str); 4] = [("s_ranges", SIMPLE_RANGES), ("sum_ranges", SUM_RANGES), ("ord_ranges", ORDER_RANGES), ("dst_ranges", DISTINCT_RANGES)];

// sysbench's defaults (oltp_common.lua). canonical() leaves a setting out of
// the label when it equals its default, because `get` reports values in effect.
const DEFAULT_POINT_SELECTS: u64 = 10;
const DEFAULT_QUERY_COUNT: u64 = 1;
const DEFAULT_RANGE_SIZE: u64 = 100;

/// `name=value` tokens. The names use `_` because `-` separates tokens.
const EXPLICIT: [(&str, &str); 12] = [
    ("point_selects", POINT_SELECTS),
    ("range_selects", RANGE_SELECTS),
    ("simple_ranges", SIMPLE_RANGES),
    ("sum_ranges", SUM_RANGES),
    ("order_ranges", ORDER_RANGES),
    ("distinct_ranges", DISTINCT_RANGES),
    ("index_updates", INDEX_UPDATES),
    ("non_index_updates", NON_INDEX_UPDATES),
    ("delete_inserts", DELETE_INSERTS),
    ("range_size", RANGE_SIZE),
    ("reconnect", RECONNECT),
    ("engine", ENGINE),
];

const MIX_LIST: &str = "p_selN, upd_noidxN, upd_idxN, upd_insdelN, s_rangesN, sum_rangesN, ord_rangesN, dst_rangesN";

/// What a scenario runs. It decides which tokens make sense.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    ReadOnly,
    ReadWrite,
    WriteOnly,
    /// Any other workload (oltp_update_index, bulk_insert, ...). Its name
    /// fixes what an event runs, so it takes no query-mix tokens.
    Other,
}

impl Kind {
    fn of_shape(shape: Option<Shape>) -> Kind {
        match shape {
            Some(Shape::ReadOnly) => Kind::ReadOnly,
            Some(Shape::ReadWrite) => Kind::ReadWrite,
            Some(Shape::WriteOnly) => Kind::WriteOnly,
            _ => Kind::Other,
        }
    }

    fn of_workload(workload: &str) -> Kind {
        Kind::of_shape(plain_scenario(workload).map(|s| s.shape))
    }

    /// The select part of the query mix is configurable.
    fn runs_selects(self) -> bool {
        matches!(self, Kind::ReadOnly | Kind::ReadWrite)
    }

    /// The write part of the query mix is configurable.
    fn runs_writes(self) -> bool {
        matches!(self, Kind::WriteOnly | Kind::ReadWrite)
    }
}

/// The scenario of a workload without a `+` variant's extra settings: the
/// one canonical labels start with.
fn plain_scenario(workload: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| s.workload == workload && s.point_selects.is_none())
}

/// One of the family's tokens, classified by its shape alone.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Dataset { rows: Option<u64>, tables: Option<u64> },
    Dist(&'static str),
    Trx,
    NoTrx,
    Reconnect,
    Mix(Mix),
    RangeSize(u64),
    Explicit(&'static str, String),
}

/// Query-mix tokens. Each one describes the whole set of queries in one event.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mix {
    PointSelects(u64),
    UpdNonIndex(u64),
    UpdIndex(u64),
    UpdInsDel(u64),
    /// Only one kind of range select: the range option, and its count.
    Ranges(&'static str, u64),
}

impl Tok {
    /// Describes how a run behaves, so it has no place in a Prepare label.
    fn run_only(&self) -> bool {
        match self {
            Tok::Dist(_) | Tok::Trx | Tok::NoTrx | Tok::Mix(_) | Tok::RangeSize(_) | Tok::Reconnect => true,
            Tok::Explicit(opt, _) => *opt != ENGINE,
            _ => false,
        }
    }

    fn sets_writes(&self) -> bool {
        match self {
            Tok::Mix(Mix::UpdNonIndex(_) | Mix::UpdIndex(_) | Mix::UpdInsDel(_)) => true,
            Tok::Explicit(opt, _) => WRITE_OPTIONS.contains(opt),
            _ => false,
        }
    }

    fn sets_selects(&self) -> bool {
        match self {
            Tok::Mix(Mix::PointSelects(_) | Mix::Ranges(..)) | Tok::RangeSize(_) => true,
            Tok::Explicit(opt, _) => READ_OPTIONS.contains(opt),
            _ => false,
        }
    }
}

fn explicit(tok: &str, name: &str, value: &str) -> Result<Tok, String> {
    let lname = name.to_ascii_lowercase();
    let Some(&(_, opt)) = EXPLICIT.iter().find(|(n, _)| *n == lname) else {
        let names: Vec<&str> = EXPLICIT.iter().map(|(n, _)| *n).collect();
        return Err(format!("'{tok}': '{name}' cannot be set in a label; name=value accepts {}", names.join(", ")));
    };
    let value = match opt {
        RANGE_SELECTS => match flag_value(value) {
            Some(true) => "on".to_string(),
            Some(false) => "off".to_string(),
            None => return Err(format!("'{tok}': range_selects takes on or off")),
        },
        RANGE_SIZE => match parse_count(value) {
            Some(n) if n > 0 => n.to_string(),
            _ => return Err(format!("'{tok}': range_size takes a whole number of at least 1")),
        },
        _ => match parse_count(value) {
            Some(n) => n.to_string(),
            None => return Err(format!("'{tok}': {lname} takes a whole number")),
        },
    };
    Ok(Tok::Explicit(opt, value))
}

/// Dataset-shaped tokens: `10Mx8tab`, `10M_8tab`, `8tab`, `500K`.
fn dataset(l: &str, tok: &str) -> Option<Result<Tok, String>> {
    if let Some(body) = l.strip_suffix("tab") {
        let (rows, tables) = match body.rfind(['x', '_']) {
            Some(i) => (Some(&body[..i]), &body[i + 1..]),
            None => (None, body),
        };
        let tables = parse_count(tables)?;
        let rows = match rows {
            Some(r) => match parse_size(r)? {
                Some(n) => Some(n),
                None => return Some(Err(too_large(tok))),
            },
            None => None,
        };
        if tables == 0 {
            return Some(Err(format!("'{tok}': a dataset has at least 1 table")));
        }
        return Some(Ok(Tok::Dataset { rows, tables: Some(tables) }));
    }
    parse_size(l).map(|r| r.map(|rows| Tok::Dataset { rows: Some(rows), tables: None }).ok_or_else(|| too_large(tok)))
}

/// Classifies a token by its shape: None when it is not one of the family's.
fn classify(tok: &str) -> Option<Result<Tok, String>> {
    let l = tok.to_ascii_lowercase();
    if let Some(d) = DISTRIBUTIONS.iter().find(|d| **d == l) {
        return Some(Ok(Tok::Dist(d)));
    }
    match l.as_str() {
        "trx" => return Some(Ok(Tok::Trx)),
        "notrx" => return Some(Ok(Tok::NoTrx)),
        "reconnect" => return Some(Ok(Tok::Reconnect)),
        _ => {}
    }
    if let Some((name, value)) = tok.split_once('=') {
        return Some(explicit(tok, name, value));
    }
    // p_sel0 is allowed: "no selects at all", which canonical() needs for an
    // OLTP_RW run without selects and without transactions (see there).
    if let Some(r) = counted(&l, tok, "p_sel", 0) {
        return Some(r.map(|n| Tok::Mix(Mix::PointSelects(n))));
    }
    if let Some(r) = counted(&l, tok, "upd_noidx", 1) {
        return Some(r.map(|n| Tok::Mix(Mix::UpdNonIndex(n))));
    }
    if let Some(r) = counted(&l, tok, "upd_idx", 1) {
        return Some(r.map(|n| Tok::Mix(Mix::UpdIndex(n))));
    }
    if let Some(r) = counted(&l, tok, "upd_insdel", 1) {
        return Some(r.map(|n| Tok::Mix(Mix::UpdInsDel(n))));
    }
    for (prefix, opt) in RANGE_TOKENS {
        if let Some(r) = counted(&l, tok, prefix, 1) {
            return Some(r.map(|n| Tok::Mix(Mix::Ranges(opt, n))));
        }
    }
    if let Some(r) = counted(&l, tok, "rsize", 1) {
        return Some(r.map(Tok::RangeSize));
    }
    dataset(&l, tok)
}

/// The family's part of the shared label grammar.
pub struct OltpGrammar;

impl OltpGrammar {
    fn check_fits(&self, p: &Parser, tok: &str, t: &Tok) -> Result<(), LabelError> {
        let kind = Kind::of_shape(p.shape());
        let scen = p.scenario_name();
        let fail = |msg: String| Err(p.err(tok, msg));
        if p.prepare() && t.run_only() {
            return fail(format!("'{tok}' describes a run, but a Prepare label names only the dataset: {}", p.accepted()));
        }
        if kind == Kind::Other && (t.sets_selects() || t.sets_writes()) {
            return fail(format!(
                "'{tok}' changes the query mix, which only OLTP_RO, OLTP_RW and OLTP_WO labels carry; \
                 the workload {scen} runs a fixed mix, so leave it out of the label"
            ));
        }
        if kind == Kind::ReadOnly && t.sets_writes() {
            return fail(format!("'{tok}' sets writes, but {scen} runs no writes (did you mean OLTP_RW-…-{tok}?)"));
        }
        if kind == Kind::WriteOnly && t.sets_selects() {
            return fail(format!("'{tok}' sets selects, but {scen} runs no selects (did you mean OLTP_RW-…-{tok}?)"));
        }
        Ok(())
    }

    fn no_selects(p: &mut Parser, tok: &str, kind: Kind) -> Result<(), LabelError> {
        // OLTP_WO has no select settings to clear.
        if kind.runs_selects() {
            p.set(POINT_SELECTS, "0", tok)?;
            p.set(RANGE_SELECTS, "off", tok)?;
        }
        Ok(())
    }

    fn writes(p: &mut Parser, tok: &str, counts: [u64; 3]) -> Result<(), LabelError> {
        for (opt, n) in WRITE_OPTIONS.into_iter().zip(counts) {
            p.set(opt, n.to_string(), tok)?;
        }
        Ok(())
    }

    fn mix(p: &mut Parser, m: Mix, tok: &str, kind: Kind) -> Result<String, LabelError> {
        Ok(match m {
            Mix::PointSelects(n) => {
                p.set(POINT_SELECTS, n.to_string(), tok)?;
                p.set(RANGE_SELECTS, "off", tok)?;
                if n == 1 && kind == Kind::ReadOnly {
                    "only 1 point select per event: the point-select test".into()
                } else {
                    format!("only {n} point select(s) per event, no range selects")
                }
            }
            Mix::UpdNonIndex(n) => {
                Self::no_selects(p, tok, kind)?;
                Self::writes(p, tok, [0, n, 0])?;
                format!("UPDATE-NoKEY: only {n} non-index UPDATE(s) per event, done in place")
            }
            Mix::UpdIndex(n) => {
                Self::no_selects(p, tok, kind)?;
                Self::writes(p, tok, [n, 0, 0])?;
                format!("UPDATE-KEY: only {n} UPDATE(s) of the indexed column k per event")
            }
            Mix::UpdInsDel(n) => {
                Self::no_selects(p, tok, kind)?;
                Self::writes(p, tok, [n, n, n])?;
                p.remember("insdel", tok);
                format!("write-only: {n} index UPDATE, {n} non-index UPDATE and {n} DELETE+INSERT per event, no selects")
            }
            Mix::Ranges(opt, n) => {
                p.set(POINT_SELECTS, "0", tok)?;
                p.set(RANGE_SELECTS, "on", tok)?;
                for o in RANGE_OPTIONS {
                    p.set(o, if o == opt { n.to_string() } else { "0".to_string() }, tok)?;
                }
                let what = opt.trim_end_matches("-ranges");
                format!("only {n} {what} range select(s) per event")
            }
        })
    }
}

impl Grammar for OltpGrammar {
    fn owner(&self) -> &'static str {
        "the sysbench OLTP scenarios"
    }

    fn classify(&self, tok: &str) -> Option<Result<(), String>> {
        classify(tok).map(|r| r.map(|_| ()))
    }

    fn apply(&self, p: &mut Parser, tok: &str) -> Result<String, LabelError> {
        let t = p.classified(tok, classify(tok))?;
        self.check_fits(p, tok, &t)?;
        let kind = Kind::of_shape(p.shape());
        Ok(match t {
            Tok::Dataset { rows, tables } => {
                if let Some(r) = rows {
                    p.set(TABLE_SIZE, r.to_string(), tok)?;
                }
                if let Some(n) = tables {
                    p.set(TABLES, n.to_string(), tok)?;
                }
                match (rows, tables) {
                    (Some(r), Some(n)) => format!("dataset: {n} table(s) of {r} rows each"),
                    (Some(r), None) => format!("dataset: {r} rows per table"),
                    (None, Some(n)) => format!("dataset: {n} table(s)"),
                    (None, None) => unreachable!("a dataset token sets something"),
                }
            }
            Tok::Dist(d) => {
                p.set(RAND_TYPE, d, tok)?;
                dist_meaning(d).to_string()
            }
            Tok::Trx => {
                p.set(SKIP_TRX, "off", tok)?;
                "each event runs inside BEGIN/COMMIT".into()
            }
            Tok::NoTrx => {
                p.set(SKIP_TRX, "on", tok)?;
                p.remember("notrx", tok);
                "no transactions: every query autocommits".into()
            }
            Tok::Reconnect => {
                p.set(RECONNECT, "1", tok)?;
                "reconnect after every event (BMK's reconnect test; prepared statements gain nothing there)".into()
            }
            Tok::Mix(m) => Self::mix(p, m, tok, kind)?,
            Tok::RangeSize(n) => {
                p.set(RANGE_SIZE, n.to_string(), tok)?;
                format!("range selects span {n} rows")
            }
            Tok::Explicit(opt, v) => {
                p.set(opt, v, tok)?;
                "explicit setting".into()
            }
        })
    }

    fn scenario(&self, p: &mut Parser, s: &Scenario, tok: &str) -> Result<(), LabelError> {
        if let Some(n) = s.point_selects {
            if p.prepare() {
                return Err(p.err(tok, format!("'{tok}' names a query mix, which a Prepare label cannot carry; write OLTP_RW or leave the scenario out")));
            }
            p.set(POINT_SELECTS, n.to_string(), tok)?;
            p.set(RANGE_SELECTS, "off", tok)?;
        }
        Ok(())
    }

    fn finish(&self, p: &mut Parser) -> Result<(), LabelError> {
        if let (Some(ins), Some(notrx)) = (p.remembered("insdel"), p.remembered("notrx")) {
            return Err(p.err(
                &notrx,
                format!(
                    "'{notrx}' contradicts '{ins}': the write-only mix (UPDATEs + DELETE/INSERT) must run inside \
                     transactions, otherwise clients run into data conflicts and errors (BMK-kit guide); use trx"
                ),
            ));
        }
        Ok(())
    }

    fn accepted(&self, prepare: bool) -> String {
        if prepare {
            format!("a dataset size (10Mx8tab, 10M_8tab, 500K, 8tab), an engine ({ENGINE_LIST}), socket")
        } else {
            let names: Vec<&str> = EXPLICIT.iter().map(|(n, _)| *n).collect();
            format!(
                "a dataset size (10Mx8tab, 10M_8tab, 500K, 8tab), a distribution ({}), ps, trx or notrx, \
                 one query mix ({MIX_LIST}), RsizeN, reconnect, socket, an engine ({ENGINE_LIST}), \
                 or name=value ({})",
                DISTRIBUTIONS.join(", "),
                names.join(", ")
            )
        }
    }

    fn once_hint(&self, opt: &str) -> Option<String> {
        Some(match opt {
            TABLE_SIZE | TABLES => "one dataset size such as 10Mx8tab".into(),
            RAND_TYPE => format!("one distribution ({})", DISTRIBUTIONS.join(", ")),
            SKIP_TRX => "either trx or notrx, once".into(),
            RECONNECT => "reconnect at most once".into(),
            RANGE_SIZE => "one RsizeN".into(),
            _ => format!(
                "one query mix ({MIX_LIST}; OLTP_RW+ and OLTP_RW++ count as p_sel10 and p_sel1), \
                 plus name=value only for settings the mix leaves alone"
            ),
        })
    }

    fn option_order(&self) -> &'static [&'static str] {
        &OPTION_ORDER
    }

    fn bare_prepare(&self) -> &'static str {
        "a Prepare label without a scenario prepares the sysbench OLTP tables, which every OLTP scenario uses"
    }
}

/// The name of a setting in a `name=value` token.
fn explicit_name(opt: &str) -> &'static str {
    EXPLICIT.iter().find(|(_, o)| *o == opt).map(|(n, _)| *n).expect("every explicit option has a name")
}

/// The query-mix tokens for the effective mix. A BMK name when the mix is
/// one, otherwise `name=value` for each setting off its sysbench default.
fn mix_tokens(kind: Kind, notrx: bool, num: &dyn Fn(&str) -> Option<u64>, flag: &dyn Fn(&str) -> Option<bool>) -> Vec<String> {
    let selects = kind.runs_selects();
    let writes = kind.runs_writes();
    let point = num(POINT_SELECTS).unwrap_or(DEFAULT_POINT_SELECTS);
    let ranges_on = flag(RANGE_SELECTS).unwrap_or(true);
    let ranges = RANGE_OPTIONS.map(|o| num(o).unwrap_or(DEFAULT_QUERY_COUNT));
    let w = WRITE_OPTIONS.map(|o| num(o).unwrap_or(DEFAULT_QUERY_COUNT));

    // BMK's whole-event names: writes only, no selects at all.
    if writes && (!selects || (point == 0 && !ranges_on)) {
        let named = match w {
            [0, n, 0] if n > 0 => Some(format!("upd_noidx{n}")),
            [n, 0, 0] if n > 0 => Some(format!("upd_idx{n}")),
            // upd_insdel must not meet notrx (parse rejects that pair), so
            // such a run falls through to p_sel0 / name=value below. On
            // OLTP_WO, upd_insdel1 is the scenario's own mix and prints nothing.
            [a, b, c] if a == b && b == c && a > 0 && !notrx && (selects || a != DEFAULT_QUERY_COUNT) => Some(format!("upd_insdel{a}")),
            _ => None,
        };
        if let Some(t) = named {
            return vec![t];
        }
    }
    let mut out = Vec::new();
    if selects {
        let only_one_range = || {
            let nonzero: Vec<usize> = (0..4).filter(|&i| ranges[i] > 0).collect();
            (point == 0 && nonzero.len() == 1).then(|| format!("{}{}", RANGE_TOKENS[nonzero[0]].0, ranges[nonzero[0]]))
        };
        if !ranges_on {
            out.push(format!("p_sel{point}"));
        } else if point == DEFAULT_POINT_SELECTS && ranges.iter().all(|&n| n == DEFAULT_QUERY_COUNT) {
            // sysbench's own mix: nothing to say.
        } else if let Some(t) = only_one_range() {
            out.push(t);
        } else {
            if point != DEFAULT_POINT_SELECTS {
                out.push(format!("{}={point}", explicit_name(POINT_SELECTS)));
            }
            for (o, n) in RANGE_OPTIONS.into_iter().zip(ranges) {
                if n != DEFAULT_QUERY_COUNT {
                    out.push(format!("{}={n}", explicit_name(o)));
                }
            }
        }
    }
    if writes {
        for (o, n) in WRITE_OPTIONS.into_iter().zip(w) {
            if n != DEFAULT_QUERY_COUNT {
                out.push(format!("{}={n}", explicit_name(o)));
            }
        }
    }
    out
}

/// Build the canonical label from effective settings. `get(name)` returns the effective value of an option
/// (same names/values as in Decoded::options) or None when it does not apply.
///
/// `get("command")` is consulted as well: `Some("prepare")` builds a Prepare
/// label (dataset tokens only). Anything else builds a run label. Settings
/// equal to sysbench's defaults print nothing. That includes the InnoDB engine
/// in a run label, and the query mix of any workload other than
/// OLTP_RO/RW/WO. A value that no token can express (an unknown
/// distribution, an unparsable number) is left out. Return None for an option
/// that does not apply, e.g. the engine on a non-MySQL target.
pub fn canonical(workload: &str, get: &dyn Fn(&str) -> Option<String>) -> String {
    let kind = Kind::of_workload(workload);
    let val = |name: &str| get(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    // Numbers as Decoded holds them ("10000000"), or written as sizes ("10M").
    let num = |name: &str| val(name).and_then(|v| parse_size(&v.to_ascii_lowercase()).flatten());
    let flag = |name: &str| val(name).and_then(|v| flag_value(&v));
    let prepare = val("command").is_some_and(|c| c.eq_ignore_ascii_case("prepare"));

    let mut parts: Vec<String> = Vec::new();
    if prepare {
        parts.push("Prepare".into());
        // BMK's Prepare_10M_8tab names no scenario: the OLTP tables serve them all.
        if kind != Kind::ReadWrite {
            parts.push(plain_scenario(workload).map_or_else(|| workload.to_string(), |s| s.token.to_string()));
        }
    } else {
        parts.push(plain_scenario(workload).map_or_else(|| workload.to_string(), |s| s.token.to_string()));
    }
    let engine = val(ENGINE).and_then(|e| engine_token(&e));
    // BMK names the engine only in its Prepare scripts. A run label names it
    // only when it is not InnoDB (the default of sysbench and of MySQL), so a
    // MySQL run reads OLTP_RW-10Mx8tab-uniform-ps-trx, as in BMK.
    let engine = engine.filter(|e| prepare || e != "InnoDB");
    let ps = val(PS_MODE).is_some_and(|m| m.eq_ignore_ascii_case("auto"));
    let socket = val(TRANSPORT).is_some_and(|t| t.eq_ignore_ascii_case("socket"));

    match (num(TABLE_SIZE), num(TABLES)) {
        (Some(r), Some(t)) if t > 0 => parts.push(format!("{}x{t}tab", compact(r))),
        (Some(r), _) => parts.push(compact(r)),
        (None, Some(t)) if t > 0 => parts.push(format!("{t}tab")),
        _ => {}
    }
    parts.extend(engine);
    if !prepare {
        if let Some(d) = val(RAND_TYPE).map(|d| d.to_ascii_lowercase()) {
            if DISTRIBUTIONS.contains(&d.as_str()) {
                parts.push(d);
            }
        }
        if ps {
            parts.push("ps".into());
        }
        let skip_trx = flag(SKIP_TRX);
        parts.extend(mix_tokens(kind, skip_trx == Some(true), &num, &flag));
        if kind.runs_selects() {
            if let Some(n) = num(RANGE_SIZE).filter(|&n| n != DEFAULT_RANGE_SIZE && n > 0) {
                parts.push(format!("Rsize{n}"));
            }
        }
        match num(RECONNECT) {
            None | Some(0) => {}
            Some(1) => parts.push("reconnect".into()),
            Some(n) => parts.push(format!("reconnect={n}")),
        }
        match skip_trx {
            Some(true) => parts.push("notrx".into()),
            Some(false) => parts.push("trx".into()),
            None => {}
        }
    }
    if socket {
        parts.push("socket".into());
    }
    parts.join("-")
}
