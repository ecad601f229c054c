//! BMK-kit workload labels: decode them into fairbench settings, and build the
//! canonical label back from the settings in effect.
//!
//! Dimitri Kravtchuk's BMK-kit names every test with a short label that says
//! exactly what runs, so that a result can never be separated from its test
//! conditions. The kit even ships one shell script per label
//! (`sb11-OLTP_RW_10M_8tab-uniform-ps-trx.sh`). fairbench accepts such a label
//! wherever it accepts a workload name, and prints and stores a canonical
//! label for every run. This module only maps label tokens to
//! `(option, value)` pairs. It knows nothing else about the program, so the
//! CLI still validates the values against each workload.
//!
//! # Shape of a label
//!
//! ```text
//! [path/][sb11-|sb10-][Prepare(_|-)]SCENARIO[_SIZE_Ntab](-TOKEN)*[.sh]
//! ```
//!
//! * Tokens are separated by `-`. In the first segment BMK also uses `_`
//!   (`OLTP_RW_10M_8tab`), so that segment is split on `_` after the scenario.
//!   Tokens such as `p_sel1` or `upd_noidx1` contain a `_` of their own.
//! * Keywords are case-insensitive. A leading directory, the `sb11-`/`sb10-`
//!   prefix (the sysbench build the kit runs) and the `.sh` suffix are ignored.
//! * Apart from the scenario, which comes first, tokens may come in any order.
//!   BMK's own scripts are not consistent about the order
//!   (`…-notrx-socket.sh`). Each setting may be named only once: a repeated
//!   or contradictory token is an error that names it.
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
//! | `TPCC`               | `tpcc`                   | sizes in warehouses, see below |
//! | `oltp_update_index`… | (the name itself)        | any fairbench workload name, written in lowercase |
//! | `Prepare`            | command `prepare`        | `Prepare_10M_8tab` = the OLTP dataset (`oltp_read_write`) |
//!
//! BMK has no point-select scenario: its point-select test is
//! `OLTP_RO-…-p_sel1`. That is why `OLTP_PS` is not accepted. Workloads that
//! have no BMK scenario keep their fairbench name as the scenario
//! (`oltp_update_index-10Kx1tab-uniform-ps-notrx`). Such a name must be written
//! in lowercase, so that a mistyped BMK scenario (`OLTP_RX`) is an error
//! rather than an unknown workload. It takes every token below except the
//! query-mix ones, because the workload's name already fixes what an event
//! runs.
//!
//! # Tokens of the sysbench OLTP scenarios
//!
//! | token                    | settings |
//! |--------------------------|----------|
//! | `10Mx8tab`, `10M_8tab`   | `table-size=10000000`, `tables=8` (suffixes K, M, B; `500K`, `8tab` alone also work) |
//! | `uniform` `gaussian` `special` `pareto` `zipfian` | `rand-type` |
//! | `ps`                     | `db-ps-mode=auto`. Without `ps`: `db-ps-mode=disable` (a BMK script without `ps` runs without prepared statements) |
//! | `trx` / `notrx`          | `skip-trx=off` / `skip-trx=on`. With neither, `skip-trx` is left alone |
//! | `p_selN`                 | `point-selects=N`, `range-selects=off` |
//! | `upd_noidxN`             | only N non-index UPDATEs per event: `point-selects=0 range-selects=off index-updates=0 non-index-updates=N delete-inserts=0` |
//! | `upd_idxN`               | only N index UPDATEs per event (same pattern) |
//! | `upd_insdelN`            | the write-only mix: `point-selects=0 range-selects=off index-updates=N non-index-updates=N delete-inserts=N`. Needs `trx` |
//! | `s_rangesN` `sum_rangesN` `ord_rangesN` `dst_rangesN` | only one kind of range select: `point-selects=0 range-selects=on`, that kind `=N`, the other three `=0` |
//! | `RsizeN`                 | `range-size=N` |
//! | `reconnect`              | `reconnect=1` (reconnect after every event) |
//! | `socket`                 | `transport=socket` (without it, the CLI default applies) |
//! | `InnoDB` `MyISAM` `RocksDB` `Aria` `TokuDB` `MEMORY` | `mysql-storage-engine` |
//! | `name=value`             | an explicit setting for what no BMK token expresses: `point_selects`, `range_selects`, `simple_ranges`, `sum_ranges`, `order_ranges`, `distinct_ranges`, `index_updates`, `non_index_updates`, `delete_inserts`, `range_size`, `reconnect`, `engine` |
//!
//! At most one query-mix token (`p_sel…`, `upd_…`, `…_ranges…`, or the
//! `+`/`++` of the scenario) may appear. `OLTP_RO` rejects write tokens and
//! `OLTP_WO` rejects select tokens, because those scenarios never run them.
//!
//! # TPC-C tokens
//!
//! | token      | settings |
//! |------------|----------|
//! | `1000W`    | `warehouses=1000`, `datasets=1` |
//! | `10x100W`  | `datasets=10`, `warehouses=100` (10 datasets of 100 warehouses each) |
//! | `NULL`     | `force-null=on`. Without it `force-null=off`: BMK's TPC-C uses DEFAULT values unless the name says NULL |
//! | `NoFK` / `NoFK2` | `fk=nofk` / `fk=nofk2`. Without either, `fk=fk`: BMK creates foreign keys unless the name says NoFK |
//! | engine, `ps`, `socket` | as above (`ps` absent means `db-ps-mode=disable`, like BMK's sysbench-tpcc, which sends plain queries) |
//! | `trx`      | accepted and sets nothing. TPC-C always runs in transactions, so `notrx` is an error |
//!
//! Distribution, query-mix, `RsizeN` and `reconnect` tokens do not apply to
//! TPC-C and are rejected.
//!
//! # Prepare labels
//!
//! `sb11-Prepare_10M_8tab-InnoDB.sh` gives command `prepare`, workload
//! `oltp_read_write` and `table-size=10000000 tables=8
//! mysql-storage-engine=InnoDB`. `sb11-Prepare_TPCC_1000W-NULL-InnoDB-NoFK.sh`
//! is the TPC-C equivalent. A Prepare label names only the dataset: size,
//! engine, `NULL`, `NoFK`/`NoFK2` and `socket`. Tokens that describe a run are
//! rejected there, and the "no `ps` means disable" rule does not apply.
//!
//! # Canonical labels
//!
//! [`canonical`] prints one fixed order. It follows the order of BMK's own
//! script names (`…-pareto-ps-p_sel1-reconnect-notrx-socket`,
//! `…-ps-dst_ranges1-Rsize10-notrx`,
//! `Prepare_TPCC_1000W-NULL-InnoDB-NoFK`):
//!
//! ```text
//! OLTP:    SCENARIO-SIZExNtab[-ENGINE]-DIST[-ps][-MIX][-name=value…][-RsizeN][-reconnect]-trx|notrx[-socket]
//! TPC-C:   TPCC-[Dx]WW[-NULL][-ENGINE][-NoFK|-NoFK2][-ps][-socket]
//! prepare: Prepare[-SCENARIO]-SIZE[-NULL][-ENGINE][-NoFK|-NoFK2][-socket]
//! ```
//!
//! For example `OLTP_RW-10Mx8tab-uniform-ps-trx`,
//! `oltp_update_index-10Kx1tab-uniform-ps-notrx`, `TPCC-10x100W-NULL-NoFK`,
//! `Prepare-TPCC-1000W-NULL-InnoDB-NoFK`. Sizes print compactly (10000 → `10K`).
//! A setting equal to sysbench's default (10 point selects, 1 of each range
//! and write query, ranges on, range size 100, no reconnect) prints nothing,
//! because `get` returns values in effect, defaults included. The InnoDB
//! engine also prints nothing in a run label: BMK names the engine only in its
//! Prepare scripts. The query mix is printed as a BMK name when it is one.
//! Otherwise it becomes `name=value` tokens, so that two runs with different
//! mixes never share a label.
//!
//! `parse(canonical(x))` gives back exactly the options that `x` decoded to,
//! for every form above. The exceptions are tokens that only spell out a
//! default (`OLTP_WO-…-upd_insdel1`, `-InnoDB` in a run label,
//! `point_selects=10`): canonical() drops those, so they come back with the
//! same effect but not word for word.

use std::fmt;

/// A decoded label.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// fairbench workload, e.g. "oltp_read_write", "oltp_read_only", "oltp_point_select", "oltp_write_only", "tpcc"
    pub workload: String,
    /// "run" unless the label is a prepare script name (sb11-Prepare_10M_8tab-InnoDB.sh) -> "prepare"
    pub command: String,
    /// option name (as on the command line, without "--", dash form) -> value, in a stable order
    pub options: Vec<(String, String)>,
    /// one line per token: token, then what it means (printed by `fairbench explain LABEL`)
    pub explanation: Vec<(String, String)>,
}

/// A label that cannot be decoded. `token` is the offending token (empty when
/// the label as a whole is at fault). `message` names that token and says
/// what is accepted there.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelError {
    pub label: String,
    pub token: String,
    pub message: String,
}

impl fmt::Display for LabelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The label and its tokens are quoted as typed: a control character in them must not break the line.
        let text = format!("invalid label '{}': {}", self.label, self.message);
        f.write_str(&crate::error::one_line(&text))
    }
}

impl std::error::Error for LabelError {}

// Option names, as the fairbench CLI spells them (dash form).
const TABLE_SIZE: &str = "table-size";
const TABLES: &str = "tables";
const WAREHOUSES: &str = "warehouses";
const DATASETS: &str = "datasets";
const ENGINE: &str = "mysql-storage-engine";
const RAND_TYPE: &str = "rand-type";
const FORCE_NULL: &str = "force-null";
const FK: &str = "fk";
const PS_MODE: &str = "db-ps-mode";
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
const SKIP_TRX: &str = "skip-trx";
const TRANSPORT: &str = "transport";

/// `Decoded::options` come out in this order, whatever the token order was,
/// so two spellings of the same test compare equal.
const OPTION_ORDER: [&str; 22] = [
    TABLE_SIZE,
    TABLES,
    WAREHOUSES,
    DATASETS,
    ENGINE,
    RAND_TYPE,
    FORCE_NULL,
    FK,
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

const DISTRIBUTIONS: [&str; 5] = ["uniform", "gaussian", "special", "pareto", "zipfian"];

/// Engines accepted as bare tokens: lowercase key, and the spelling used in
/// settings and labels. Other engines go through `engine=NAME`.
const ENGINES: [(&str, &str); 7] = [("innodb", "InnoDB"), ("myisam", "MyISAM"), ("rocksdb", "RocksDB"), ("myrocks", "RocksDB"), ("aria", "Aria"), ("tokudb", "TokuDB"), ("memory", "MEMORY")];

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

const ENGINE_LIST: &str = "InnoDB, MyISAM, RocksDB, Aria, TokuDB, MEMORY, or engine=NAME";
const MIX_LIST: &str = "p_selN, upd_noidxN, upd_idxN, upd_insdelN, s_rangesN, sum_rangesN, ord_rangesN, dst_rangesN";
const SCENARIO_LIST: &str = "OLTP_RO, OLTP_RW, OLTP_RW+, OLTP_RW++, OLTP_WO, TPCC or Prepare, \
     or a fairbench workload name in lowercase (e.g. oltp_update_index)";

/// What a scenario runs, as far as the grammar cares: it decides which
/// tokens a label may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Selects only: write tokens are refused.
    ReadOnly,
    /// Selects and writes: every query-mix token applies.
    ReadWrite,
    /// Writes only: select tokens are refused.
    WriteOnly,
    /// Sized in warehouses (`1000W`, `10x100W`) with NULL / NoFK tokens.
    Warehouses,
}

/// A BMK scenario word, contributed to the grammar by the workload family
/// that runs it (`Family::label_scenarios`).
#[derive(Debug)]
pub struct Scenario {
    /// As BMK writes it, e.g. `OLTP_RW` or `OLTP_RW+`.
    pub token: &'static str,
    /// The fairbench workload it runs.
    pub workload: &'static str,
    pub shape: Shape,
    /// What `explain` says of it.
    pub meaning: &'static str,
    /// The scenario also fixes the point selects and drops the range
    /// selects (BMK's `+` variants).
    pub point_selects: Option<u64>,
}

/// The scenario of a workload without a `+` variant's extra settings: the
/// one canonical labels start with.
fn plain_scenario(workload: &str) -> Option<&'static Scenario> {
    crate::workload::family::label_scenarios().find(|s| s.workload == workload && s.point_selects.is_none())
}

/// What a scenario runs. It decides which tokens make sense.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    ReadOnly,
    ReadWrite,
    WriteOnly,
    Tpcc,
    /// Any other workload (oltp_update_index, bulk_insert, ...). Its name
    /// fixes what an event runs, so it takes no query-mix tokens. The CLI
    /// checks the other settings against it.
    Other,
}

impl Kind {
    fn of_shape(shape: Shape) -> Kind {
        match shape {
            Shape::ReadOnly => Kind::ReadOnly,
            Shape::ReadWrite => Kind::ReadWrite,
            Shape::WriteOnly => Kind::WriteOnly,
            Shape::Warehouses => Kind::Tpcc,
        }
    }

    fn of_workload(workload: &str) -> Kind {
        plain_scenario(workload).map_or(Kind::Other, |s| Kind::of_shape(s.shape))
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

/// One label token, classified by its shape alone (the scenario decides later
/// whether it is allowed).
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Prefix,
    Prepare,
    Scenario,
    Dataset { rows: Option<u64>, tables: Option<u64> },
    Warehouses { datasets: u64, warehouses: u64 },
    Dist(&'static str),
    Ps,
    Trx,
    NoTrx,
    Reconnect,
    Socket,
    Null,
    Fk(&'static str),
    Engine(String),
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
            Tok::Dist(_) | Tok::Ps | Tok::Trx | Tok::NoTrx | Tok::Mix(_) | Tok::RangeSize(_) | Tok::Reconnect => true,
            Tok::Explicit(opt, _) => *opt != ENGINE,
            _ => false,
        }
    }

    fn tpcc_only(&self) -> bool {
        matches!(self, Tok::Warehouses { .. } | Tok::Null | Tok::Fk(_))
    }

    fn oltp_only(&self) -> bool {
        match self {
            Tok::Dataset { .. } | Tok::Dist(_) | Tok::Mix(_) | Tok::RangeSize(_) | Tok::Reconnect => true,
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

pub fn is_sb_prefix(lower: &str) -> bool {
    // sb10 / sb11: the sysbench build a BMK script runs.
    lower.len() > 2 && lower.starts_with("sb") && lower[2..].bytes().all(|b| b.is_ascii_digit())
}

fn is_bmk_scenario(word: &str) -> bool {
    let l = word.to_ascii_lowercase();
    matches!(l.trim_end_matches('+'), "oltp_ro" | "oltp_rw" | "oltp_wo") || l == "tpcc"
}

/// A workload name written the way fairbench spells workloads.
fn is_workload_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && b[0].is_ascii_lowercase() && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_') && !s.ends_with('_') && !s.contains("__")
}

/// "10", "10k", "10m", "1b" (already lowercase) -> rows. `None` if it is
/// not shaped like a size, `Some(None)` if it is but does not fit in a u64.
pub fn parse_size(l: &str) -> Option<Option<u64>> {
    let end = l.find(|c: char| !c.is_ascii_digit()).unwrap_or(l.len());
    if end == 0 {
        return None;
    }
    let mult: u64 = match &l[end..] {
        "" => 1,
        "k" => 1_000,
        "m" => 1_000_000,
        "b" | "g" => 1_000_000_000,
        _ => return None,
    };
    Some(l[..end].parse::<u64>().ok().and_then(|n| n.checked_mul(mult)))
}

/// Sizes print compactly: 10000 -> 10K, 10000000 -> 10M, 1500 -> 1500.
pub fn compact(n: u64) -> String {
    if n != 0 {
        for (unit, div) in [("B", 1_000_000_000u64), ("M", 1_000_000), ("K", 1_000)] {
            if n.is_multiple_of(div) {
                return format!("{}{unit}", n / div);
            }
        }
    }
    n.to_string()
}

fn parse_count(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn flag_value(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Some(true),
        "off" | "false" | "no" | "0" => Some(false),
        _ => None,
    }
}

fn engine_spelling(v: &str) -> Option<&'static str> {
    let l = v.to_ascii_lowercase();
    ENGINES.iter().find(|(k, _)| *k == l).map(|(_, s)| *s)
}

/// `PREFIX<N>` tokens (`p_sel1`, `Rsize10`, ...): `None` if `l` does not
/// start with the prefix followed by digits.
fn counted(l: &str, tok: &str, prefix: &str, min: u64) -> Option<Result<u64, String>> {
    let rest = l.strip_prefix(prefix)?;
    if rest.is_empty() {
        // The prefix matched case-insensitively, so these bytes are ASCII.
        let written = &tok[..prefix.len()];
        return Some(Err(format!("'{tok}' needs a count, e.g. '{written}1'")));
    }
    if !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match rest.parse::<u64>() {
        Ok(n) if n >= min => Ok(n),
        Ok(_) => Err(format!("'{tok}': the count must be at least {min}")),
        Err(_) => Err(format!("'{tok}': the count is too large")),
    })
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
        ENGINE => {
            if value.is_empty() || !value.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return Err(format!("'{tok}': an engine name is letters, digits and '_'"));
            }
            engine_spelling(value).map_or_else(|| value.to_string(), str::to_string)
        }
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

/// Dataset-shaped tokens: `10Mx8tab`, `10M_8tab`, `8tab`, `500K`, and TPC-C's
/// `1000W` and `10x100W`.
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
    if let Some(body) = l.strip_suffix('w') {
        let (datasets, warehouses) = match body.split_once('x') {
            Some((d, w)) => (parse_count(d)?, parse_count(w)?),
            None => (1, parse_count(body)?),
        };
        if datasets == 0 || warehouses == 0 {
            return Some(Err(format!("'{tok}': TPC-C needs at least 1 dataset of at least 1 warehouse")));
        }
        return Some(Ok(Tok::Warehouses { datasets, warehouses }));
    }
    parse_size(l).map(|r| r.map(|rows| Tok::Dataset { rows: Some(rows), tables: None }).ok_or_else(|| too_large(tok)))
}

fn too_large(tok: &str) -> String {
    format!("'{tok}' is too large for a size (at most {} rows)", u64::MAX)
}

/// Classifies a token by its shape. `Err(None)`: not a label token at all.
/// `Err(Some(msg))`: a label token written wrongly.
fn classify(tok: &str) -> Result<Tok, Option<String>> {
    let l = tok.to_ascii_lowercase();
    if is_sb_prefix(&l) {
        return Ok(Tok::Prefix);
    }
    if l == "prepare" {
        return Ok(Tok::Prepare);
    }
    if is_bmk_scenario(&l) {
        return Ok(Tok::Scenario);
    }
    if let Some(d) = DISTRIBUTIONS.iter().find(|d| **d == l) {
        return Ok(Tok::Dist(d));
    }
    let simple = match l.as_str() {
        "ps" => Some(Tok::Ps),
        "trx" => Some(Tok::Trx),
        "notrx" => Some(Tok::NoTrx),
        "reconnect" => Some(Tok::Reconnect),
        "socket" => Some(Tok::Socket),
        "null" => Some(Tok::Null),
        "nofk" => Some(Tok::Fk("nofk")),
        "nofk2" => Some(Tok::Fk("nofk2")),
        _ => None,
    };
    if let Some(t) = simple {
        return Ok(t);
    }
    if let Some(e) = engine_spelling(&l) {
        return Ok(Tok::Engine(e.to_string()));
    }
    if let Some((name, value)) = tok.split_once('=') {
        return explicit(tok, name, value).map_err(Some);
    }
    // p_sel0 is allowed: "no selects at all", which canonical() needs for an
    // OLTP_RW run without selects and without transactions (see there).
    if let Some(r) = counted(&l, tok, "p_sel", 0) {
        return r.map(|n| Tok::Mix(Mix::PointSelects(n))).map_err(Some);
    }
    if let Some(r) = counted(&l, tok, "upd_noidx", 1) {
        return r.map(|n| Tok::Mix(Mix::UpdNonIndex(n))).map_err(Some);
    }
    if let Some(r) = counted(&l, tok, "upd_idx", 1) {
        return r.map(|n| Tok::Mix(Mix::UpdIndex(n))).map_err(Some);
    }
    if let Some(r) = counted(&l, tok, "upd_insdel", 1) {
        return r.map(|n| Tok::Mix(Mix::UpdInsDel(n))).map_err(Some);
    }
    for (prefix, opt) in RANGE_TOKENS {
        if let Some(r) = counted(&l, tok, prefix, 1) {
            return r.map(|n| Tok::Mix(Mix::Ranges(opt, n))).map_err(Some);
        }
    }
    if let Some(r) = counted(&l, tok, "rsize", 1) {
        return r.map(Tok::RangeSize).map_err(Some);
    }
    match dataset(&l, tok) {
        Some(r) => r.map_err(Some),
        None => Err(None),
    }
}

/// The first `-` segment of a label, split the way BMK script names are built:
/// `[Prepare_]SCENARIO[_10M_8tab | _1000W]`.
struct Head {
    prepare: Option<String>,
    scenario: Option<String>,
    rest: Vec<String>,
}

fn split_head(seg: &str) -> Head {
    let parts: Vec<&str> = seg.split('_').collect();
    let starts_with_digit = |p: &str| p.starts_with(|c: char| c.is_ascii_digit());
    let mut i = 0;
    let mut prepare = None;
    if parts[0].eq_ignore_ascii_case("prepare") {
        prepare = Some(parts[0].to_string());
        i = 1;
    }
    let mut scenario = None;
    if i < parts.len() {
        let p = parts[i];
        let oltp_suffix = |s: &str| matches!(s.trim_end_matches('+').to_ascii_lowercase().as_str(), "ro" | "rw" | "wo");
        if p.eq_ignore_ascii_case("oltp") && i + 1 < parts.len() && oltp_suffix(parts[i + 1]) {
            scenario = Some(format!("{p}_{}", parts[i + 1]));
            i += 2;
        } else if p.eq_ignore_ascii_case("tpcc") {
            scenario = Some(p.to_string());
            i += 1;
        } else if !starts_with_digit(p) {
            // A fairbench workload name: everything up to the first size part.
            let start = i;
            while i < parts.len() && !starts_with_digit(parts[i]) {
                i += 1;
            }
            scenario = Some(parts[start..i].join("_"));
        }
    }
    Head { prepare, scenario, rest: parts[i..].iter().map(|s| s.to_string()).collect() }
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Prefix,
    Prepare,
    Scenario,
    Token,
}

/// Drops a leading directory and a `.sh` suffix.
pub fn strip_decorations(label: &str) -> &str {
    let base = label.rsplit(['/', '\\']).next().unwrap_or(label);
    match base.len().checked_sub(3).and_then(|i| base.get(i..).map(|s| (i, s))) {
        Some((i, suffix)) if suffix.eq_ignore_ascii_case(".sh") => &base[..i],
        _ => base,
    }
}

fn tokenize(body: &str) -> Result<Vec<(String, Role)>, (String, String)> {
    let segs: Vec<&str> = body.split('-').collect();
    if segs.iter().any(|s| s.is_empty()) {
        return Err((String::new(), "'' (an empty token): two '-' in a row, or a '-' at either end; tokens are separated by one '-'".to_string()));
    }
    let mut out = Vec::new();
    let mut k = 0;
    if segs.len() > 1 && is_sb_prefix(&segs[0].to_ascii_lowercase()) {
        out.push((segs[0].to_string(), Role::Prefix));
        k = 1;
    }
    let push_head = |out: &mut Vec<(String, Role)>, h: Head| {
        if let Some(p) = h.prepare {
            out.push((p, Role::Prepare));
        }
        if let Some(s) = h.scenario {
            out.push((s, Role::Scenario));
        }
        out.extend(h.rest.into_iter().map(|t| (t, Role::Token)));
    };
    let head = split_head(segs[k]);
    k += 1;
    let bare_prepare = head.prepare.is_some() && head.scenario.is_none() && head.rest.is_empty();
    push_head(&mut out, head);
    // "Prepare-TPCC-1000W", "Prepare-OLTP_RO-10Mx8tab": the scenario may follow
    // a bare Prepare as its own segment.
    if bare_prepare && k < segs.len() && matches!(classify(segs[k]), Ok(Tok::Scenario) | Err(None)) {
        let next = split_head(segs[k]);
        if next.prepare.is_none() && next.scenario.is_some() {
            push_head(&mut out, next);
            k += 1;
        }
    }
    out.extend(segs[k..].iter().map(|s| (s.to_string(), Role::Token)));
    Ok(out)
}

fn dist_meaning(d: &str) -> &'static str {
    match d {
        "uniform" => "uniform access: every row equally likely, so concurrent clients rarely touch the same rows",
        "pareto" => "pareto access: accesses grouped on hot rows, so clients contend for the same row locks",
        "zipfian" => "zipfian access: some rows far more often than others, spread wider than pareto",
        "gaussian" => "gaussian access: rows near the middle of the key range more often",
        _ => "sysbench 'special' access (its historical default): a small set of rows gets most accesses",
    }
}

/// What is accepted after the scenario, for error messages.
fn accepted(kind: Kind, prepare: bool) -> String {
    match (kind, prepare) {
        (Kind::Tpcc, false) => format!("a size (1000W, 10x100W), NULL, NoFK or NoFK2, an engine ({ENGINE_LIST}), ps, trx, socket"),
        (Kind::Tpcc, true) => format!("a size (1000W, 10x100W), NULL, NoFK or NoFK2, an engine ({ENGINE_LIST}), socket"),
        (_, true) => format!("a dataset size (10Mx8tab, 10M_8tab, 500K, 8tab), an engine ({ENGINE_LIST}), socket"),
        (_, false) => {
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
}

/// How often an option may be named, for conflict messages.
fn once_hint(opt: &str) -> String {
    match opt {
        TABLE_SIZE | TABLES => "one dataset size such as 10Mx8tab".into(),
        WAREHOUSES | DATASETS => "one TPC-C size such as 1000W or 10x100W".into(),
        ENGINE => "one storage engine".into(),
        RAND_TYPE => format!("one distribution ({})", DISTRIBUTIONS.join(", ")),
        FORCE_NULL => "NULL at most once".into(),
        FK => "at most one of NoFK and NoFK2".into(),
        PS_MODE => "ps at most once".into(),
        SKIP_TRX => "either trx or notrx, once".into(),
        RECONNECT => "reconnect at most once".into(),
        TRANSPORT => "socket at most once".into(),
        RANGE_SIZE => "one RsizeN".into(),
        _ => format!(
            "one query mix ({MIX_LIST}; OLTP_RW+ and OLTP_RW++ count as p_sel10 and p_sel1), \
             plus name=value only for settings the mix leaves alone"
        ),
    }
}

struct Parser<'a> {
    label: &'a str,
    workload: Option<String>,
    kind: Option<Kind>,
    /// What the label calls its scenario, for messages.
    scenario: String,
    prepare: bool,
    /// option, value, token that set it
    options: Vec<(&'static str, String, String)>,
    explanation: Vec<(String, String)>,
    insdel_token: Option<String>,
    notrx_token: Option<String>,
    tpcc_trx_token: Option<String>,
}

impl<'a> Parser<'a> {
    fn err(&self, token: &str, message: String) -> LabelError {
        LabelError { label: self.label.to_string(), token: token.to_string(), message }
    }

    fn set(&mut self, opt: &'static str, value: impl Into<String>, token: &str) -> Result<(), LabelError> {
        if let Some((_, _, prev)) = self.options.iter().find(|(o, _, _)| *o == opt) {
            let message = if prev == token {
                format!("'{token}' appears twice; a label names {}", once_hint(opt))
            } else {
                format!("'{token}' conflicts with '{prev}' (both set {opt}); a label names {}", once_hint(opt))
            };
            return Err(self.err(token, message));
        }
        self.options.push((opt, value.into(), token.to_string()));
        Ok(())
    }

    fn is_set(&self, opt: &str) -> bool {
        self.options.iter().any(|(o, _, _)| *o == opt)
    }

    /// Adds the explanation line for `token`, followed by what it set: the
    /// `extra` items, then every option set since `mark`.
    fn explain(&mut self, token: &str, meaning: &str, mark: usize, extra: &[String]) {
        let mut set: Vec<String> = extra.to_vec();
        set.extend(self.options[mark..].iter().map(|(o, v, _)| format!("{o}={v}")));
        let line = if set.is_empty() { meaning.to_string() } else { format!("{meaning} -> {}", set.join(", ")) };
        self.explanation.push((token.to_string(), line));
    }

    fn token(&mut self, tok: &str, role: Role) -> Result<(), LabelError> {
        match role {
            Role::Prefix => {
                self.explain(tok, "BMK-kit script prefix (the sysbench build the kit runs); ignored", 0, &[]);
                Ok(())
            }
            Role::Prepare => {
                if self.prepare {
                    return Err(self.err(tok, format!("'{tok}' appears twice; a label names Prepare at most once")));
                }
                self.prepare = true;
                let n = self.options.len();
                self.explain(tok, "prepare (create and load) the dataset instead of running", n, &["command prepare".into()]);
                Ok(())
            }
            Role::Scenario => self.scenario(tok),
            Role::Token => self.option(tok),
        }
    }

    fn scenario(&mut self, tok: &str) -> Result<(), LabelError> {
        let upper = tok.to_ascii_uppercase();
        let found = crate::workload::family::label_scenarios().find(|s| s.token.eq_ignore_ascii_case(tok));
        let (kind, workload, meaning, plus) = match found {
            Some(s) => (Kind::of_shape(s.shape), s.workload, s.meaning, s.point_selects),
            None if upper.starts_with("OLTP_") && upper.ends_with('+') => {
                return Err(self.err(tok, format!("'{tok}' is not a scenario: only OLTP_RW has the + and ++ variants; a label starts with {SCENARIO_LIST}")));
            }
            None => {
                if !is_workload_name(tok) || classify(tok).is_ok() {
                    return Err(self.err(tok, format!("'{tok}' is not a scenario; a label starts with {SCENARIO_LIST}")));
                }
                (Kind::of_workload(tok), tok, "fairbench workload (no BMK scenario name)", None)
            }
        };
        self.kind = Some(kind);
        self.workload = Some(workload.to_string());
        self.scenario = tok.to_string();
        let mark = self.options.len();
        if let Some(n) = plus {
            if self.prepare {
                return Err(self.err(tok, format!("'{tok}' names a query mix, which a Prepare label cannot carry; write OLTP_RW or leave the scenario out")));
            }
            self.set(POINT_SELECTS, n.to_string(), tok)?;
            self.set(RANGE_SELECTS, "off", tok)?;
        }
        self.explain(tok, &format!("scenario: {meaning}"), mark, &[format!("workload {workload}")]);
        Ok(())
    }

    /// A Prepare label without a scenario prepares the OLTP dataset.
    fn default_prepare_scenario(&mut self) {
        self.kind = Some(Kind::ReadWrite);
        self.workload = Some("oltp_read_write".into());
        self.scenario = "Prepare".into();
        let n = self.options.len();
        self.explain("(no scenario)", "a Prepare label without a scenario prepares the sysbench OLTP tables, which every OLTP scenario uses", n, &["workload oltp_read_write".into()]);
    }

    fn check_fits(&self, tok: &str, t: &Tok) -> Result<(), LabelError> {
        let kind = self.kind.expect("scenario known");
        let here = accepted(kind, self.prepare);
        let scen = &self.scenario;
        let fail = |msg: String| Err(self.err(tok, msg));
        if kind == Kind::Tpcc && t.oltp_only() {
            return fail(format!("'{tok}' belongs to the sysbench OLTP scenarios, not to TPCC; TPCC takes {here}"));
        }
        if kind != Kind::Tpcc && t.tpcc_only() {
            return fail(format!("'{tok}' is a TPC-C token, but the scenario is {scen}; {scen} takes {here}"));
        }
        if kind == Kind::Tpcc && *t == Tok::NoTrx {
            return fail(format!("'{tok}': TPC-C transactions always run inside BEGIN/COMMIT; TPCC takes {here}"));
        }
        if self.prepare && t.run_only() {
            return fail(format!("'{tok}' describes a run, but a Prepare label names only the dataset: {here}"));
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

    fn option(&mut self, tok: &str) -> Result<(), LabelError> {
        if self.kind.is_none() {
            if !self.prepare {
                return Err(self.err(tok, format!("'{tok}' cannot start a label; a label starts with {SCENARIO_LIST}")));
            }
            self.default_prepare_scenario();
        }
        let kind = self.kind.expect("scenario known");
        let t = match classify(tok) {
            Ok(t) => t,
            Err(None) => {
                let msg = format!("'{tok}' is not a label token; after {} come {}", self.scenario, accepted(kind, self.prepare));
                return Err(self.err(tok, msg));
            }
            Err(Some(m)) => return Err(self.err(tok, m)),
        };
        match t {
            Tok::Prefix => return Err(self.err(tok, format!("'{tok}': the sb11-/sb10- script prefix may only open the label"))),
            Tok::Prepare => return Err(self.err(tok, format!("'{tok}': Prepare must open the label (Prepare_10M_8tab, Prepare_TPCC_1000W)"))),
            Tok::Scenario => {
                return Err(self.err(tok, format!("'{tok}': a label names one scenario, and first; this one is already {}", self.scenario)));
            }
            _ => {}
        }
        self.check_fits(tok, &t)?;
        let mark = self.options.len();
        let meaning: String = match t {
            Tok::Dataset { rows, tables } => {
                if let Some(r) = rows {
                    self.set(TABLE_SIZE, r.to_string(), tok)?;
                }
                if let Some(n) = tables {
                    self.set(TABLES, n.to_string(), tok)?;
                }
                match (rows, tables) {
                    (Some(r), Some(n)) => format!("dataset: {n} table(s) of {r} rows each"),
                    (Some(r), None) => format!("dataset: {r} rows per table"),
                    (None, Some(n)) => format!("dataset: {n} table(s)"),
                    (None, None) => unreachable!("a dataset token sets something"),
                }
            }
            Tok::Warehouses { datasets, warehouses } => {
                self.set(WAREHOUSES, warehouses.to_string(), tok)?;
                self.set(DATASETS, datasets.to_string(), tok)?;
                if datasets == 1 {
                    format!("one TPC-C dataset of {warehouses} warehouses")
                } else {
                    let total = datasets.saturating_mul(warehouses);
                    format!("{datasets} TPC-C datasets of {warehouses} warehouses each ({total} in total), used in parallel")
                }
            }
            Tok::Dist(d) => {
                self.set(RAND_TYPE, d, tok)?;
                dist_meaning(d).to_string()
            }
            Tok::Ps => {
                self.set(PS_MODE, "auto", tok)?;
                "prepared statements".into()
            }
            Tok::Trx if kind == Kind::Tpcc => {
                if let Some(prev) = &self.tpcc_trx_token {
                    return Err(self.err(tok, format!("'{tok}' conflicts with '{prev}'; a label names trx at most once")));
                }
                self.tpcc_trx_token = Some(tok.to_string());
                "TPC-C always runs its transactions inside BEGIN/COMMIT; accepted, sets nothing".into()
            }
            Tok::Trx => {
                self.set(SKIP_TRX, "off", tok)?;
                "each event runs inside BEGIN/COMMIT".into()
            }
            Tok::NoTrx => {
                self.set(SKIP_TRX, "on", tok)?;
                self.notrx_token = Some(tok.to_string());
                "no transactions: every query autocommits".into()
            }
            Tok::Reconnect => {
                self.set(RECONNECT, "1", tok)?;
                "reconnect after every event (BMK's reconnect test; prepared statements gain nothing there)".into()
            }
            Tok::Socket => {
                self.set(TRANSPORT, "socket", tok)?;
                "connect through the UNIX socket instead of TCP".into()
            }
            Tok::Null => {
                self.set(FORCE_NULL, "on", tok)?;
                "NULL values as in the original TPC-C (more index lock contention than DEFAULT values)".into()
            }
            Tok::Fk(v) => {
                self.set(FK, v, tok)?;
                if v == "nofk" {
                    "no foreign keys (their secondary indexes are kept)".into()
                } else {
                    "no foreign keys and no secondary indexes for them".into()
                }
            }
            Tok::Engine(e) => {
                self.set(ENGINE, e, tok)?;
                "storage engine".into()
            }
            Tok::Mix(m) => self.mix(m, tok, kind)?,
            Tok::RangeSize(n) => {
                self.set(RANGE_SIZE, n.to_string(), tok)?;
                format!("range selects span {n} rows")
            }
            Tok::Explicit(opt, v) => {
                self.set(opt, v, tok)?;
                "explicit setting".into()
            }
            Tok::Prefix | Tok::Prepare | Tok::Scenario => unreachable!("handled above"),
        };
        self.explain(tok, &meaning, mark, &[]);
        Ok(())
    }

    fn no_selects(&mut self, tok: &str, kind: Kind) -> Result<(), LabelError> {
        // OLTP_WO has no select settings to clear.
        if kind.runs_selects() {
            self.set(POINT_SELECTS, "0", tok)?;
            self.set(RANGE_SELECTS, "off", tok)?;
        }
        Ok(())
    }

    fn writes(&mut self, tok: &str, counts: [u64; 3]) -> Result<(), LabelError> {
        for (opt, n) in WRITE_OPTIONS.into_iter().zip(counts) {
            self.set(opt, n.to_string(), tok)?;
        }
        Ok(())
    }

    fn mix(&mut self, m: Mix, tok: &str, kind: Kind) -> Result<String, LabelError> {
        Ok(match m {
            Mix::PointSelects(n) => {
                self.set(POINT_SELECTS, n.to_string(), tok)?;
                self.set(RANGE_SELECTS, "off", tok)?;
                if n == 1 && kind == Kind::ReadOnly {
                    "only 1 point select per event: the point-select test".into()
                } else {
                    format!("only {n} point select(s) per event, no range selects")
                }
            }
            Mix::UpdNonIndex(n) => {
                self.no_selects(tok, kind)?;
                self.writes(tok, [0, n, 0])?;
                format!("UPDATE-NoKEY: only {n} non-index UPDATE(s) per event, done in place")
            }
            Mix::UpdIndex(n) => {
                self.no_selects(tok, kind)?;
                self.writes(tok, [n, 0, 0])?;
                format!("UPDATE-KEY: only {n} UPDATE(s) of the indexed column k per event")
            }
            Mix::UpdInsDel(n) => {
                self.no_selects(tok, kind)?;
                self.writes(tok, [n, n, n])?;
                self.insdel_token = Some(tok.to_string());
                format!("write-only: {n} index UPDATE, {n} non-index UPDATE and {n} DELETE+INSERT per event, no selects")
            }
            Mix::Ranges(opt, n) => {
                self.set(POINT_SELECTS, "0", tok)?;
                self.set(RANGE_SELECTS, "on", tok)?;
                for o in RANGE_OPTIONS {
                    self.set(o, if o == opt { n.to_string() } else { "0".to_string() }, tok)?;
                }
                let what = opt.trim_end_matches("-ranges");
                format!("only {n} {what} range select(s) per event")
            }
        })
    }

    fn finish(mut self) -> Result<Decoded, LabelError> {
        if self.kind.is_none() {
            if !self.prepare {
                return Err(self.err("", format!("the label names no scenario; it starts with {SCENARIO_LIST}")));
            }
            self.default_prepare_scenario();
        }
        let kind = self.kind.expect("scenario known");
        if let (Some(ins), Some(notrx)) = (self.insdel_token.clone(), self.notrx_token.clone()) {
            return Err(self.err(
                &notrx,
                format!(
                    "'{notrx}' contradicts '{ins}': the write-only mix (UPDATEs + DELETE/INSERT) must run inside \
                     transactions, otherwise clients run into data conflicts and errors (BMK-kit guide); use trx"
                ),
            ));
        }
        // What a BMK name means by leaving a token out.
        if !self.prepare && !self.is_set(PS_MODE) {
            let n = self.options.len();
            self.options.push((PS_MODE, "disable".into(), "(no ps)".into()));
            self.explain("(no ps)", "no 'ps' token: BMK runs such a script without prepared statements", n, &[]);
        }
        if kind == Kind::Tpcc {
            if !self.is_set(FORCE_NULL) {
                let n = self.options.len();
                self.options.push((FORCE_NULL, "off".into(), "(no NULL)".into()));
                self.explain("(no NULL)", "no 'NULL' token: DEFAULT values instead of NULL (less index lock contention)", n, &[]);
            }
            if !self.is_set(FK) {
                let n = self.options.len();
                self.options.push((FK, "fk".into(), "(no NoFK)".into()));
                self.explain("(no NoFK)", "no 'NoFK'/'NoFK2' token: foreign keys are created", n, &[]);
            }
        }
        let mut options: Vec<(&str, String)> = self.options.into_iter().map(|(o, v, _)| (o, v)).collect();
        options.sort_by_key(|(o, _)| OPTION_ORDER.iter().position(|x| x == o).unwrap_or(usize::MAX));
        Ok(Decoded {
            workload: self.workload.expect("scenario known"),
            command: if self.prepare { "prepare" } else { "run" }.to_string(),
            options: options.into_iter().map(|(o, v)| (o.to_string(), v)).collect(),
            explanation: self.explanation,
        })
    }
}

/// Decodes a label (canonical form or BMK script name) into a workload,
/// a command and option settings. See the module docs for the grammar.
pub fn parse(label: &str) -> Result<Decoded, LabelError> {
    // A family with a grammar of its own claims its labels first.
    for f in crate::workload::FAMILIES {
        if let Some(r) = f.decode_label(label) {
            return r;
        }
    }
    let mut p = Parser {
        label,
        workload: None,
        kind: None,
        scenario: String::new(),
        prepare: false,
        options: Vec::new(),
        explanation: Vec::new(),
        insdel_token: None,
        notrx_token: None,
        tpcc_trx_token: None,
    };
    let body = strip_decorations(label.trim());
    if body.is_empty() {
        return Err(p.err("", "the label is empty; expected e.g. OLTP_RW-10Mx8tab-uniform-ps-trx".into()));
    }
    let tokens = tokenize(body).map_err(|(t, m)| p.err(&t, m))?;
    for (tok, role) in &tokens {
        p.token(tok, *role)?;
    }
    p.finish()
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
    if let Some(l) = crate::workload::family::find(workload).and_then(|f| f.canonical_label(workload, get)) {
        return l;
    }
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
    let engine = val(ENGINE).and_then(|e| match engine_spelling(&e) {
        Some(s) => Some(s.to_string()),
        None if e.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') => Some(format!("engine={e}")),
        None => None,
    });
    // BMK names the engine only in its Prepare scripts. A run label names it
    // only when it is not InnoDB (the default of sysbench and of MySQL), so a
    // MySQL run reads OLTP_RW-10Mx8tab-uniform-ps-trx, as in BMK.
    let engine = engine.filter(|e| prepare || e != "InnoDB");
    let ps = val(PS_MODE).is_some_and(|m| m.eq_ignore_ascii_case("auto"));
    let socket = val(TRANSPORT).is_some_and(|t| t.eq_ignore_ascii_case("socket"));

    if kind == Kind::Tpcc {
        if let Some(w) = num(WAREHOUSES) {
            match num(DATASETS) {
                Some(d) if d != 1 => parts.push(format!("{d}x{w}W")),
                _ => parts.push(format!("{w}W")),
            }
        }
        if flag(FORCE_NULL) == Some(true) {
            parts.push("NULL".into());
        }
        parts.extend(engine);
        match val(FK).map(|v| v.to_ascii_lowercase()).as_deref() {
            Some("nofk") => parts.push("NoFK".into()),
            Some("nofk2") => parts.push("NoFK2".into()),
            _ => {}
        }
        if !prepare && ps {
            parts.push("ps".into());
        }
        if socket {
            parts.push("socket".into());
        }
        return parts.join("-");
    }

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

/// true if the string looks like a label rather than a workload name (so the CLI can accept both in one position)
///
/// fairbench workload names are lowercase words joined by `_`
/// (`oltp_read_write`, `tpcc`). A label has a script path or `.sh`, an
/// `sb11-` prefix, a `-` followed by a label token, a size in its first
/// segment (`OLTP_RW_10M_8tab`, `TPCC_1000W`), `Prepare`, or a BMK scenario
/// name other than the workload name `tpcc` itself (`OLTP_RW`, `TPCC`).
pub fn looks_like_label(s: &str) -> bool {
    let s = s.trim();
    if s.is_empty() {
        return false;
    }
    if crate::workload::FAMILIES.iter().any(|f| f.decode_label(s).is_some()) {
        return true;
    }
    let lower = s.to_ascii_lowercase();
    if s.contains(['/', '\\']) || lower.ends_with(".sh") {
        return true;
    }
    let segs: Vec<&str> = s.split('-').collect();
    if segs.len() > 1 {
        if is_sb_prefix(&segs[0].to_ascii_lowercase()) {
            return true;
        }
        if segs[1..].iter().any(|t| !t.is_empty() && classify(t).is_ok()) {
            return true;
        }
    }
    let head = split_head(segs[0]);
    if head.prepare.is_some() || !head.rest.is_empty() {
        return true;
    }
    head.scenario.is_some_and(|sc| is_bmk_scenario(&sc) && sc != "tpcc")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected options, put into `OPTION_ORDER` so that tests can list them freely.
    fn opts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = pairs.iter().map(|(o, v)| (o.to_string(), v.to_string())).collect();
        v.sort_by_key(|(o, _)| OPTION_ORDER.iter().position(|x| x == o).expect("known option"));
        v
    }

    fn decode(label: &str) -> Decoded {
        parse(label).unwrap_or_else(|e| panic!("{label}: {e}"))
    }

    fn check(label: &str, workload: &str, command: &str, expected: &[(&str, &str)]) {
        let d = decode(label);
        assert_eq!(d.workload, workload, "{label}");
        assert_eq!(d.command, command, "{label}");
        assert_eq!(d.options, opts(expected), "{label}");
    }

    fn getter(d: &Decoded) -> impl Fn(&str) -> Option<String> + '_ {
        move |name: &str| {
            if name == "command" {
                return Some(d.command.clone());
            }
            d.options.iter().find(|(o, _)| o == name).map(|(_, v)| v.clone())
        }
    }

    fn canon(d: &Decoded) -> String {
        canonical(&d.workload, &getter(d))
    }

    const TEN_M_8: [(&str, &str); 2] = [("table-size", "10000000"), ("tables", "8")];

    fn with(base: &[(&'static str, &'static str)], more: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
        base.iter().chain(more).copied().collect()
    }

    // ---- the guide's canonical examples ----

    #[test]
    fn canonical_examples_decode() {
        check("OLTP_RW-10Mx8tab-uniform-ps-trx", "oltp_read_write", "run", &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "off")]));
        check("OLTP_RW-10Mx8tab-pareto-notrx", "oltp_read_write", "run", &with(&TEN_M_8, &[("rand-type", "pareto"), ("db-ps-mode", "disable"), ("skip-trx", "on")]));
        check(
            "OLTP_RO-10Mx8tab-uniform-ps-p_sel1-notrx",
            "oltp_read_only",
            "run",
            &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "auto"), ("point-selects", "1"), ("range-selects", "off"), ("skip-trx", "on")]),
        );
    }

    // ---- BMK script names ----

    #[test]
    fn script_names_decode() {
        let point_select = with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "auto"), ("point-selects", "1"), ("range-selects", "off"), ("skip-trx", "on")]);
        check("sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh", "oltp_read_only", "run", &point_select);
        check("/BMK/sb_exec/sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh", "oltp_read_only", "run", &point_select);
        check("OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx", "oltp_read_only", "run", &point_select);
        check("sb10-oltp_ro_10m_8tab-UNIFORM-PS-P_SEL1-NOTRX.SH", "oltp_read_only", "run", &point_select);

        check(
            "sb11-OLTP_RW_50M_8tab-uniform-ps-trx.sh",
            "oltp_read_write",
            "run",
            &[("table-size", "50000000"), ("tables", "8"), ("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "off")],
        );
        // The guide's OLTP_RW run without prepared statements.
        check("sb11-OLTP_RW_10M_8tab-uniform-trx.sh", "oltp_read_write", "run", &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "disable"), ("skip-trx", "off")]));
        check(
            "sb11-OLTP_RW_10M_8tab-uniform-upd_noidx1-notrx.sh",
            "oltp_read_write",
            "run",
            &with(
                &TEN_M_8,
                &[
                    ("rand-type", "uniform"),
                    ("db-ps-mode", "disable"),
                    ("point-selects", "0"),
                    ("range-selects", "off"),
                    ("index-updates", "0"),
                    ("non-index-updates", "1"),
                    ("delete-inserts", "0"),
                    ("skip-trx", "on"),
                ],
            ),
        );
        check(
            "sb11-OLTP_RW_10M_8tab-uniform-upd_idx1-notrx.sh",
            "oltp_read_write",
            "run",
            &with(
                &TEN_M_8,
                &[
                    ("rand-type", "uniform"),
                    ("db-ps-mode", "disable"),
                    ("point-selects", "0"),
                    ("range-selects", "off"),
                    ("index-updates", "1"),
                    ("non-index-updates", "0"),
                    ("delete-inserts", "0"),
                    ("skip-trx", "on"),
                ],
            ),
        );
        check(
            "sb11-OLTP_RW_10M_8tab-uniform-upd_insdel1-trx.sh",
            "oltp_read_write",
            "run",
            &with(
                &TEN_M_8,
                &[
                    ("rand-type", "uniform"),
                    ("db-ps-mode", "disable"),
                    ("point-selects", "0"),
                    ("range-selects", "off"),
                    ("index-updates", "1"),
                    ("non-index-updates", "1"),
                    ("delete-inserts", "1"),
                    ("skip-trx", "off"),
                ],
            ),
        );
        check(
            "sb11-OLTP_RO_10M_8tab-uniform-p_sel1-reconnect-notrx.sh",
            "oltp_read_only",
            "run",
            &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "disable"), ("point-selects", "1"), ("range-selects", "off"), ("reconnect", "1"), ("skip-trx", "on")]),
        );
        check("sb11-Prepare_10M_8tab-InnoDB.sh", "oltp_read_write", "prepare", &with(&TEN_M_8, &[("mysql-storage-engine", "InnoDB")]));
        check("sb11-Prepare_50M_8tab-InnoDB.sh", "oltp_read_write", "prepare", &[("table-size", "50000000"), ("tables", "8"), ("mysql-storage-engine", "InnoDB")]);
    }

    #[test]
    fn socket_and_distributions() {
        // Real BMK names put socket after trx/notrx.
        check(
            "sb11-OLTP_RO_10M_8tab-pareto-p_sel1-notrx-socket.sh",
            "oltp_read_only",
            "run",
            &with(&TEN_M_8, &[("rand-type", "pareto"), ("db-ps-mode", "disable"), ("point-selects", "1"), ("range-selects", "off"), ("skip-trx", "on"), ("transport", "socket")]),
        );
        check(
            "sb11-OLTP_RO_1M_8tab-pareto-ps-p_sel1-reconnect-notrx-socket.sh",
            "oltp_read_only",
            "run",
            &[
                ("table-size", "1000000"),
                ("tables", "8"),
                ("rand-type", "pareto"),
                ("db-ps-mode", "auto"),
                ("point-selects", "1"),
                ("range-selects", "off"),
                ("reconnect", "1"),
                ("skip-trx", "on"),
                ("transport", "socket"),
            ],
        );
        check("OLTP_RW-10Mx8tab-uniform-ps-socket-trx", "oltp_read_write", "run", &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "off"), ("transport", "socket")]));
        for d in ["uniform", "gaussian", "special", "pareto", "zipfian"] {
            let d_up = d.to_ascii_uppercase();
            for label in [format!("OLTP_RW-10Mx8tab-{d}-ps-trx"), format!("sb11-OLTP_RW_10M_8tab-{d_up}-trx.sh")] {
                assert_eq!(decode(&label).options.iter().find(|(o, _)| o == "rand-type").map(|(_, v)| v.as_str()), Some(d), "{label}");
            }
        }
    }

    #[test]
    fn rw_plus_variants_and_other_scenarios() {
        assert_eq!(decode("OLTP_RW+-10Mx8tab-uniform-trx").options, decode("OLTP_RW-10Mx8tab-uniform-p_sel10-trx").options);
        assert_eq!(decode("OLTP_RW++-10Mx8tab-uniform-trx").options, decode("OLTP_RW-10Mx8tab-uniform-p_sel1-trx").options);
        check(
            "sb11-OLTP_RW+_10M_8tab-uniform-trx.sh",
            "oltp_read_write",
            "run",
            &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "disable"), ("point-selects", "10"), ("range-selects", "off"), ("skip-trx", "off")]),
        );
        check("OLTP_WO-10Mx8tab-uniform-ps-trx", "oltp_write_only", "run", &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "off")]));
        // On OLTP_WO a write token only touches the writes.
        check(
            "OLTP_WO-10Mx8tab-uniform-upd_noidx2-notrx",
            "oltp_write_only",
            "run",
            &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "disable"), ("index-updates", "0"), ("non-index-updates", "2"), ("delete-inserts", "0"), ("skip-trx", "on")]),
        );
        check(
            "oltp_update_index-10Kx1tab-uniform-ps-notrx",
            "oltp_update_index",
            "run",
            &[("table-size", "10000"), ("tables", "1"), ("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "on")],
        );
        check("bulk_insert-1tab-ps", "bulk_insert", "run", &[("tables", "1"), ("db-ps-mode", "auto")]);
        // Without trx/notrx, skip-trx is left alone.
        check("OLTP_RW-10Mx8tab-uniform", "oltp_read_write", "run", &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "disable")]));
    }

    #[test]
    fn sizes() {
        let size = |label: &str| {
            let d = decode(label);
            let get = |o: &str| d.options.iter().find(|(n, _)| n == o).map(|(_, v)| v.clone());
            (get("table-size"), get("tables"))
        };
        let s = |a: &str, b: &str| (Some(a.to_string()), Some(b.to_string()));
        assert_eq!(size("OLTP_RW-50Mx1tab-uniform-trx"), s("50000000", "1"));
        assert_eq!(size("OLTP_RW-400Mx1tab-uniform-trx"), s("400000000", "1"));
        assert_eq!(size("OLTP_RW-400M_1tab-uniform-trx"), s("400000000", "1"));
        assert_eq!(size("sb11-OLTP_RW_400M_1tab-uniform-trx.sh"), s("400000000", "1"));
        assert_eq!(size("OLTP_RW-500Kx4tab-uniform-trx"), s("500000", "4"));
        assert_eq!(size("OLTP_RW-1Bx1tab-uniform-trx"), s("1000000000", "1"));
        assert_eq!(size("OLTP_RW-1500x2tab-uniform-trx"), s("1500", "2"));
        assert_eq!(size("OLTP_RW-10mX8TAB-uniform-trx"), s("10000000", "8"));
        assert_eq!(size("OLTP_RW-10M-uniform-trx"), (Some("10000000".into()), None));
        assert_eq!(size("OLTP_RW-8tab-uniform-trx"), (None, Some("8".into())));
        assert_eq!(compact(10_000), "10K");
        assert_eq!(compact(10_000_000), "10M");
        assert_eq!(compact(1500), "1500");
        assert_eq!(compact(1_500_000), "1500K");
        assert_eq!(compact(2_000_000_000), "2B");
        assert_eq!(compact(0), "0");
    }

    #[test]
    fn range_tokens_from_bmk_names() {
        check(
            "sb11-OLTP_RO_10M_8tab-pareto-sum_ranges1-notrx-socket.sh",
            "oltp_read_only",
            "run",
            &with(
                &TEN_M_8,
                &[
                    ("rand-type", "pareto"),
                    ("db-ps-mode", "disable"),
                    ("point-selects", "0"),
                    ("range-selects", "on"),
                    ("simple-ranges", "0"),
                    ("sum-ranges", "1"),
                    ("order-ranges", "0"),
                    ("distinct-ranges", "0"),
                    ("skip-trx", "on"),
                    ("transport", "socket"),
                ],
            ),
        );
        check(
            "sb11-OLTP_RO_10M_8tab-uniform-ps-dst_ranges1-Rsize10-notrx.sh",
            "oltp_read_only",
            "run",
            &with(
                &TEN_M_8,
                &[
                    ("rand-type", "uniform"),
                    ("db-ps-mode", "auto"),
                    ("point-selects", "0"),
                    ("range-selects", "on"),
                    ("simple-ranges", "0"),
                    ("sum-ranges", "0"),
                    ("order-ranges", "0"),
                    ("distinct-ranges", "1"),
                    ("range-size", "10"),
                    ("skip-trx", "on"),
                ],
            ),
        );
        let d = decode("OLTP_RO-10Mx8tab-pareto-s_ranges2-notrx");
        assert!(d.options.contains(&("simple-ranges".into(), "2".into())));
    }

    #[test]
    fn tpcc_labels() {
        let run_defaults = [("force-null", "off"), ("fk", "fk"), ("db-ps-mode", "disable")];
        check("sb11-TPCC_1000W.sh", "tpcc", "run", &with(&[("warehouses", "1000"), ("datasets", "1")], &run_defaults));
        check("TPCC_1000W", "tpcc", "run", &with(&[("warehouses", "1000"), ("datasets", "1")], &run_defaults));
        check("sb11-TPCC_10x100W.sh", "tpcc", "run", &with(&[("warehouses", "100"), ("datasets", "10")], &run_defaults));
        check("sb11-TPCC_1000W-NULL.sh", "tpcc", "run", &[("warehouses", "1000"), ("datasets", "1"), ("force-null", "on"), ("fk", "fk"), ("db-ps-mode", "disable")]);
        check("sb11-Prepare_TPCC_1000W-NULL-InnoDB-NoFK.sh", "tpcc", "prepare", &[("warehouses", "1000"), ("datasets", "1"), ("mysql-storage-engine", "InnoDB"), ("force-null", "on"), ("fk", "nofk")]);
        check("sb11-Prepare_TPCC_1000W-InnoDB-NoFK.sh", "tpcc", "prepare", &[("warehouses", "1000"), ("datasets", "1"), ("mysql-storage-engine", "InnoDB"), ("force-null", "off"), ("fk", "nofk")]);
        check("sb11-Prepare_TPCC_10x100W-InnoDB-NoFK2.sh", "tpcc", "prepare", &[("warehouses", "100"), ("datasets", "10"), ("mysql-storage-engine", "InnoDB"), ("force-null", "off"), ("fk", "nofk2")]);
        check("TPCC-10x100W-NULL-NoFK2-ps-trx", "tpcc", "run", &[("warehouses", "100"), ("datasets", "10"), ("force-null", "on"), ("fk", "nofk2"), ("db-ps-mode", "auto")]);
        check("Prepare-TPCC-1000W", "tpcc", "prepare", &[("warehouses", "1000"), ("datasets", "1"), ("force-null", "off"), ("fk", "fk")]);
    }

    #[test]
    fn explicit_settings() {
        check(
            "OLTP_RW-10Mx8tab-uniform-p_sel1-index_updates=2-engine=Spider-trx",
            "oltp_read_write",
            "run",
            &with(
                &TEN_M_8,
                &[
                    ("mysql-storage-engine", "Spider"),
                    ("rand-type", "uniform"),
                    ("db-ps-mode", "disable"),
                    ("point-selects", "1"),
                    ("range-selects", "off"),
                    ("index-updates", "2"),
                    ("skip-trx", "off"),
                ],
            ),
        );
        check("OLTP_RW-range_selects=OFF-reconnect=50", "oltp_read_write", "run", &[("db-ps-mode", "disable"), ("range-selects", "off"), ("reconnect", "50")]);
    }

    #[test]
    fn options_come_in_stable_order() {
        let a = decode("OLTP_RO-10Mx8tab-uniform-ps-p_sel1-notrx");
        let b = decode("OLTP_RO-notrx-p_sel1-ps-uniform-10Mx8tab");
        assert_eq!(a.options, b.options);
        let idx: Vec<usize> = a.options.iter().map(|(o, _)| OPTION_ORDER.iter().position(|x| x == o).unwrap()).collect();
        assert!(idx.windows(2).all(|w| w[0] < w[1]), "{idx:?}");
    }

    #[test]
    fn explanation_covers_every_token() {
        let d = decode("sb11-OLTP_RO_10M_8tab-uniform-p_sel1-reconnect-notrx.sh");
        let tokens: Vec<&str> = d.explanation.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(tokens, ["sb11", "OLTP_RO", "10M", "8tab", "uniform", "p_sel1", "reconnect", "notrx", "(no ps)"]);
        let line = |t: &str| d.explanation.iter().find(|(x, _)| x == t).unwrap().1.clone();
        assert!(line("OLTP_RO").contains("workload oltp_read_only"), "{}", line("OLTP_RO"));
        assert!(line("p_sel1").contains("point-selects=1, range-selects=off"), "{}", line("p_sel1"));
        assert!(line("(no ps)").contains("db-ps-mode=disable"));
        let tpcc = decode("TPCC_10x100W");
        let lines: Vec<&str> = tpcc.explanation.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(lines, ["TPCC", "10x100W", "(no ps)", "(no NULL)", "(no NoFK)"]);
    }

    // ---- canonical ----

    #[test]
    fn canonical_from_settings() {
        let settings = |pairs: &'static [(&'static str, &'static str)]| move |name: &str| pairs.iter().find(|(o, _)| *o == name).map(|(_, v)| v.to_string());
        let rw = settings(&[("table-size", "10000000"), ("tables", "8"), ("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "off")]);
        assert_eq!(canonical("oltp_read_write", &rw), "OLTP_RW-10Mx8tab-uniform-ps-trx");
        let ui = settings(&[("table-size", "10000"), ("tables", "1"), ("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "on")]);
        assert_eq!(canonical("oltp_update_index", &ui), "oltp_update_index-10Kx1tab-uniform-ps-notrx");
        let odd = settings(&[("table-size", "1500"), ("tables", "3"), ("rand-type", "zipfian"), ("db-ps-mode", "disable")]);
        assert_eq!(canonical("oltp_read_only", &odd), "OLTP_RO-1500x3tab-zipfian");

        // Effective settings include sysbench's defaults; they print nothing.
        let defaults = settings(&[
            ("table-size", "10000000"),
            ("tables", "8"),
            ("rand-type", "pareto"),
            ("db-ps-mode", "disable"),
            ("point-selects", "10"),
            ("range-selects", "on"),
            ("simple-ranges", "1"),
            ("sum-ranges", "1"),
            ("order-ranges", "1"),
            ("distinct-ranges", "1"),
            ("index-updates", "1"),
            ("non-index-updates", "1"),
            ("delete-inserts", "1"),
            ("range-size", "100"),
            ("reconnect", "0"),
            ("skip-trx", "on"),
            ("transport", "tcp"),
        ]);
        assert_eq!(canonical("oltp_read_write", &defaults), "OLTP_RW-10Mx8tab-pareto-notrx");

        let tpcc = settings(&[("warehouses", "100"), ("datasets", "10"), ("force-null", "on"), ("fk", "nofk"), ("db-ps-mode", "auto"), ("skip-trx", "off")]);
        assert_eq!(canonical("tpcc", &tpcc), "TPCC-10x100W-NULL-NoFK-ps");
        let tpcc1 = settings(&[("warehouses", "1000"), ("datasets", "1"), ("force-null", "off"), ("fk", "fk"), ("db-ps-mode", "disable")]);
        assert_eq!(canonical("tpcc", &tpcc1), "TPCC-1000W");

        let prep = settings(&[("command", "prepare"), ("table-size", "10000000"), ("tables", "8"), ("mysql-storage-engine", "innodb"), ("rand-type", "uniform")]);
        assert_eq!(canonical("oltp_read_write", &prep), "Prepare-10Mx8tab-InnoDB");
        let bmk_order = settings(&[
            ("table-size", "1000000"),
            ("tables", "8"),
            ("rand-type", "pareto"),
            ("db-ps-mode", "auto"),
            ("point-selects", "1"),
            ("range-selects", "off"),
            ("reconnect", "1"),
            ("skip-trx", "on"),
            ("transport", "socket"),
        ]);
        assert_eq!(canonical("oltp_read_only", &bmk_order), "OLTP_RO-1Mx8tab-pareto-ps-p_sel1-reconnect-notrx-socket");
    }

    /// Every label form the module documents: canonical -> parse gives the
    /// same workload, command and options, and canonical is a fixpoint.
    const ROUND_TRIP: &[&str] = &[
        "OLTP_RW-10Mx8tab-uniform-ps-trx",
        "OLTP_RW-10Mx8tab-pareto-notrx",
        "OLTP_RO-10Mx8tab-uniform-ps-p_sel1-notrx",
        "sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh",
        "sb11-OLTP_RW_50M_8tab-uniform-ps-trx.sh",
        "sb11-OLTP_RW_10M_8tab-uniform-trx.sh",
        "sb11-OLTP_RW_10M_8tab-uniform-p_sel10-trx.sh",
        "sb11-OLTP_RW_10M_8tab-uniform-p_sel1-trx.sh",
        "OLTP_RW+-10Mx8tab-uniform-ps-trx",
        "OLTP_RW++-10Mx8tab-uniform-ps-trx",
        "sb11-OLTP_RW_10M_8tab-uniform-upd_noidx1-notrx.sh",
        "sb11-OLTP_RW_10M_8tab-uniform-upd_idx1-notrx.sh",
        "sb11-OLTP_RW_10M_8tab-uniform-upd_insdel1-trx.sh",
        "sb11-OLTP_RO_10M_8tab-uniform-p_sel1-reconnect-notrx.sh",
        "sb11-OLTP_RO_10M_8tab-pareto-p_sel1-notrx-socket.sh",
        "sb11-OLTP_RO_1M_8tab-pareto-ps-p_sel1-reconnect-notrx-socket.sh",
        "sb11-OLTP_RO_10M_8tab-pareto-trx-socket.sh",
        "sb11-OLTP_RO_10M_8tab-pareto-sum_ranges1-notrx-socket.sh",
        "sb11-OLTP_RO_10M_8tab-pareto-s_ranges1-notrx-socket.sh",
        "sb11-OLTP_RO_10M_8tab-uniform-ps-dst_ranges1-Rsize10-notrx.sh",
        "OLTP_RO-10Mx8tab-uniform-ord_ranges3-notrx",
        "sb11-OLTP_RW_10M_8tab-zipfian-ps-trx.sh",
        "sb11-OLTP_RW_10M_8tab-gaussian-trx.sh",
        "sb11-OLTP_RW_10M_8tab-special-notrx.sh",
        "OLTP_RW-50Mx1tab-uniform-ps-trx",
        "OLTP_RW-400Mx1tab-uniform-ps-trx",
        "OLTP_RW-500Kx2tab-uniform-ps-trx",
        "OLTP_RW-1500x2tab-uniform-ps-trx",
        "OLTP_RW-10Mx8tab-RocksDB-uniform-ps-trx",
        "OLTP_RW-10Mx8tab-uniform",
        "OLTP_WO-10Mx8tab-uniform-ps-trx",
        "OLTP_WO-10Mx8tab-uniform-upd_noidx2-notrx",
        "OLTP_WO-10Mx8tab-uniform-upd_insdel2-trx",
        "OLTP_RW-10Mx8tab-uniform-upd_insdel3-trx",
        "OLTP_RW-10Mx8tab-uniform-p_sel0-notrx",
        "OLTP_RW-10Mx8tab-uniform-p_sel1-index_updates=2-engine=Spider-trx",
        "OLTP_RW-10Mx8tab-uniform-point_selects=5-sum_ranges=0-reconnect=50-notrx",
        "oltp_update_index-10Kx1tab-uniform-ps-notrx",
        "oltp_point_select-10Kx1tab-uniform-ps-notrx",
        "bulk_insert-1tab-ps",
        "sb11-Prepare_10M_8tab-InnoDB.sh",
        "sb11-Prepare_50M_8tab-InnoDB.sh",
        "Prepare-OLTP_RO-10Mx8tab",
        "Prepare-oltp_insert-10Kx1tab-socket",
        "sb11-TPCC_1000W.sh",
        "sb11-TPCC_10x100W.sh",
        "sb11-TPCC_1000W-NULL.sh",
        "TPCC-10x100W-NULL-NoFK2-ps-trx",
        "TPCC-1000W-RocksDB-NoFK-socket",
        "sb11-Prepare_TPCC_1000W-InnoDB-NoFK.sh",
        "sb11-Prepare_TPCC_10x100W-InnoDB-NoFK.sh",
        "sb11-Prepare_TPCC_1000W-NULL-InnoDB-NoFK.sh",
        "sb11-Prepare_TPCC_1000W-InnoDB-NoFK2.sh",
    ];

    #[test]
    fn round_trip() {
        for label in ROUND_TRIP {
            let d1 = decode(label);
            let c1 = canon(&d1);
            let d2 = parse(&c1).unwrap_or_else(|e| panic!("{label} -> {c1}: {e}"));
            assert_eq!((&d2.workload, &d2.command), (&d1.workload, &d1.command), "{label} -> {c1}");
            assert_eq!(d2.options, d1.options, "{label} -> {c1}");
            assert_eq!(canon(&d2), c1, "{label}: canonical is not a fixpoint");
            assert!(looks_like_label(label), "{label}");
            assert!(looks_like_label(&c1), "{c1}");
        }
        assert_eq!(canon(&decode("sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh")), "OLTP_RO-10Mx8tab-uniform-ps-p_sel1-notrx");
        assert_eq!(canon(&decode("sb11-OLTP_RW_10M_8tab-uniform-upd_noidx1-notrx.sh")), "OLTP_RW-10Mx8tab-uniform-upd_noidx1-notrx");
        assert_eq!(canon(&decode("OLTP_RW++-10Mx8tab-uniform-ps-trx")), "OLTP_RW-10Mx8tab-uniform-ps-p_sel1-trx");
        assert_eq!(canon(&decode("sb11-Prepare_TPCC_1000W-NULL-InnoDB-NoFK.sh")), "Prepare-TPCC-1000W-NULL-InnoDB-NoFK");
        assert_eq!(canon(&decode("sb11-Prepare_10M_8tab-InnoDB.sh")), "Prepare-10Mx8tab-InnoDB");
        assert_eq!(canon(&decode("sb11-TPCC_10x100W.sh")), "TPCC-10x100W");
    }

    /// Settings in effect, with sysbench's defaults filled in, so that labels
    /// that differ only in spelling out a default compare equal.
    fn effective(d: &Decoded) -> Vec<(String, String)> {
        let kind = Kind::of_workload(&d.workload);
        let mut all: Vec<(String, String)> = d.options.clone();
        let mut default = |o: &str, v: &str| {
            if !all.iter().any(|(n, _)| n == o) {
                all.push((o.into(), v.into()));
            }
        };
        if kind.runs_selects() {
            default(POINT_SELECTS, "10");
            default(RANGE_SELECTS, "on");
            for o in RANGE_OPTIONS {
                default(o, "1");
            }
            default(RANGE_SIZE, "100");
        }
        if kind.runs_writes() {
            for o in WRITE_OPTIONS {
                default(o, "1");
            }
        }
        default(RECONNECT, "0");
        let ranges_off = all.iter().any(|(o, v)| o == RANGE_SELECTS && v == "off");
        // With range selects off, the range counts do not matter.
        all.retain(|(o, _)| !(ranges_off && RANGE_OPTIONS.contains(&o.as_str())));
        all.sort();
        all
    }

    /// The one form that does not keep its options word for word:
    /// upd_insdel1 is OLTP_WO's own mix, so canonical() has nothing to print
    /// for it. The effect is the same.
    #[test]
    fn write_only_own_mix_round_trips_by_effect() {
        let d1 = decode("OLTP_WO-10Mx8tab-uniform-upd_insdel1-trx");
        let c1 = canon(&d1);
        assert_eq!(c1, "OLTP_WO-10Mx8tab-uniform-trx");
        let d2 = decode(&c1);
        assert_ne!(d2.options, d1.options);
        assert_eq!(effective(&d2), effective(&d1));
    }

    /// Run labels leave out the default engine, as BMK's run scripts do.
    /// Prepare labels keep it.
    #[test]
    fn innodb_only_in_prepare_labels() {
        let run = decode("OLTP_RW-10Mx8tab-InnoDB-uniform-ps-trx");
        assert_eq!(canon(&run), "OLTP_RW-10Mx8tab-uniform-ps-trx");
        let tpcc = decode("TPCC_1000W-NULL-InnoDB-NoFK");
        assert_eq!(canon(&tpcc), "TPCC-1000W-NULL-NoFK");
        let prep = decode("sb11-Prepare_TPCC_1000W-NULL-InnoDB-NoFK.sh");
        assert_eq!(canon(&prep), "Prepare-TPCC-1000W-NULL-InnoDB-NoFK");
        let myrocks = decode("OLTP_RW-10Mx8tab-MyRocks-uniform-ps-trx");
        assert_eq!(canon(&myrocks), "OLTP_RW-10Mx8tab-RocksDB-uniform-ps-trx");
    }

    /// What fairbench's own `get` reports: every setting in effect, including
    /// the fixed mix of a workload that has no BMK scenario.
    #[test]
    fn canonical_with_every_setting_reported() {
        let report = |pairs: Vec<(&'static str, &'static str)>| move |name: &str| pairs.iter().find(|(o, _)| *o == name).map(|(_, v)| v.to_string());
        let common = [
            ("table-size", "10000"),
            ("tables", "1"),
            ("rand-type", "uniform"),
            ("db-ps-mode", "auto"),
            ("skip-trx", "on"),
            ("reconnect", "0"),
            ("transport", "tcp"),
            ("mysql-storage-engine", "innodb"),
        ];
        let update_index = report(with(
            &common,
            &[
                ("point-selects", "0"),
                ("range-selects", "off"),
                ("simple-ranges", "0"),
                ("sum-ranges", "0"),
                ("order-ranges", "0"),
                ("distinct-ranges", "0"),
                ("index-updates", "1"),
                ("non-index-updates", "0"),
                ("delete-inserts", "0"),
            ],
        ));
        assert_eq!(canonical("oltp_update_index", &update_index), "oltp_update_index-10Kx1tab-uniform-ps-notrx");
        let point_select = report(with(&common, &[("point-selects", "1"), ("range-selects", "off"), ("index-updates", "0")]));
        assert_eq!(canonical("oltp_point_select", &point_select), "oltp_point_select-10Kx1tab-uniform-ps-notrx");
        // The same settings on OLTP_RO are BMK's point-select test.
        assert_eq!(canonical("oltp_read_only", &point_select), "OLTP_RO-10Kx1tab-uniform-ps-p_sel1-notrx");
    }

    /// canonical() must print a parseable label for any combination of
    /// settings, with the same effect.
    #[test]
    fn canonical_is_total_over_mixes() {
        // Every combination of these values: a mixed-radix walk.
        let axes: [(&str, &[&str]); 10] = [
            ("workload", &["oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_delete"]),
            ("point-selects", &["0", "1", "2", "10"]),
            ("range-selects", &["on", "off"]),
            ("simple-ranges", &["0", "1", "3"]),
            ("sum-ranges", &["0", "1"]),
            ("index-updates", &["0", "1", "2", "10"]),
            ("non-index-updates", &["0", "1", "2", "10"]),
            ("delete-inserts", &["0", "1", "2"]),
            ("skip-trx", &["on", "off"]),
            ("reconnect", &["0", "1", "7"]),
        ];
        let total: usize = axes.iter().map(|(_, values)| values.len()).product();
        for mut n in 0..total {
            let mut settings: Vec<(&str, &str)> = vec![("table-size", "10000"), ("tables", "2"), ("rand-type", "uniform"), ("db-ps-mode", "auto"), ("order-ranges", "1"), ("distinct-ranges", "1")];
            for (name, values) in axes {
                settings.push((name, values[n % values.len()]));
                n /= values.len();
            }
            let workload = settings.iter().find(|(o, _)| *o == "workload").unwrap().1;
            settings.retain(|(o, _)| *o != "workload");
            let get = |name: &str| settings.iter().find(|(o, _)| *o == name).map(|(_, v)| v.to_string());
            let label = canonical(workload, &get);
            let d = parse(&label).unwrap_or_else(|e| panic!("{workload} {settings:?} -> {label}: {e}"));
            // What the workload actually uses of those settings.
            let kind = Kind::of_workload(workload);
            let applies = |o: &str| (kind.runs_selects() || !READ_OPTIONS.contains(&o)) && (kind.runs_writes() || !WRITE_OPTIONS.contains(&o));
            let expected = Decoded {
                workload: workload.into(),
                command: "run".into(),
                options: settings.iter().filter(|(o, _)| applies(o)).map(|(o, v)| (o.to_string(), v.to_string())).collect(),
                explanation: vec![],
            };
            assert_eq!(effective(&d), effective(&expected), "{workload} {settings:?} -> {label}");
        }
    }

    // ---- errors ----

    fn expect_err(label: &str, token: &str) -> LabelError {
        let e = match parse(label) {
            Ok(d) => panic!("{label} should fail, got {d:?}"),
            Err(e) => e,
        };
        assert_eq!(e.token, token, "{label}: {e}");
        assert_eq!(e.label, label);
        assert!(e.message.contains(&format!("'{token}'")), "{label}: message does not name '{token}': {}", e.message);
        let line = e.to_string();
        assert!(!line.contains('\n') && line.contains(label), "{line}");
        e
    }

    #[test]
    fn errors_name_the_bad_token() {
        let e = expect_err("OLTP_RW-10Mx8tab-unifrom-ps-trx", "unifrom");
        assert!(e.message.contains("uniform, gaussian, special, pareto, zipfian"), "{}", e.message);
        let e = expect_err("OLTP_RW-10Mx8tab-uniform-trx-notrx", "notrx");
        assert!(e.message.contains("'trx'") && e.message.contains("either trx or notrx"), "{}", e.message);
        let e = expect_err("OLTP_RW-10Mx8tab-uniform-pareto-trx", "pareto");
        assert!(e.message.contains("'uniform'") && e.message.contains("one distribution"), "{}", e.message);
        let e = expect_err("OLTP_RW-10Mx8tab-50Mx8tab-uniform-trx", "50Mx8tab");
        assert!(e.message.contains("one dataset size"), "{}", e.message);
        expect_err("sb11-OLTP_RW_10M_8tab-uniform-10M_8tab-trx.sh", "10M_8tab");
        let e = expect_err("sb11-OLTP_RW_10M_8tab-uniform-upd_insdel1-notrx.sh", "notrx");
        assert!(e.message.contains("'upd_insdel1'") && e.message.contains("transactions"), "{}", e.message);
        expect_err("OLTP_RW-10Mx8tab-uniform-ps-ps-trx", "ps");
        expect_err("OLTP_RW-10Mx8tab-uniform-p_sel1-upd_noidx1-trx", "upd_noidx1");
        expect_err("OLTP_RW+-10Mx8tab-uniform-p_sel1-trx", "p_sel1");
        expect_err("OLTP_RW-10Mx8tab-uniform-upd_noidx1-non_index_updates=2-trx", "non_index_updates=2");
        expect_err("OLTP_RW-10Mx8tab-uniform-p_sel-trx", "p_sel");
        expect_err("OLTP_RW-10Mx8tab-uniform-upd_idx0-trx", "upd_idx0");
        expect_err("OLTP_RW-10Mx8tab-uniform-socket-socket", "socket");
        expect_err("OLTP_RW-10Mx8tab-InnoDB-MyISAM", "MyISAM");
        expect_err("OLTP_RW-0tab", "0tab");
        expect_err("OLTP_RW-99999999999999999999M", "99999999999999999999M");
        expect_err("OLTP_RW-colour=blue", "colour=blue");
        expect_err("OLTP_RW-point_selects=many", "point_selects=many");
    }

    #[test]
    fn errors_for_tokens_in_the_wrong_scenario() {
        let e = expect_err("OLTP_RO-10Mx8tab-uniform-upd_noidx1-notrx", "upd_noidx1");
        assert!(e.message.contains("OLTP_RO runs no writes"), "{}", e.message);
        expect_err("OLTP_WO-10Mx8tab-uniform-p_sel1-trx", "p_sel1");
        expect_err("OLTP_WO-10Mx8tab-uniform-Rsize10-trx", "Rsize10");
        let e = expect_err("oltp_update_index-10Kx1tab-upd_idx2", "upd_idx2");
        assert!(e.message.contains("fixed mix"), "{}", e.message);
        expect_err("oltp_point_select-10Kx1tab-point_selects=5", "point_selects=5");
        let e = expect_err("TPCC_1000W-uniform", "uniform");
        assert!(e.message.contains("NoFK"), "{}", e.message);
        expect_err("TPCC_1000W-10Mx8tab", "10Mx8tab");
        expect_err("TPCC_1000W-notrx", "notrx");
        expect_err("TPCC_1000W-trx-trx", "trx");
        expect_err("TPCC_1000W-NoFK-NoFK2", "NoFK2");
        expect_err("OLTP_RW-10Mx8tab-NULL-trx", "NULL");
        expect_err("OLTP_RW-1000W-trx", "1000W");
        let e = expect_err("sb11-Prepare_10M_8tab-uniform.sh", "uniform");
        assert!(e.message.contains("Prepare label names only the dataset"), "{}", e.message);
        expect_err("Prepare_TPCC_1000W-ps", "ps");
        expect_err("Prepare-OLTP_RW+-10Mx8tab", "OLTP_RW+");
    }

    #[test]
    fn errors_in_the_label_shape() {
        let e = expect_err("OLTP_XX-10Mx8tab-uniform-trx", "OLTP_XX");
        assert!(e.message.contains("OLTP_RO, OLTP_RW"), "{}", e.message);
        expect_err("OLTP_PS-10Mx8tab-uniform-trx", "OLTP_PS");
        expect_err("OLTP_RO+-10Mx8tab-uniform-trx", "OLTP_RO+");
        expect_err("sb11-dbBENCH_10M-RO-notrx.sh", "dbBENCH");
        expect_err("uniform-ps-trx", "uniform");
        expect_err("10Mx8tab-uniform-ps-trx", "10Mx8tab");
        expect_err("OLTP_RW-10Mx8tab-OLTP_RO", "OLTP_RO");
        expect_err("OLTP_RW-10Mx8tab-Prepare", "Prepare");
        expect_err("OLTP_RW-sb11", "sb11");
        expect_err("sb11", "sb11");
        let e = parse("").unwrap_err();
        assert!(e.message.contains("empty"), "{e}");
        let e = parse("OLTP_RW--trx").unwrap_err();
        assert_eq!(e.token, "");
        assert!(e.message.contains("empty token"), "{e}");
        assert!(parse("OLTP_RW-10Mx8tab-").is_err());
    }

    #[test]
    fn label_or_workload_name() {
        for name in ["oltp_read_write", "oltp_read_only", "oltp_point_select", "tpcc", "bulk_insert", "select_random_points", "oltp-read-write", ""] {
            assert!(!looks_like_label(name), "{name}");
        }
        for label in [
            "OLTP_RW-10Mx8tab-uniform-ps-trx",
            "sb11-OLTP_RW_50M_8tab-uniform-ps-trx.sh",
            "/BMK/sb_exec/sb11-TPCC_1000W.sh",
            "sb11-Prepare_10M_8tab-InnoDB.sh",
            "OLTP_RW_10M_8tab",
            "OLTP_RW",
            "OLTP_RW++",
            "TPCC",
            "TPCC_1000W",
            "Prepare_TPCC_1000W-NULL-InnoDB-NoFK",
            "oltp_update_index-10Kx1tab-uniform-ps-notrx",
            "oltp_read_write-uniform",
        ] {
            assert!(looks_like_label(label), "{label}");
        }
    }
}
