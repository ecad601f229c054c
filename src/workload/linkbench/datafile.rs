//! LinkBench's `data_file` (config/Distribution.dat): measured cumulative
//! distributions, each a section name followed by `value percent` pairs,
//! read the way LinkBench's RealDistribution reads them: whitespace-split
//! tokens, a pair for as long as the next token is an integer, percentages
//! divided by 100. LinkBench takes a relative `data_file` from its home
//! directory ($LINKBENCH_HOME); without that variable fairbench looks where
//! it looks for `workload_file`, since a copy of LinkBench's `config/`
//! sits in that home.

use super::props::Props;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The sections LinkBench knows, in its file's order.
pub const SECTIONS: [&str; 5] = ["nlinks", "link_nreads", "link_nwrites", "node_nreads", "node_nwrites"];

/// A cumulative distribution: (value, share of items with at most that
/// value), values rising, shares not falling, the last share 1.
pub type Cdf = Vec<(u64, f64)>;

/// The parsed file.
#[derive(Clone, Debug, Default)]
pub struct DataFile {
    pub path: PathBuf,
    sections: Vec<(String, Cdf)>,
}

impl DataFile {
    /// The file `data_file` names, if the configuration gives one.
    pub fn from_props(p: &Props) -> Result<Option<DataFile>> {
        let name = p.get("data_file").trim();
        if name.is_empty() {
            return Ok(None);
        }
        let path = resolve(name, p.origin_file("data_file").as_deref())?;
        DataFile::read(&path).map(Some)
    }

    pub fn read(path: &Path) -> Result<DataFile> {
        let text = std::fs::read_to_string(path).map_err(|e| bad(path, &format!("cannot read it: {e}")))?;
        let sections = parse(&text).map_err(|what| bad(path, &what))?;
        Ok(DataFile { path: path.to_path_buf(), sections })
    }

    /// Section `name`, checked as a CDF the step rule can use.
    pub fn cdf(&self, name: &str) -> Result<&Cdf> {
        // A later section of the same name replaces an earlier one, as in LinkBench.
        let cdf = self.sections.iter().rev().find(|(n, _)| n == name).map(|(_, c)| c);
        let cdf = cdf.ok_or_else(|| bad(&self.path, &format!("it has no '{name}' section, which the configuration needs")))?;
        check_cdf(cdf).map_err(|what| bad(&self.path, &format!("section '{name}': {what}")))?;
        Ok(cdf)
    }
}

fn bad(path: &Path, what: &str) -> Error {
    Error::Usage(format!("LinkBench data_file {}: {what} (give a file in Distribution.dat's format, or drop data_file for the built-in distribution)", path.display()))
}

/// Absolute as given; relative from $LINKBENCH_HOME as LinkBench does, else
/// from the current directory, the directory of the file that named it,
/// or that directory's parent.
fn resolve(name: &str, named_in: Option<&Path>) -> Result<PathBuf> {
    let p = PathBuf::from(name);
    if p.is_absolute() {
        return Ok(p);
    }
    if let Some(home) = std::env::var_os("LINKBENCH_HOME").filter(|h| !h.is_empty() && Path::new(h).is_dir()) {
        return Ok(Path::new(&home).join(&p));
    }
    let mut candidates = vec![p.clone()];
    if let Some(dir) = named_in.and_then(Path::parent) {
        candidates.push(dir.join(&p));
        if let Some(up) = dir.parent() {
            candidates.push(up.join(&p));
        }
    }
    Ok(candidates.iter().find(|c| c.is_file()).cloned().unwrap_or(p))
}

/// Sections in file order; the error says what is wrong and where.
pub fn parse(text: &str) -> std::result::Result<Vec<(String, Cdf)>, String> {
    let mut toks = text.split_whitespace().peekable();
    let mut out: Vec<(String, Cdf)> = Vec::new();
    while let Some(name) = toks.next() {
        if !SECTIONS.contains(&name) {
            return Err(format!("unexpected token \"{name}\" where a section name ({}) should be", SECTIONS.join(", ")));
        }
        let mut cdf = Cdf::new();
        // Java's hasNextInt: a token that is a 32-bit integer starts a pair.
        while let Some(v) = toks.peek().and_then(|t| t.parse::<i32>().ok()) {
            toks.next();
            let pct = match toks.next() {
                None => return Err(format!("section '{name}': value {v} has no percentage after it (end of file)")),
                Some(t) => t.parse::<f64>().ok().filter(|f| f.is_finite()).ok_or_else(|| format!("section '{name}': expected a percentage after {v}, found \"{t}\""))?,
            };
            if v < 0 {
                return Err(format!("section '{name}': negative value {v}"));
            }
            cdf.push((v as u64, pct / 100.0));
        }
        out.push((name.to_string(), cdf));
    }
    Ok(out)
}

/// What LinkBench assumes of a section without checking (it fails with an
/// index error or draws nonsense otherwise).
fn check_cdf(cdf: &Cdf) -> std::result::Result<(), String> {
    let Some(last) = cdf.last() else {
        return Err("no points".into());
    };
    for w in cdf.windows(2) {
        if w[1].0 <= w[0].0 {
            return Err(format!("values must rise: {} follows {}", w[1].0, w[0].0));
        }
        if w[1].1 < w[0].1 {
            return Err(format!("percentages must not fall: {} at {} after {} at {}", w[1].1 * 100.0, w[1].0, w[0].1 * 100.0, w[0].0));
        }
    }
    if cdf[0].1 < 0.0 {
        return Err(format!("negative percentage at {}", cdf[0].0));
    }
    if last.1 < 1.0 {
        return Err(format!("the last point ({} at {}%) must reach 100%", last.0, last.1 * 100.0));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sections_as_percent_pairs() {
        let s = parse("nlinks\n0 50\n3 90.5\n10 100\nnode_nreads 0 99 7 100\n").unwrap();
        assert_eq!(s[0], ("nlinks".to_string(), vec![(0, 0.5), (3, 0.905), (10, 1.0)]));
        assert_eq!(s[1].0, "node_nreads");
    }

    #[test]
    fn rejects_what_linkbench_cannot_use() {
        assert!(parse("links 0 100").unwrap_err().contains("\"links\""));
        assert!(parse("nlinks 0 x").unwrap_err().contains("\"x\""));
        assert!(parse("nlinks 0").unwrap_err().contains("end of file"));
        // A value past 32 bits is no integer to LinkBench: a bad section name.
        assert!(parse("nlinks 0 50 9999999999 100").unwrap_err().contains("9999999999"));
        assert!(check_cdf(&vec![(0, 0.5), (2, 0.9)]).unwrap_err().contains("100%"));
        assert!(check_cdf(&vec![(0, 0.5), (0, 1.0)]).unwrap_err().contains("rise"));
        assert!(check_cdf(&vec![(0, 0.5), (1, 0.4), (2, 1.0)]).unwrap_err().contains("fall"));
        assert!(check_cdf(&vec![]).is_err());
    }
}
