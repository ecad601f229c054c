//! LinkBench labels, in BMK-kit's manner: `[Prepare_]LinkBench_<nodes>`
//! then `-` separated tokens.
//!
//! - `<nodes>`: the graph size, maxid1 - startid1 (`1M` is maxid1=1000001)
//! - `FB2011` / `MDC2017`: the request mix (FB2011 when absent)
//! - `<N>req`: N requesters (`--threads`)
//!
//! e.g. `LinkBench_1M-FB2011-64req`, `Prepare_LinkBench_10M`.

use super::{Config, NAME};
use crate::label::{compact, parse_size, strip_prefix_ci, Decoded, LabelError};

const HEAD: &str = "linkbench_";

fn err(label: &str, token: &str, message: String) -> LabelError {
    LabelError { label: label.to_string(), token: token.to_string(), message }
}

/// Decodes a LinkBench label; None when the label is not one.
pub fn decode(label: &str) -> Option<Result<Decoded, LabelError>> {
    let body = label.trim();
    let segs: Vec<&str> = body.split('-').collect();
    let mut head = segs[0];
    let mut prepare = false;
    if let Some(rest) = strip_prefix_ci(head, "prepare_").filter(|r| !r.is_empty()) {
        prepare = true;
        head = rest;
    }
    let size_tok = strip_prefix_ci(head, HEAD).filter(|r| !r.is_empty())?;
    let mut d = Decoded { workload: NAME.to_string(), command: if prepare { "prepare" } else { "run" }.to_string(), options: Vec::new(), explanation: Vec::new() };
    if prepare {
        d.explanation.push(("Prepare".into(), "command prepare: create and load the graph".into()));
    }
    let nodes = match parse_size(&size_tok.to_ascii_lowercase()) {
        Some(Some(n)) if n > 0 => n,
        _ => return Some(Err(err(label, size_tok, format!("'{size_tok}' after LinkBench_ is not a graph size: write e.g. 1M or 10M")))),
    };
    d.options.push(("maxid1".into(), (nodes + 1).to_string()));
    d.explanation.push((format!("LinkBench_{size_tok}"), format!("LinkBench social graph of {nodes} nodes (maxid1={})", nodes + 1)));
    for &t in &segs[1..] {
        let l = t.to_ascii_lowercase();
        if l == "fb2011" || l == "mdc2017" {
            d.options.push(("linkbench-mix".into(), l.clone()));
            let what = if l == "fb2011" { "Facebook's 2011 trace mix (FBWorkload.properties)" } else { "the 2017 mix of the maintained LinkBench fork" };
            d.explanation.push((t.to_string(), format!("request mix: {what}")));
        } else if let Some(n) = l.strip_suffix("req").and_then(|n| n.parse::<u64>().ok()).filter(|n| *n > 0) {
            d.options.push(("threads".into(), n.to_string()));
            d.explanation.push((t.to_string(), format!("{n} requesters (--threads={n})")));
        } else {
            return Some(Err(err(label, t, format!("unknown LinkBench label token '{t}': use FB2011, MDC2017 or <N>req (e.g. 64req)"))));
        }
    }
    Some(Ok(d))
}

/// The canonical label from option values (`get` as the shared grammar's).
pub fn canonical(get: &dyn Fn(&str) -> Option<String>) -> String {
    let num = |n: &str| get(n).and_then(|v| v.trim().parse::<u64>().ok());
    let start = num("startid1").unwrap_or(1);
    let nodes = num("maxid1").map(|m| m.saturating_sub(start)).unwrap_or(10_000_000);
    let prepare = get("command").is_some_and(|c| c.eq_ignore_ascii_case("prepare"));
    if prepare {
        return format!("Prepare_LinkBench_{}", compact(nodes));
    }
    let mix = get("linkbench-mix").map(|m| m.to_ascii_uppercase()).unwrap_or_else(|| "FB2011".into());
    let mut l = format!("LinkBench_{}-{mix}", compact(nodes));
    if let Some(t) = get("threads").and_then(|t| t.parse::<u64>().ok()) {
        l.push_str(&format!("-{t}req"));
    }
    l
}

/// The canonical label of a configuration run by `threads` requesters.
pub fn canonical_of(cfg: &Config, threads: usize) -> String {
    let get = |n: &str| -> Option<String> {
        Some(match n {
            "startid1" => cfg.startid1.to_string(),
            "maxid1" => cfg.maxid1.to_string(),
            "linkbench-mix" => cfg.mix_name.clone(),
            "threads" => threads.to_string(),
            _ => return None,
        })
    };
    canonical(&get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_common_shape() {
        let d = decode("LinkBench_1M-FB2011-64req").unwrap().unwrap();
        assert_eq!(d.workload, "linkbench");
        assert_eq!(d.options, vec![("maxid1".into(), "1000001".into()), ("linkbench-mix".into(), "fb2011".into()), ("threads".into(), "64".into())]);
        assert!(decode("Other_10M-RW").is_none());
        assert!(decode("LinkBench_1M-bogus").unwrap().is_err());
        let p = decode("Prepare_LinkBench_10M").unwrap().unwrap();
        assert_eq!(p.command, "prepare");
    }

    #[test]
    fn canonical_round_trips() {
        let d = decode("LinkBench_1M-MDC2017-16req").unwrap().unwrap();
        let get = |n: &str| d.options.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        assert_eq!(canonical(&get), "LinkBench_1M-MDC2017-16req");
    }
}
