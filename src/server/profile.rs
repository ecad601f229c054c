//! Configuration profiles: readable TOML files shipped inside the binary,
//! with values that may scale to the machine (`ram*F`, `cores*F`) or to a
//! workload's dataset (`data*F`).

use super::Kind;
use crate::error::{Error, Result};
use crate::usage;
use std::collections::BTreeMap;

/// Every shipped profile: name and file text.
pub const PROFILES: &[(&str, &str)] = &[
    ("packaged", include_str!("profiles/packaged.toml")),
    ("durable", include_str!("profiles/durable.toml")),
    ("relaxed", include_str!("profiles/relaxed.toml")),
    ("seed-000", include_str!("profiles/seed-000.toml")),
    ("seed-002", include_str!("profiles/seed-002.toml")),
    ("cache-0.25x-data", include_str!("profiles/cache-0.25x-data.toml")),
    ("cache-2x-data", include_str!("profiles/cache-2x-data.toml")),
];

/// What scaled values are scaled to.
#[derive(Clone, Copy, Debug)]
pub struct Machine {
    pub ram: u64,
    pub cores: usize,
    /// The workload's dataset size in bytes, for the memory-fit profiles.
    pub data: Option<u64>,
}

#[derive(serde::Deserialize)]
struct File {
    description: String,
    /// RAM of the machine the settings were written for (informative).
    #[serde(default)]
    ram: Option<String>,
    #[serde(default)]
    cores: Option<u32>,
    /// One table of settings per sandbox kind's profile section.
    #[serde(flatten)]
    sections: BTreeMap<String, BTreeMap<String, String>>,
}

/// A profile resolved for one engine on one machine.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub name: String,
    /// Settings in file order of keys (sorted), values computed.
    pub settings: Vec<(String, String)>,
    /// What the profile leaves to the engine's defaults, said once at start.
    pub notes: Vec<String>,
}

/// `cache=0.25x-data` and `cache-0.25x-data` name the same profile.
pub fn canonical_name(name: &str) -> String {
    name.replacen("cache=", "cache-", 1)
}

fn file(name: &str) -> Result<File> {
    let name = canonical_name(name);
    let text = PROFILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t).ok_or_else(|| usage!("unknown profile {name:?}: `fairbench server profiles` lists them"))?;
    let f: File = toml::from_str(text).map_err(|e| Error::Usage(format!("profile {name} is malformed: {}", e.message())))?;
    if let Some(s) = f.sections.keys().find(|s| !Kind::all().any(|k| k.profile_section() == s.as_str())) {
        return Err(Error::Usage(format!("profile {name} is malformed: [{s}] is no sandbox kind's section")));
    }
    Ok(f)
}

/// The profile's description line, for `server profiles`.
pub fn describe(name: &str) -> Result<String> {
    let f = file(name)?;
    let origin = match (&f.ram, f.cores) {
        (Some(r), Some(c)) => format!(" [written for {r} RAM, {c} cores]"),
        _ => String::new(),
    };
    Ok(format!("{}{origin}", f.description))
}

/// The profile's raw text, for `server profiles NAME`.
pub fn text(name: &str) -> Result<&'static str> {
    let name = canonical_name(name);
    PROFILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t).ok_or_else(|| usage!("unknown profile {name:?}: `fairbench server profiles` lists them"))
}

/// The settings of profile `name` for `kind`, scaled to `m`.
pub fn resolve(name: &str, kind: Kind, m: &Machine) -> Result<Resolved> {
    let f = file(name)?;
    let mut notes = Vec::new();
    let none = BTreeMap::new();
    let raw = f.sections.get(kind.profile_section()).unwrap_or_else(|| {
        notes.extend(kind.without_profile_section(&canonical_name(name)));
        &none
    });
    let mut settings = Vec::new();
    for (k, v) in raw {
        settings.push((k.clone(), scale(v, kind, m).map_err(|e| usage!("profile {}: {k} = {v:?}: {e}", canonical_name(name)))?));
    }
    Ok(Resolved { name: canonical_name(name), settings, notes })
}

/// `ram*F`, `cores*F`, `data*F` computed; anything else as written.
pub fn scale(v: &str, kind: Kind, m: &Machine) -> std::result::Result<String, String> {
    let Some((base, f)) = v.split_once('*') else { return Ok(v.to_string()) };
    let f: f64 = f.trim().parse().map_err(|_| format!("{f:?} is not a number"))?;
    match base.trim() {
        "cores" => Ok(((m.cores as f64 * f).round() as u64).max(1).to_string()),
        "ram" => Ok(bytes_setting((m.ram as f64 * f) as u64, kind)),
        "data" => {
            let d = m.data.ok_or("this profile sizes the cache from the dataset: give --data-size (e.g. --data-size=2G)")?;
            Ok(bytes_setting((d as f64 * f) as u64, kind))
        }
        o => Err(format!("unknown base {o:?} (ram, cores or data)")),
    }
}

/// A size rounded to whole MiB, in the unit each server reads; at least 32 MiB,
/// the smallest that every scaled setting accepts (max_wal_size: two WAL segments).
fn bytes_setting(b: u64, kind: Kind) -> String {
    kind.size_setting((b / (1 << 20)).max(32))
}

/// `2G`, `512M`, `100k`, `123` (bytes).
pub fn parse_size(s: &str) -> Result<u64> {
    let t = s.trim();
    let (num, mult) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => {
            let unit = t[i..].to_ascii_lowercase();
            let m: u64 = match unit.trim_end_matches('b').trim_end_matches('i') {
                "" => 1,
                "k" => 1 << 10,
                "m" => 1 << 20,
                "g" => 1 << 30,
                "t" => 1 << 40,
                _ => return Err(usage!("{s:?} is not a size: use e.g. 512M or 2G")),
            };
            (&t[..i], m)
        }
        None => (t, 1),
    };
    let n: f64 = num.trim().parse().map_err(|_| usage!("{s:?} is not a size: use e.g. 512M or 2G"))?;
    if !(n.is_finite() && n > 0.0) {
        return Err(usage!("{s:?} is not a size: use e.g. 512M or 2G"));
    }
    Ok((n * mult as f64) as u64)
}

/// This machine: total RAM and online cores.
pub fn this_machine() -> Machine {
    let ram = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| t.lines().find(|l| l.starts_with("MemTotal:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<u64>().ok()))
        .map(|kb| kb * 1024)
        .unwrap_or(4 << 30);
    Machine { ram, cores: crate::env::cpus(), data: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: Machine = Machine { ram: 24 << 30, cores: 2, data: Some(1 << 30) };

    #[test]
    fn every_shipped_profile_parses_for_every_kind() {
        for (n, _) in PROFILES {
            for k in Kind::all() {
                resolve(n, k, &M).unwrap_or_else(|e| panic!("{n}: {e}"));
            }
        }
    }

    #[test]
    fn every_kind_reads_a_section_some_kind_owns() {
        let sections: Vec<&str> = Kind::with_own_settings().map(|k| k.profile_section()).collect();
        for k in Kind::all() {
            assert!(sections.contains(&k.profile_section()), "{}: its section [{}] is no kind's own", k.name(), k.profile_section());
        }
    }

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("2G").unwrap(), 2 << 30);
        assert_eq!(parse_size("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_size("100").unwrap(), 100);
        assert!(parse_size("x").is_err());
        assert!(parse_size("-1G").is_err());
    }
}
