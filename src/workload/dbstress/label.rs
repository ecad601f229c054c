//! dbSTRESS labels, as BMK-kit names its dbSTRESS scripts
//! (`sb11-dbSTRESS_10M-RW10-trx.sh`, `sb11-Prepare_dbSTRESS_10x1M-InnoDB-HPK.sh`).
//!
//! ```text
//! [path/][sbNN-][Prepare_]dbSTRESS_SIZE(-TOKEN)*[.sh]
//! ```
//!
//! | token | settings |
//! |-------|----------|
//! | `10M` / `10x1M` (after `dbSTRESS_`) | `obj-table-size=10000000` / `obj-tables=10 obj-table-size=1000000` |
//! | `RO` | workload `dbstress_ro`: SEL1 + SEL2 per event, no writes |
//! | `SEL1` / `SEL2` | only that select (`SEL1=1 SEL2=0` / `SEL1=0 SEL2=1`) |
//! | `RWn` | workload `dbstress`: the selects, and writes on every nth event (`rw-ratio=n`) |
//! | `UPD` | writes are UPDATEs only (`delete-inserts=0`) |
//! | `xDEAD` / `xREF` | `anti-dead=off` / `same-ref=off`; without them both are on |
//! | `trx` / `notrx` | `skip-trx=off` / `on`; with neither, `skip-trx` is left alone |
//! | `HPK` | `hpk=on`: the HISTORY index is unique |
//! | `noPS` | `db-ps-mode=disable`; without it `auto` (BMK's scripts prepare their statements) |
//! | engine, distribution, `socket` | as in the OLTP labels |
//! | `SEL1=N` `SEL2=N` `updates=N` `delete-inserts=N` | counts no BMK token expresses |
//!
//! A Prepare label names the dataset only: size, engine, `HPK`, `socket`.
//! Canonical form, in that order:
//! `dbSTRESS_SIZE-RO|RWn[-SEL1|-SEL2][-UPD][-counts][-ENGINE][-DIST][-xDEAD][-xREF][-HPK][-noPS]-trx|notrx[-socket]`
//! and `Prepare_dbSTRESS_SIZE[-ENGINE][-HPK][-socket]`.

use super::{RO, RW};
use crate::label::{compact, is_sb_prefix, parse_size, strip_decorations, Decoded, LabelError};
use crate::values::parse_bool;

/// Options a label sets (and the workload records), in the order labels list them.
pub const OPTIONS: &[&str] = &[
    "obj-table-size",
    "obj-tables",
    "SEL1",
    "SEL2",
    "updates",
    "delete-inserts",
    "rw-ratio",
    "anti-dead",
    "same-ref",
    "hpk",
    "skip-trx",
    "rand-type",
    "db-ps-mode",
    "transport",
    "mysql-storage-engine",
];

const ENGINES: &[&str] = &["InnoDB", "MyISAM", "RocksDB", "Aria", "TokuDB", "MEMORY"];
const DISTS: &[&str] = &["uniform", "gaussian", "special", "pareto", "zipfian"];
/// Counts a `name=value` token may set, by the names the token uses.
const COUNTS: &[(&str, &str)] = &[("sel1", "SEL1"), ("sel2", "SEL2"), ("updates", "updates"), ("delete-inserts", "delete-inserts"), ("delete_inserts", "delete-inserts")];
const TOKENS: &str = "RO, RWn, SEL1, SEL2, UPD, xDEAD, xREF, trx, notrx, HPK, noPS, ps, socket, an engine (InnoDB, MyISAM, RocksDB, Aria, TokuDB, MEMORY), \
     a distribution (uniform, gaussian, special, pareto, zipfian), or SEL1=N, SEL2=N, updates=N, delete-inserts=N";

struct Parser {
    label: String,
    prepare: bool,
    workload: Option<&'static str>,
    /// (option, value, token that set it)
    options: Vec<(&'static str, String, String)>,
    explanation: Vec<(String, String)>,
    only_select: Option<(u32, u32, String)>,
    upd: Option<String>,
    run_token: Option<String>,
}

impl Parser {
    fn err(&self, token: &str, message: String) -> LabelError {
        LabelError { label: self.label.clone(), token: token.to_string(), message }
    }

    fn has(&self, opt: &str) -> bool {
        self.options.iter().any(|(o, _, _)| *o == opt)
    }

    fn set(&mut self, opt: &'static str, value: impl Into<String>, token: &str) -> Result<(), LabelError> {
        if let Some((_, _, by)) = self.options.iter().find(|(o, _, _)| *o == opt) {
            return Err(self.err(token, format!("'{token}' sets --{opt} again ('{by}' set it already): name each setting once")));
        }
        self.options.push((opt, value.into(), token.to_string()));
        Ok(())
    }

    fn explain(&mut self, token: &str, meaning: String) {
        self.explanation.push((token.to_string(), meaning));
    }

    /// A token that describes a run, remembered so a Prepare label can refuse it.
    fn run_only(&mut self, token: &str) {
        self.run_token.get_or_insert_with(|| token.to_string());
    }

    fn size(&mut self, token: &str) -> Result<bool, LabelError> {
        let l = token.to_ascii_lowercase();
        let (sets, size) = match l.split_once('x') {
            Some((n, s)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => (n.parse::<u64>().ok(), parse_size(s)),
            Some(_) => return Ok(false),
            None => (Some(1), parse_size(&l)),
        };
        let Some(size) = size else { return Ok(false) };
        let (Some(sets), Some(size)) = (sets, size) else {
            return Err(self.err(token, format!("'{token}': the size does not fit in a number")));
        };
        if sets == 0 || size == 0 {
            return Err(self.err(token, format!("'{token}': a dataset needs at least one set of one object")));
        }
        self.set("obj-table-size", size.to_string(), token)?;
        self.set("obj-tables", sets.to_string(), token)?;
        self.explain(token, format!("{sets} set(s) of {size} objects, 20 HISTORY rows each (--obj-tables={sets} --obj-table-size={size})"));
        Ok(true)
    }

    fn token(&mut self, t: &str) -> Result<(), LabelError> {
        let l = t.to_ascii_lowercase();
        if let Some(name) = l.strip_prefix("engine=") {
            let name = t.get(7..).unwrap_or(name).to_string();
            if name.is_empty() {
                return Err(self.err(t, format!("'{t}': name the engine after engine=")));
            }
            let name = ENGINES.iter().find(|e| e.eq_ignore_ascii_case(&name)).map_or(name, |e| e.to_string());
            self.set("mysql-storage-engine", name.clone(), t)?;
            self.explain(t, format!("MySQL-family storage engine {name}"));
            return Ok(());
        }
        if let Some((name, value)) = l.split_once('=') {
            let Some(&(_, opt)) = COUNTS.iter().find(|(n, _)| *n == name) else {
                return Err(self.err(t, format!("'{t}': a name=value token sets SEL1, SEL2, updates or delete-inserts")));
            };
            let n: u32 = value.parse().map_err(|_| self.err(t, format!("'{t}': the value is a whole number")))?;
            self.run_only(t);
            self.set(opt, n.to_string(), t)?;
            self.explain(t, format!("{n} {opt} statement(s) per event"));
            return Ok(());
        }
        match l.as_str() {
            "ro" => {
                self.workload_is(RO, t)?;
                self.explain(t, "read-only: SEL1 and SEL2 per event, no writes (workload dbstress_ro)".into());
            }
            "sel1" | "sel2" => {
                if self.only_select.is_some() {
                    return Err(self.err(t, format!("'{t}': name one of SEL1 or SEL2, once")));
                }
                let (a, b) = if l == "sel1" { (1, 0) } else { (0, 1) };
                self.only_select = Some((a, b, t.to_string()));
                self.run_only(t);
                self.explain(t, format!("only {} per event (--SEL1={a} --SEL2={b})", t.to_ascii_uppercase()));
            }
            "upd" => {
                self.upd = Some(t.to_string());
                self.run_only(t);
                self.set("delete-inserts", "0", t)?;
                self.explain(t, "writes are UPDATEs only (--delete-inserts=0)".into());
            }
            "xdead" => {
                self.run_only(t);
                self.set("anti-dead", "off", t)?;
                self.explain(t, "no anti-deadlock slices: every client draws from all objects (--anti-dead=off)".into());
            }
            "xref" => {
                self.run_only(t);
                self.set("same-ref", "off", t)?;
                self.explain(t, "each statement draws its own object (--same-ref=off)".into());
            }
            "trx" | "notrx" => {
                self.run_only(t);
                let on = l == "notrx";
                self.set("skip-trx", if on { "on" } else { "off" }, t)?;
                self.explain(t, if on { "autocommit, no BEGIN/COMMIT (--skip-trx=on)" } else { "each event in BEGIN/COMMIT (--skip-trx=off)" }.into());
            }
            "hpk" => {
                self.set("hpk", "on", t)?;
                self.explain(t, "the HISTORY index (REF_OBJECT, HORDER) is unique, as a primary key (--hpk=on)".into());
            }
            "ps" | "nops" => {
                self.run_only(t);
                let v = if l == "ps" { "auto" } else { "disable" };
                self.set("db-ps-mode", v, t)?;
                self.explain(t, format!("--db-ps-mode={v}"));
            }
            "socket" => {
                self.set("transport", "socket", t)?;
                self.explain(t, "connect through the Unix socket (--transport=socket)".into());
            }
            _ => {
                if let Some(n) = l.strip_prefix("rw").filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) {
                    let ratio: u32 = n.parse().ok().filter(|&r| r > 0).ok_or_else(|| self.err(t, format!("'{t}': the ratio after RW is a whole number from 1")))?;
                    self.workload_is(RW, t)?;
                    self.set("rw-ratio", ratio.to_string(), t)?;
                    self.explain(
                        t,
                        format!("read-write: the selects every event, writes on every {}event (--rw-ratio={ratio}, workload dbstress)", if ratio == 1 { String::new() } else { format!("{ratio}th ") }),
                    );
                } else if let Some(e) = ENGINES.iter().find(|e| e.eq_ignore_ascii_case(t)) {
                    let name = e.to_string();
                    self.set("mysql-storage-engine", name.clone(), t)?;
                    self.explain(t, format!("MySQL-family storage engine {name}"));
                } else if let Some(d) = DISTS.iter().find(|d| **d == l) {
                    self.run_only(t);
                    self.set("rand-type", *d, t)?;
                    self.explain(t, format!("objects drawn with the {d} distribution (--rand-type={d})"));
                } else if !self.size(t)? {
                    return Err(self.err(t, format!("'{t}' is not a dbSTRESS token: use {TOKENS}")));
                }
            }
        }
        Ok(())
    }

    fn workload_is(&mut self, w: &'static str, t: &str) -> Result<(), LabelError> {
        if self.workload.is_some() {
            return Err(self.err(t, format!("'{t}': name one of RO or RWn, once")));
        }
        self.run_only(t);
        self.workload = Some(w);
        Ok(())
    }

    /// Settings the label implies by leaving a token out.
    fn implied(&mut self, opt: &'static str, value: &str, token: &str, meaning: &str) -> Result<(), LabelError> {
        if !self.has(opt) {
            self.set(opt, value, token)?;
            self.explain(token, meaning.to_string());
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Decoded, LabelError> {
        if !self.has("obj-table-size") {
            return Err(self.err("", "the label names no size: write it after dbSTRESS_, e.g. dbSTRESS_10M or dbSTRESS_10x1M".into()));
        }
        let workload = if self.prepare {
            if let Some(t) = self.run_token.clone() {
                return Err(self.err(&t, format!("'{t}' describes a run: a Prepare label names the dataset only (size, engine, HPK, socket)")));
            }
            RW
        } else {
            let Some(w) = self.workload else {
                return Err(self.err("", "the label names no scenario: add RO (read-only) or RWn (read-write, writes every nth event), e.g. dbSTRESS_10M-RW10-trx".into()));
            };
            if w == RO {
                if let Some(t) = self.upd.clone() {
                    return Err(self.err(&t, format!("'{t}' describes writes, which RO never runs")));
                }
                if let Some((_, _, t)) = self.options.iter().find(|(o, _, _)| ["updates", "delete-inserts"].contains(o)) {
                    let t = t.clone();
                    return Err(self.err(&t, format!("'{t}' describes writes, which RO never runs")));
                }
            }
            match self.only_select.clone() {
                Some((a, b, t)) => {
                    self.set("SEL1", a.to_string(), &t)?;
                    self.set("SEL2", b.to_string(), &t)?;
                }
                None => {
                    self.implied("SEL1", "1", "(no SEL2)", "one SEL1 per event (--SEL1=1)")?;
                    self.implied("SEL2", "1", "(no SEL1)", "one SEL2 per event (--SEL2=1)")?;
                }
            }
            if w == RW {
                self.implied("updates", "1", "(RW)", "one UPDATE per writing event")?;
                self.implied("delete-inserts", "1", "(no UPD)", "one DELETE+INSERT per writing event")?;
            }
            self.implied("anti-dead", "on", "(no xDEAD)", "each client draws objects from its own slice (--anti-dead=on)")?;
            self.implied("same-ref", "on", "(no xREF)", "one object for all statements of an event (--same-ref=on)")?;
            self.implied("db-ps-mode", "auto", "(no noPS)", "prepared statements, as BMK's dbSTRESS scripts use (--db-ps-mode=auto)")?;
            w
        };
        let mut options: Vec<(&str, String)> = self.options.into_iter().map(|(o, v, _)| (o, v)).collect();
        options.sort_by_key(|(o, _)| OPTIONS.iter().position(|x| x == o).unwrap_or(usize::MAX));
        Ok(Decoded {
            workload: workload.to_string(),
            command: if self.prepare { "prepare" } else { "run" }.to_string(),
            options: options.into_iter().map(|(o, v)| (o.to_string(), v)).collect(),
            explanation: self.explanation,
        })
    }
}

/// Decodes a dbSTRESS label; None when the label is not one (the workload
/// names `dbstress` and `dbstress_ro` alone are names, not labels).
pub fn decode(label: &str) -> Option<Result<Decoded, LabelError>> {
    let body = strip_decorations(label.trim());
    let segs: Vec<&str> = body.split('-').collect();
    let mut i = 0;
    let mut p = Parser { label: label.to_string(), prepare: false, workload: None, options: Vec::new(), explanation: Vec::new(), only_select: None, upd: None, run_token: None };
    let mut prefix = false;
    if segs.len() > 1 && is_sb_prefix(&segs[0].to_ascii_lowercase()) {
        p.explain(segs[0], "the sysbench build BMK-kit runs (ignored)".into());
        prefix = true;
        i = 1;
    }
    let mut head = *segs.get(i)?;
    if head.get(..8).is_some_and(|h| h.eq_ignore_ascii_case("prepare_")) && head.len() > 8 {
        p.prepare = true;
        head = &head[8..];
    } else if head.eq_ignore_ascii_case("prepare") {
        p.prepare = true;
        i += 1;
        head = *segs.get(i)?;
    }
    let size = if head.eq_ignore_ascii_case("dbstress") {
        if !prefix && !p.prepare && segs.len() == i + 1 {
            return None;
        }
        None
    } else if head.get(..9).is_some_and(|h| h.eq_ignore_ascii_case("dbstress_")) && head.as_bytes().get(9).is_some_and(u8::is_ascii_digit) {
        Some(&head[9..])
    } else {
        return None;
    };
    if p.prepare {
        p.explain("Prepare", "command prepare: create and load the dataset".into());
    }
    p.explain("dbSTRESS", "dbSTRESS (BMK-kit): OBJECT/HISTORY/STAT/SECTION/ZONE per set".into());
    let parsed = (|| -> Result<(), LabelError> {
        if let Some(s) = size {
            if !p.size(s)? {
                return Err(p.err(s, format!("'{s}' after dbSTRESS_ is not a size: write e.g. 10M or 10x1M")));
            }
        }
        for t in &segs[i + 1..] {
            if t.is_empty() {
                return Err(p.err("", "'' (an empty token): two '-' in a row, or a '-' at either end".into()));
            }
            p.token(t)?;
        }
        Ok(())
    })();
    Some(parsed.and_then(|_| p.finish()))
}

/// The canonical label from the effective settings (`get` as for the
/// shared grammar's canonical form; `command` = prepare gives a Prepare label).
pub fn canonical(workload: &str, get: &dyn Fn(&str) -> Option<String>) -> String {
    let val = |n: &str| get(n).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    let num = |n: &str| val(n).and_then(|v| parse_size(&v.to_ascii_lowercase()).flatten());
    let flag = |n: &str| val(n).and_then(|v| parse_bool(&v).ok());
    let prepare = val("command").is_some_and(|c| c.eq_ignore_ascii_case("prepare"));
    let size = num("obj-table-size").unwrap_or(1_000_000);
    let sets = num("obj-tables").unwrap_or(1);
    let size_tok = if sets > 1 { format!("{sets}x{}", compact(size)) } else { compact(size) };
    let mut parts = vec![format!("{}dbSTRESS_{size_tok}", if prepare { "Prepare_" } else { "" })];
    let engine = val("mysql-storage-engine").map(|e| ENGINES.iter().find(|k| k.eq_ignore_ascii_case(&e)).map_or_else(|| format!("engine={e}"), |k| k.to_string()));
    if prepare {
        parts.extend(engine);
        if flag("hpk") == Some(true) {
            parts.push("HPK".into());
        }
    } else {
        let ro = workload == RO;
        parts.push(if ro { "RO".into() } else { format!("RW{}", num("rw-ratio").unwrap_or(1)) });
        let (s1, s2) = (num("SEL1").unwrap_or(1), num("SEL2").unwrap_or(1));
        match (s1, s2) {
            (1, 1) => {}
            (1, 0) => parts.push("SEL1".into()),
            (0, 1) => parts.push("SEL2".into()),
            _ => parts.extend([("SEL1", s1), ("SEL2", s2)].iter().filter(|(_, n)| *n != 1).map(|(k, n)| format!("{k}={n}"))),
        }
        if !ro {
            match (num("updates").unwrap_or(1), num("delete-inserts").unwrap_or(1)) {
                (1, 1) => {}
                (1, 0) => parts.push("UPD".into()),
                (u, d) => parts.extend([("updates", u), ("delete-inserts", d)].iter().filter(|(_, n)| *n != 1).map(|(k, n)| format!("{k}={n}"))),
            }
        }
        parts.extend(engine.filter(|e| e != "InnoDB"));
        if let Some(d) = val("rand-type").filter(|d| d != "uniform" && DISTS.contains(&d.as_str())) {
            parts.push(d);
        }
        if flag("anti-dead") == Some(false) {
            parts.push("xDEAD".into());
        }
        if flag("same-ref") == Some(false) {
            parts.push("xREF".into());
        }
        if flag("hpk") == Some(true) {
            parts.push("HPK".into());
        }
        if val("db-ps-mode").as_deref() == Some("disable") {
            parts.push("noPS".into());
        }
        parts.push(if flag("skip-trx") == Some(true) { "notrx" } else { "trx" }.into());
    }
    if val("transport").as_deref() == Some("socket") {
        parts.push("socket".into());
    }
    parts.join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(label: &str) -> Vec<(String, String)> {
        decode(label).expect("a dbSTRESS label").expect("decodes").options
    }

    fn round_trip(label: &str) -> String {
        let d = decode(label).unwrap().unwrap();
        let get = |n: &str| if n == "command" { Some(d.command.clone()) } else { d.options.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()) };
        canonical(&d.workload, &get)
    }

    #[test]
    fn bmk_script_names_decode_and_print_back() {
        for (script, canon) in [
            ("sb11-dbSTRESS_10M-RO-notrx.sh", "dbSTRESS_10M-RO-notrx"),
            ("sb11-dbSTRESS_10M-RO-SEL1-notrx.sh", "dbSTRESS_10M-RO-SEL1-notrx"),
            ("sb11-dbSTRESS_10M-RO-SEL2-notrx.sh", "dbSTRESS_10M-RO-SEL2-notrx"),
            ("sb11-dbSTRESS_10M-RW1-trx.sh", "dbSTRESS_10M-RW1-trx"),
            ("sb11-dbSTRESS_10M-RW10-trx.sh", "dbSTRESS_10M-RW10-trx"),
            ("sb11-dbSTRESS_10M-RW1-UPD-trx.sh", "dbSTRESS_10M-RW1-UPD-trx"),
            ("sb11-dbSTRESS_10M-RW10-UPD-trx.sh", "dbSTRESS_10M-RW10-UPD-trx"),
            ("sb11-dbSTRESS_10x1M-RW1-xDEAD-xREF-trx.sh", "dbSTRESS_10x1M-RW1-xDEAD-xREF-trx"),
            ("sb11-Prepare_dbSTRESS_10M-InnoDB-HPK.sh", "Prepare_dbSTRESS_10M-InnoDB-HPK"),
            ("sb11-Prepare_dbSTRESS_10x1M-InnoDB.sh", "Prepare_dbSTRESS_10x1M-InnoDB"),
        ] {
            assert_eq!(round_trip(script), canon, "{script}");
            assert_eq!(round_trip(canon), canon, "{canon}");
        }
    }

    #[test]
    fn tokens_set_the_options() {
        let o = opts("dbSTRESS_10x1M-RW10-UPD-xDEAD-notrx");
        let get = |k: &str| o.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("obj-tables"), Some("10"));
        assert_eq!(get("obj-table-size"), Some("1000000"));
        assert_eq!(get("rw-ratio"), Some("10"));
        assert_eq!(get("delete-inserts"), Some("0"));
        assert_eq!(get("anti-dead"), Some("off"));
        assert_eq!(get("same-ref"), Some("on"));
        assert_eq!(get("skip-trx"), Some("on"));
        let d = decode("sb11-Prepare_dbSTRESS_10M-InnoDB-HPK.sh").unwrap().unwrap();
        assert_eq!((d.command.as_str(), d.workload.as_str()), ("prepare", RW));
        assert_eq!(decode("dbSTRESS_2K-RO-SEL2").unwrap().unwrap().workload, RO);
    }

    #[test]
    fn names_are_not_labels_and_bad_tokens_say_why() {
        assert!(decode("dbstress").is_none());
        assert!(decode("dbstress_ro").is_none());
        assert!(decode("sb11-Prepare_10M_8tab-InnoDB.sh").is_none());
        let e = decode("dbSTRESS_10M-RW1-bogus").unwrap().unwrap_err();
        assert_eq!(e.token, "bogus");
        assert!(decode("dbSTRESS_10M-RO-UPD").unwrap().is_err());
        assert!(decode("dbSTRESS_10M-RW1-RO").unwrap().is_err());
        assert!(decode("Prepare_dbSTRESS_10M-RW1").unwrap().is_err());
        assert!(decode("dbSTRESS_10M-trx").unwrap().is_err());
        assert!(decode("dbSTRESS-RO").unwrap().is_err());
    }
}
