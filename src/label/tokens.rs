//! The tokens every family reads the same way (prepared statements, the
//! transport, the storage engine, sizes, distributions, trx/notrx) and the
//! helpers a family's own grammar builds its tokens with.

// Option names the shared tokens set, as the command line spells them.
pub const ENGINE: &str = "mysql-storage-engine";
pub const PS_MODE: &str = "db-ps-mode";
pub const TRANSPORT: &str = "transport";
pub const RAND_TYPE: &str = "rand-type";
pub const SKIP_TRX: &str = "skip-trx";

pub const DISTRIBUTIONS: [&str; 5] = ["uniform", "gaussian", "special", "pareto", "zipfian"];

/// Engines accepted as bare tokens: lowercase key, and the spelling used in
/// settings and labels. Other engines go through `engine=NAME`.
const ENGINES: [(&str, &str); 7] = [("innodb", "InnoDB"), ("myisam", "MyISAM"), ("rocksdb", "RocksDB"), ("myrocks", "RocksDB"), ("aria", "Aria"), ("tokudb", "TokuDB"), ("memory", "MEMORY")];

pub const ENGINE_LIST: &str = "InnoDB, MyISAM, RocksDB, Aria, TokuDB, MEMORY, or engine=NAME";

/// `s` without `prefix`, compared ASCII-case-insensitively; None when `s`
/// does not start with it (never slicing inside a multi-byte character).
pub fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    s.get(..prefix.len()).filter(|h| h.eq_ignore_ascii_case(prefix)).map(|_| &s[prefix.len()..])
}

pub fn is_sb_prefix(lower: &str) -> bool {
    // sb10 / sb11: the sysbench build a BMK script runs.
    lower.len() > 2 && lower.starts_with("sb") && lower[2..].bytes().all(|b| b.is_ascii_digit())
}

/// A workload name written the way fairbench spells workloads.
pub(super) fn is_workload_name(s: &str) -> bool {
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

/// A whole number written with digits only.
pub fn parse_count(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// on/off, true/false, yes/no, 1/0.
pub fn flag_value(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Some(true),
        "off" | "false" | "no" | "0" => Some(false),
        _ => None,
    }
}

pub fn engine_spelling(v: &str) -> Option<&'static str> {
    let l = v.to_ascii_lowercase();
    ENGINES.iter().find(|(k, _)| *k == l).map(|(_, s)| *s)
}

/// The engine as a label token: its BMK spelling, or `engine=NAME`; None
/// when no token can express it.
pub fn engine_token(e: &str) -> Option<String> {
    match engine_spelling(e) {
        Some(s) => Some(s.to_string()),
        None if e.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') => Some(format!("engine={e}")),
        None => None,
    }
}

/// `PREFIX<N>` tokens (`p_sel1`, `Rsize10`, ...): `None` if `l` does not
/// start with the prefix followed by digits.
pub fn counted(l: &str, tok: &str, prefix: &str, min: u64) -> Option<Result<u64, String>> {
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

pub fn too_large(tok: &str) -> String {
    format!("'{tok}' is too large for a size (at most {} rows)", u64::MAX)
}

pub fn dist_meaning(d: &str) -> &'static str {
    match d {
        "uniform" => "uniform access: every row equally likely, so concurrent clients rarely touch the same rows",
        "pareto" => "pareto access: accesses grouped on hot rows, so clients contend for the same row locks",
        "zipfian" => "zipfian access: some rows far more often than others, spread wider than pareto",
        "gaussian" => "gaussian access: rows near the middle of the key range more often",
        _ => "sysbench 'special' access (its historical default): a small set of rows gets most accesses",
    }
}

/// Drops a leading directory and a `.sh` suffix.
pub fn strip_decorations(label: &str) -> &str {
    let base = label.rsplit(['/', '\\']).next().unwrap_or(label);
    match base.len().checked_sub(3).and_then(|i| base.get(i..).map(|s| (i, s))) {
        Some((i, suffix)) if suffix.eq_ignore_ascii_case(".sh") => &base[..i],
        _ => base,
    }
}
