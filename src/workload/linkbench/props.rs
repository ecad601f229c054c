//! LinkBench's configuration as its users write it: a Java properties file
//! (`-c FILE`), the workload file it names (`workload_file`), `-D key=value`
//! overrides, on top of LinkBench's own defaults. Keys LinkBench knows but
//! fairbench has no use for (connection settings, logging, generator class
//! names) are accepted and left alone; any other key is an error naming it.

use crate::error::{Error, Result};
use crate::workload::common::java_properties as parse;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The ten operations in LinkBench's order (the order of the mix bands).
pub const OPS: [&str; 10] = ["ADD_LINK", "DELETE_LINK", "UPDATE_LINK", "COUNT_LINK", "MULTIGET_LINK", "GET_LINKS_LIST", "ADD_NODE", "UPDATE_NODE", "DELETE_NODE", "GET_NODE"];
/// Their keys in the workload file, same order.
pub const MIX_KEYS: [&str; 10] = ["addlink", "deletelink", "updatelink", "countlink", "getlink", "getlinklist", "addnode", "updatenode", "deletenode", "getnode"];

/// FB's 2011 trace mix (config/FBWorkload.properties).
pub const MIX_FB2011: [f64; 10] = [8.9886601, 2.9907664, 8.0122125, 4.8863567, 0.5261142, 50.7119145, 2.5732789, 7.366437, 1.0115914, 12.9326683];
/// The 2017 mix of the maintained fork (MDC).
pub const MIX_MDC2017: [f64; 10] = [5.35038, 0.98401, 4.75589, 4.27898, 12.14725, 22.57039, 2.61198, 3.06256, 0.25166, 43.9869];

/// Keys fairbench reads, with LinkBench's defaults (LinkConfigMysql and
/// FBWorkload); the mix keys come from the chosen mix.
const DEFAULTS: &[(&str, &str)] = &[
    ("startid1", "1"),
    ("maxid1", "10000001"),
    ("loaders", "10"),
    ("loader_chunk_size", "2048"),
    ("generate_nodes", "true"),
    ("requesters", "100"),
    ("requests", "500000"),
    ("requestrate", "0"),
    ("maxtime", "100000"),
    ("warmup_time", "0"),
    ("max_failed_requests", "100"),
    ("link_type_count", "2"),
    ("getlinklist_history", "0.3"),
    ("link_datasize", "8"),
    ("node_datasize", "128"),
    ("link_multiget_dist_min", "1"),
    ("link_multiget_dist_max", "128"),
    ("link_multiget_dist_prob", "0.382"),
    ("read_function", "zipf"),
    ("read_shape", "0.8"),
    ("read_uncorr_blend", "99.5"),
    ("write_function", "zipf"),
    ("write_shape", "0.741"),
    ("write_uncorr_blend", "95"),
    ("node_read_shape", "0.625"),
    ("node_update_shape", "0.606"),
    ("progressfreq", "300"),
    ("displayfreq", "1800"),
    ("id2gen_config", "0"),
    ("randomid2max", "0"),
    ("mysql_bulk_insert_batch", "1024"),
    ("dbprefix", ""),
    ("dbcount", "1"),
    ("load_random_seed", "0"),
    ("request_random_seed", "0"),
    ("workload_file", ""),
];

/// Keys LinkBench's files carry that fairbench does not need: the target
/// comes from `--target`, generators and logging are fairbench's own.
const IGNORED_PREFIXES: &[&str] = &[
    "host",
    "user",
    "password",
    "port",
    "dbid",
    "linkstore",
    "nodestore",
    "graphstore",
    "debuglevel",
    "maxsamples",
    "data_file",
    "linktable",
    "nodetable",
    "counttable",
    "link_add_datagen",
    "link_up_datagen",
    "node_add_datagen",
    "node_up_datagen",
    "nlinks_",
    "read_config",
    "write_config",
    "read_uncorr_",
    "write_uncorr_",
    "read_corr_",
    "write_corr_",
    "node_read_",
    "node_update_",
    "node_delete_",
    "link_multiget_dist",
    "mysql_",
    "postgres",
    "pgsql",
    "use_hdr_histogram",
    "hdr_histogram_",
    "req_progress_interval",
    "never_change",
    "loader_",
    "loadonly",
    "load_",
    "request_",
    "bulkload",
    "tablename",
    "ssl",
    "csvstats",
    "csvstream",
    "dbcount",
    "dbprefix",
    "threads_per_db",
];

/// The merged configuration, every value as LinkBench's text.
#[derive(Clone, Debug, Default)]
pub struct Props {
    values: BTreeMap<String, String>,
    /// Where each value came from, for error messages.
    origin: BTreeMap<String, String>,
}

fn known(key: &str) -> bool {
    DEFAULTS.iter().any(|(k, _)| *k == key) || MIX_KEYS.contains(&key) || IGNORED_PREFIXES.iter().any(|p| key.starts_with(p))
}

impl Props {
    /// LinkBench's defaults with the mix `mix` (FB 2011 or MDC 2017).
    pub fn defaults(mix: &[f64; 10]) -> Props {
        let mut p = Props::default();
        for (k, v) in DEFAULTS {
            p.set(k, v, "default");
        }
        for (k, v) in MIX_KEYS.iter().zip(mix) {
            p.set(k, &v.to_string(), "default");
        }
        p
    }

    fn set(&mut self, k: &str, v: &str, origin: &str) {
        self.values.insert(k.to_string(), v.to_string());
        self.origin.insert(k.to_string(), origin.to_string());
    }

    /// One `key=value` from the command line (`-D`).
    pub fn set_override(&mut self, kv: &str) -> Result<()> {
        let Some((k, v)) = kv.split_once('=') else {
            return Err(Error::Usage(format!("-D {kv}: write -D key=value, e.g. -D maxid1=1000001")));
        };
        let k = k.trim();
        if !known(k) {
            return Err(Error::Usage(format!("-D {kv}: unknown LinkBench key '{k}' (see docs/workloads/linkbench.md for the keys fairbench reads)")));
        }
        self.set(k, v.trim(), "-D");
        Ok(())
    }

    /// A properties file; its `workload_file` is read after it, so values
    /// of the main file and of `-D` given later win over the workload's.
    pub fn read_file(&mut self, path: &Path) -> Result<()> {
        let entries = self.read_one(path)?;
        let workload = entries.iter().rev().find(|(k, _, _)| k == "workload_file").map(|(_, v, _)| v.clone());
        if let Some(w) = workload.filter(|w| !w.is_empty()) {
            let wp = resolve(path, &w)?;
            for (k, v, _) in self.read_one(&wp)? {
                self.set(&k, &v, &wp.display().to_string());
            }
        }
        for (k, v, _) in entries {
            self.set(&k, &v, &path.display().to_string());
        }
        Ok(())
    }

    fn read_one(&self, path: &Path) -> Result<Vec<(String, String, usize)>> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Usage(format!("cannot read LinkBench properties file {}: {e}", path.display())))?;
        let entries = parse(&text);
        if let Some((k, _, line)) = entries.iter().find(|(k, _, _)| !known(k)) {
            return Err(Error::Usage(format!("{}:{line}: unknown LinkBench key '{k}': remove it or correct its spelling", path.display())));
        }
        Ok(entries)
    }

    pub fn get(&self, k: &str) -> &str {
        self.values.get(k).map(String::as_str).unwrap_or("")
    }

    fn bad(&self, k: &str, what: &str) -> Error {
        Error::Usage(format!("LinkBench key {k} = '{}' (from {}): {what}", self.get(k), self.origin.get(k).map(String::as_str).unwrap_or("default")))
    }

    pub fn f64(&self, k: &str) -> Result<f64> {
        self.get(k).trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| self.bad(k, "not a number"))
    }

    pub fn i64(&self, k: &str) -> Result<i64> {
        let s = self.get(k).trim();
        s.parse::<i64>().or_else(|_| s.parse::<f64>().map(|f| f as i64)).map_err(|_| self.bad(k, "not an integer"))
    }

    pub fn u64_min(&self, k: &str, min: u64) -> Result<u64> {
        let v = self.i64(k)?;
        if v < min as i64 {
            return Err(self.bad(k, &format!("must be at least {min}")));
        }
        Ok(v as u64)
    }

    pub fn bool(&self, k: &str) -> Result<bool> {
        match self.get(k).trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "on" | "yes" => Ok(true),
            "false" | "0" | "off" | "no" => Ok(false),
            _ => Err(self.bad(k, "write true or false")),
        }
    }

    /// The properties file a value came from, if it came from one.
    pub fn origin_file(&self, k: &str) -> Option<PathBuf> {
        self.origin.get(k).filter(|o| *o != "default" && *o != "-D").map(PathBuf::from)
    }

    /// The mix as percentages in [`OPS`] order; they must sum to 100.
    pub fn mix(&self) -> Result<[f64; 10]> {
        let mut m = [0.0; 10];
        for (i, k) in MIX_KEYS.iter().enumerate() {
            m[i] = self.f64(k)?;
            if m[i] < 0.0 {
                return Err(self.bad(k, "a share cannot be negative"));
            }
        }
        let sum: f64 = m.iter().sum();
        if (sum - 100.0).abs() > 0.01 {
            return Err(Error::Usage(format!("the LinkBench mix (addlink .. getnode) sums to {sum:.4}, not 100: correct the shares")));
        }
        Ok(m)
    }
}

/// `workload_file` as LinkBench users write it: relative to the directory
/// they run from (LinkBench's home), else to the main file's directory
/// and its parent (a copy of LinkBench's `config/`).
fn resolve(main: &Path, name: &str) -> Result<PathBuf> {
    let p = PathBuf::from(name);
    let dir = main.parent().unwrap_or(Path::new("."));
    let candidates = [p.clone(), dir.join(&p), dir.parent().unwrap_or(Path::new(".")).join(&p), dir.join(p.file_name().unwrap_or_default())];
    candidates.into_iter().find(|c| c.is_file()).ok_or_else(|| Error::Usage(format!("{}: workload_file {name} not found (looked next to it and in the current directory)", main.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_java_properties_forms() {
        let e = parse("# c\n! c\na = 1\nb:2\nc 3\nd = x \\\n  y\n\n");
        let kv: Vec<_> = e.iter().map(|(k, v, _)| (k.as_str(), v.as_str())).collect();
        assert_eq!(kv, vec![("a", "1"), ("b", "2"), ("c", "3"), ("d", "x y")]);
    }

    #[test]
    fn mixes_sum_to_100() {
        for m in [MIX_FB2011, MIX_MDC2017] {
            assert!((m.iter().sum::<f64>() - 100.0).abs() < 0.001);
        }
    }

    #[test]
    fn unknown_override_names_the_key() {
        let mut p = Props::defaults(&MIX_FB2011);
        let e = p.set_override("maxidd1=5").unwrap_err().to_string();
        assert!(e.contains("'maxidd1'"), "{e}");
        p.set_override("maxid1=5").unwrap();
        assert_eq!(p.i64("maxid1").unwrap(), 5);
    }
}
