//! A sweep: the same runs on several versions (builds) of one engine, each
//! on a server of its own with the same profile and the same data, the
//! repetitions alternated across the versions (A B C, A B C ...) so the
//! machine's drift falls on all of them alike. Every run is stored with the
//! tag `SWEEP/VERSION/RUN`; the plan is stored beside the runs under
//! `SWEEP`, so the table can be printed again and an interrupted sweep
//! resumed from the store alone.

pub mod store;
pub mod table;

use crate::workload::family::PresetRun;
use serde::{Deserialize, Serialize};

/// One version of a sweep, as `--versions` names it.
#[derive(Clone, Debug, PartialEq)]
pub enum Version {
    /// The build installed on the machine.
    System,
    /// A version to fetch (`17`, `16.4`).
    Fetch(String),
    /// A build in a directory (`/opt/pg17`, `./build`).
    Basedir(String),
    /// A server that is already running, used as it is.
    Target(String),
}

impl Version {
    /// What a `--versions` entry names; `#N` after it tells repeated entries
    /// apart (an A/A sweep: `17,17#2`) and is not part of the version.
    pub fn parse(s: &str) -> Version {
        let s = s.split_once('#').map_or(s, |(v, n)| if n.parse::<u32>().is_ok() { v } else { s });
        if s.contains("://") || s.starts_with("sqlite:") {
            return Version::Target(s.to_string());
        }
        let s = s.split('+').next().unwrap_or(s);
        if s.starts_with('/') || s.starts_with('.') || s.starts_with('~') {
            Version::Basedir(s.to_string())
        } else if s == "system" {
            Version::System
        } else {
            Version::Fetch(s.to_string())
        }
    }
}

/// The server settings an entry adds to the sweep's, `KEY=VALUE` after
/// each `+` (`17+log_min_duration_statement=0`: version 17 with a setting
/// that costs, beside 17 without it); none for a running server's URL.
pub fn settings(entry: &str) -> Vec<String> {
    match Version::parse(entry) {
        Version::Target(_) => Vec::new(),
        _ => entry.split('#').next().unwrap_or(entry).split('+').skip(1).map(String::from).collect(),
    }
}

/// The versions' keys: each entry as given, a repeated one with `#2`, `#3` ...
pub fn keys(entries: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in entries {
        let mut k = e.clone();
        let mut n = 1;
        while out.contains(&k) {
            n += 1;
            k = format!("{e}#{n}");
        }
        out.push(k);
    }
    out
}

/// Everything a sweep runs, stored as it was asked so that `--resume`
/// runs the rest of the same sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPlan {
    pub tag: String,
    pub engine: String,
    /// The versions' keys, in the order of the table's columns.
    pub versions: Vec<String>,
    /// The column every other is divided by.
    pub base: usize,
    pub preset: Option<String>,
    /// `prepare`'s workload and options, run on each server first.
    pub prepare: Vec<String>,
    pub runs: Vec<PresetRun>,
    pub repeat: usize,
    /// Options every prepare and run gets after its own (they win).
    pub options: Vec<String>,
    pub profile: String,
    pub sets: Vec<String>,
    /// Memory each server is sized for (the servers run side by side).
    pub ram_per_server: u64,
    pub notes: Vec<String>,
}

impl SweepPlan {
    /// The tag runs of version `v` and run `r` are stored with.
    pub fn tag_of(&self, v: usize, r: usize) -> String {
        format!("{}/{}/{}", self.tag, self.versions[v], self.runs[r].name)
    }

    /// The order runs go in: each run of the list in turn, its repetitions
    /// alternated across the versions. (run, repetition, version).
    pub fn order(&self) -> Vec<(usize, usize, usize)> {
        let mut v = Vec::new();
        for r in 0..self.runs.len() {
            for rep in 0..self.repeat {
                for ver in 0..self.versions.len() {
                    v.push((r, rep, ver));
                }
            }
        }
        v
    }

    /// A run's command line: its own options, then the sweep's (an option
    /// given in both is the sweep's).
    pub fn args_of(&self, own: &[String]) -> Vec<String> {
        let given: Vec<&str> = self.options.iter().filter(|o| o.starts_with("--")).map(|o| o.split('=').next().unwrap_or(o)).collect();
        let mut out = Vec::new();
        let mut skip_value = false;
        for a in own {
            if skip_value {
                skip_value = false;
                if !a.starts_with("--") {
                    continue;
                }
            }
            if a.starts_with("--") && given.contains(&a.split('=').next().unwrap_or(a)) {
                skip_value = !a.contains('=');
                continue;
            }
            out.push(a.clone());
        }
        out.extend(self.options.iter().cloned());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(options: &[&str]) -> SweepPlan {
        SweepPlan {
            tag: "s".into(),
            engine: "postgres".into(),
            versions: keys(&["16".into(), "17".into(), "16".into()]),
            base: 0,
            preset: None,
            prepare: vec![],
            runs: vec![PresetRun::new("a", "x"), PresetRun::new("b", "y")],
            repeat: 2,
            options: options.iter().map(|s| s.to_string()).collect(),
            profile: "packaged".into(),
            sets: vec![],
            ram_per_server: 1 << 30,
            notes: vec![],
        }
    }

    #[test]
    fn versions_are_told_apart_and_parsed() {
        assert_eq!(keys(&["16".into(), "17".into(), "16".into(), "16".into()]), ["16", "17", "16#2", "16#3"]);
        assert_eq!(Version::parse("16#2"), Version::Fetch("16".into()));
        assert_eq!(Version::parse("system"), Version::System);
        assert_eq!(Version::parse("/usr/lib/postgresql/15"), Version::Basedir("/usr/lib/postgresql/15".into()));
        assert_eq!(Version::parse("sqlite:/tmp/a.db#2"), Version::Target("sqlite:/tmp/a.db".into()));
        assert_eq!(Version::parse("postgres://u@h/db"), Version::Target("postgres://u@h/db".into()));
        assert_eq!(Version::parse("17+fsync=off+wal_level=minimal#2"), Version::Fetch("17".into()));
        assert_eq!(settings("17+fsync=off+wal_level=minimal#2"), ["fsync=off", "wal_level=minimal"]);
        assert!(settings("postgres://u:a+b@h/db").is_empty() && settings("system").is_empty());
    }

    #[test]
    fn repetitions_alternate_across_versions() {
        let p = plan(&[]);
        let o = p.order();
        assert_eq!(&o[..6], &[(0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 1, 0), (0, 1, 1), (0, 1, 2)]);
        assert_eq!(o.len(), 12);
        assert_eq!(p.tag_of(2, 1), "s/16#2/b");
    }

    #[test]
    fn the_sweeps_options_win_over_a_runs_own() {
        let p = plan(&["--table-size", "100", "--time=2"]);
        let own: Vec<String> = "w --tables 8 --table-size 530000 --time 60 --range-size 10".split(' ').map(String::from).collect();
        assert_eq!(p.args_of(&own).join(" "), "w --tables 8 --range-size 10 --table-size 100 --time=2");
    }
}
