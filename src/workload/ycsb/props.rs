//! YCSB's properties as its users give them: workload files (`-P FILE`, in
//! order, a later file winning), then `-p key=value`, which win over every
//! file, on top of YCSB's defaults. The six core workload files ship with
//! fairbench: `-P workloada` (or `-P workloads/workloada`) finds the file
//! where the command runs first, else the one fairbench carries. Keys of
//! YCSB's client and database bindings that fairbench has no use for
//! (connection settings, exporters, JVM tracking) are accepted and left
//! alone; any other key is an error naming it.

use crate::error::{Error, Result};
use crate::workload::common::java_properties;
use std::collections::BTreeMap;
use std::path::Path;

/// The core workload files, with YCSB's values.
pub const CORE_WORKLOADS: [(&str, &str); 6] = [
    ("workloada", include_str!("workloads/workloada")),
    ("workloadb", include_str!("workloads/workloadb")),
    ("workloadc", include_str!("workloads/workloadc")),
    ("workloadd", include_str!("workloads/workloadd")),
    ("workloade", include_str!("workloads/workloade")),
    ("workloadf", include_str!("workloads/workloadf")),
];

/// Keys fairbench reads, with YCSB's defaults (CoreWorkload, Client,
/// Measurements, the JDBC binding's batch size).
const DEFAULTS: &[(&str, &str)] = &[
    ("recordcount", "0"),
    ("operationcount", "0"),
    ("insertstart", "0"),
    ("threadcount", "1"),
    ("target", "0"),
    ("maxexecutiontime", "0"),
    ("table", "usertable"),
    ("fieldcount", "10"),
    ("fieldlength", "100"),
    ("minfieldlength", "1"),
    ("fieldlengthdistribution", "constant"),
    ("fieldnameprefix", "field"),
    ("readallfields", "true"),
    ("readallfieldsbyname", "false"),
    ("writeallfields", "false"),
    ("readproportion", "0.95"),
    ("updateproportion", "0.05"),
    ("insertproportion", "0"),
    ("scanproportion", "0"),
    ("readmodifywriteproportion", "0"),
    ("requestdistribution", "uniform"),
    ("zipfianconstant", "0.99"),
    ("insertorder", "hashed"),
    ("zeropadding", "1"),
    ("minscanlength", "1"),
    ("maxscanlength", "1000"),
    ("scanlengthdistribution", "uniform"),
    ("hotspotdatafraction", "0.2"),
    ("hotspotopnfraction", "0.8"),
    ("exponential.percentile", "95"),
    ("exponential.frac", "0.8571428571"),
    // YCSB says op; with no target rate both mean the same, and with one
    // fairbench gives the corrected figure beside the uncorrected.
    ("measurement.interval", "both"),
    ("hdrhistogram.percentiles", "95,99"),
    ("status", "false"),
    ("status.interval", "10"),
    ("db.batchsize", "0"),
];

/// Keys with no default: present only when given.
const OPTIONAL: &[&str] = &["insertcount"];

/// Other spellings of a key fairbench reads (go-ycsb's, BenchBase's).
const ALIASES: &[(&str, &str)] = &[("zipfian_constant", "zipfianconstant"), ("zipfian.constant", "zipfianconstant"), ("batch.size", "db.batchsize")];

/// Keys YCSB's client or a binding reads that say nothing fairbench needs:
/// the target comes from `--target`, measurements are fairbench's own
/// (HDR, every percentile), the workload is the core workload.
const IGNORED: &[&str] = &[
    "workload",
    "db",
    "label",
    "exporter",
    "exportfile",
    "measurementtype",
    "measurement.trackjvm",
    "measurement.raw.output_file",
    "measurement.raw.no_summary",
    "hdrhistogram.fileoutput",
    "hdrhistogram.output.path",
    "histogram.buckets",
    "timeseries.granularity",
    "dotransactions",
    "dataintegrity",
    "fieldlengthhistogram",
    "core_workload_insertion_retry_limit",
    "core_workload_insertion_retry_interval",
    "core_workload_insertion_keep_going_on_error",
    "insertionretrylimit",
    "insertionretryinterval",
    "readallfieldsbyname",
    "debug",
    "verbose",
    "dropdata",
    "silence",
    "keyprefix",
    "log.interval",
];

/// Key prefixes of the database bindings' own settings (JDBC's, go-ycsb's
/// MySQL, PostgreSQL and SQLite drivers').
const IGNORED_PREFIXES: &[&str] = &["db.", "jdbc.", "mysql.", "pg.", "sqlite.", "cockroach.", "htrace."];

/// The key fairbench reads for `key`, or None when it is not a YCSB key.
fn canonical(key: &str) -> Option<&str> {
    if let Some((_, to)) = ALIASES.iter().find(|(a, _)| *a == key) {
        return Some(to);
    }
    let known = DEFAULTS.iter().any(|(k, _)| *k == key) || OPTIONAL.contains(&key) || IGNORED.contains(&key) || IGNORED_PREFIXES.iter().any(|p| key.starts_with(p));
    known.then_some(key)
}

/// The merged properties, every value as YCSB's text.
#[derive(Clone, Debug, Default)]
pub struct Props {
    values: BTreeMap<String, String>,
    /// Where each value a file or `-p` set came from (for error messages);
    /// a key without one has YCSB's default.
    origin: BTreeMap<String, String>,
}

impl Props {
    pub fn defaults() -> Props {
        let mut p = Props::default();
        for (k, v) in DEFAULTS {
            p.values.insert(k.to_string(), v.to_string());
        }
        p
    }

    fn set(&mut self, key: &str, value: &str, origin: &str) -> Result<()> {
        let Some(k) = canonical(key) else {
            return Err(Error::Usage(format!("{origin}: unknown YCSB property '{key}' (docs/workloads/ycsb.md lists the properties fairbench reads)")));
        };
        self.values.insert(k.to_string(), value.to_string());
        self.origin.insert(k.to_string(), origin.to_string());
        Ok(())
    }

    /// A workload file (`-P`): a file at that path, else a core workload of
    /// that name.
    pub fn read_file(&mut self, path: &Path) -> Result<()> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                match CORE_WORKLOADS.iter().find(|(n, _)| *n == name) {
                    Some((_, text)) => text.to_string(),
                    None => return Err(Error::Usage(format!("-P {}: {e} (the core workloads are workloada .. workloadf)", path.display()))),
                }
            }
        };
        for (k, v, line) in java_properties(&text) {
            self.set(&k, &v, &format!("-P {} line {line}", path.display()))?;
        }
        Ok(())
    }

    /// One `-p key=value`.
    pub fn set_override(&mut self, kv: &str) -> Result<()> {
        let Some((k, v)) = kv.split_once('=') else {
            return Err(Error::Usage(format!("-p {kv}: write -p key=value, e.g. -p recordcount=1000000")));
        };
        self.set(k.trim(), v.trim(), &format!("-p {kv}"))
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// Whether a file or `-p` set `key`.
    pub fn given(&self, key: &str) -> bool {
        self.origin.contains_key(key)
    }

    fn bad(&self, key: &str, what: &str) -> Error {
        let v = self.get(key).unwrap_or_default();
        let from = self.origin.get(key).map_or("YCSB's default", String::as_str);
        Error::Usage(format!("{key}={v} ({from}): {what}"))
    }

    pub fn u64(&self, key: &str) -> Result<u64> {
        let v = self.get(key).unwrap_or("0").trim();
        v.parse::<u64>().map_err(|_| self.bad(key, "use a whole number, 0 or more"))
    }

    pub fn opt_u64(&self, key: &str) -> Result<Option<u64>> {
        self.get(key).map(|_| self.u64(key)).transpose()
    }

    pub fn f64(&self, key: &str) -> Result<f64> {
        let v = self.get(key).unwrap_or("0").trim();
        v.parse::<f64>().ok().filter(|f| f.is_finite() && *f >= 0.0).ok_or_else(|| self.bad(key, "use a number, 0 or more"))
    }

    pub fn bool(&self, key: &str) -> Result<bool> {
        // Java's Boolean.parseBoolean: "true" in any case is true, anything else false.
        Ok(self.get(key).is_some_and(|v| v.trim().eq_ignore_ascii_case("true")))
    }

    /// One of `allowed`.
    pub fn choice(&self, key: &str, allowed: &[&str]) -> Result<String> {
        let v = self.get(key).unwrap_or_default().trim().to_string();
        if allowed.contains(&v.as_str()) {
            Ok(v)
        } else {
            Err(self.bad(key, &format!("use {}", allowed.join(", "))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_workload_files_carry_ycsb_values() {
        let mut p = Props::defaults();
        p.read_file(Path::new("workloads/workloade")).unwrap();
        assert_eq!(p.get("scanproportion"), Some("0.95"));
        assert_eq!(p.get("insertproportion"), Some("0.05"));
        assert_eq!(p.get("maxscanlength"), Some("100"));
        assert_eq!(p.get("requestdistribution"), Some("zipfian"));
        let mut d = Props::defaults();
        d.read_file(Path::new("workloadd")).unwrap();
        assert_eq!(d.get("requestdistribution"), Some("latest"));
    }

    #[test]
    fn overrides_win_over_files_and_files_in_order() {
        let mut p = Props::defaults();
        p.set_override("recordcount=5000").unwrap();
        p.read_file(Path::new("workloada")).unwrap();
        // -p is applied after every -P by the family; here, set again.
        p.set_override("recordcount=5000").unwrap();
        assert_eq!(p.u64("recordcount").unwrap(), 5000);
        p.read_file(Path::new("workloadc")).unwrap();
        assert_eq!(p.get("readproportion"), Some("1"));
    }

    #[test]
    fn unknown_properties_are_one_line_naming_the_key() {
        let mut p = Props::defaults();
        let e = p.set_override("recordcont=10").unwrap_err().to_string();
        assert!(e.contains("unknown YCSB property 'recordcont'") && !e.contains('\n'), "{e}");
        assert!(p.set_override("recordcount").is_err());
        // Binding settings are accepted.
        p.set_override("db.url=jdbc:mysql://x/y").unwrap();
        p.set_override("mysql.host=127.0.0.1").unwrap();
        p.set_override("zipfian_constant=0.9").unwrap();
        assert_eq!(p.f64("zipfianconstant").unwrap(), 0.9);
    }

    #[test]
    fn bad_values_name_key_value_and_origin() {
        let mut p = Props::defaults();
        p.set_override("recordcount=ten").unwrap();
        let e = p.u64("recordcount").unwrap_err().to_string();
        assert!(e.contains("recordcount=ten (-p recordcount=ten)"), "{e}");
        let e = Props::defaults().read_file(Path::new("workloadz")).unwrap_err().to_string();
        assert!(e.contains("workloada .. workloadf"), "{e}");
    }
}
