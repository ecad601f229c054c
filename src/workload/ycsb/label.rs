//! YCSB labels: `YCSB_<workload>-<records>[-<distribution>]` for a run of a
//! core workload (`YCSB_A-1M-zipfian`), `YCSB_load-<records>` for a load;
//! the label a run is recorded with ([`of`]), and what a typed one means.
//! A label stands for YCSB's words (`ycsb -P workloada -p recordcount=...`)
//! and may be typed wherever the workload's name goes; a `-p` after it
//! wins over what it says. A mix that is not a core workload's
//! (`YCSB_custom-...`) has no label form: its properties say it.

use super::config::Config;
use super::config::DISTRIBUTIONS;
use super::props::{Props, CORE_WORKLOADS};
use super::Phase;
use super::NAME;
use crate::label::{compact, parse_size, strip_prefix_ci, Decoded, LabelError};

/// A decoded label.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    /// The core workload's letter; None for a load.
    pub letter: Option<char>,
    pub records: u64,
    pub distribution: Option<String>,
}

/// Whether `word` is a YCSB label.
pub fn is_label(word: &str) -> bool {
    strip_prefix_ci(word, "ycsb_").is_some_and(|r| !r.is_empty())
}

/// The label's parts, or why it is not one (None: not a YCSB label).
pub fn parse(label: &str) -> Option<Result<Parsed, (String, String)>> {
    let segs: Vec<&str> = label.trim().split('-').collect();
    let kind = strip_prefix_ci(segs[0], "ycsb_").filter(|r| !r.is_empty())?;
    let bad = |tok: &str, why: String| Some(Err((tok.to_string(), why)));
    let letter = match kind.to_ascii_lowercase().as_str() {
        "load" => None,
        k if k.len() == 1 && ("a"..="f").contains(&k) => k.chars().next(),
        "custom" => return bad(kind, "a custom YCSB mix has no label: give its properties (-P FILE, -p key=value)".into()),
        _ => return bad(kind, format!("'{kind}' after YCSB_ is not a core workload: write A to F, or load")),
    };
    let Some(size) = segs.get(1) else { return bad(label, format!("{label}: give the record count after a '-', e.g. YCSB_A-1M")) };
    let records = match parse_size(&size.to_ascii_lowercase()) {
        Some(Some(n)) if n > 0 => n,
        _ => return bad(size, format!("'{size}' is not a record count: write e.g. 10K or 1M")),
    };
    let mut distribution = None;
    for t in &segs[2..] {
        let l = t.to_ascii_lowercase();
        if DISTRIBUTIONS.contains(&l.as_str()) && letter.is_some() && distribution.is_none() {
            distribution = Some(l);
        } else {
            return bad(t, format!("unknown YCSB label token '{t}': a run's label ends with its request distribution ({})", DISTRIBUTIONS.join(", ")));
        }
    }
    Some(Ok(Parsed { letter, records, distribution }))
}

/// YCSB's words the label stands for, in place of the label.
pub fn words(p: &Parsed) -> Vec<String> {
    let mut v = vec![NAME.to_string()];
    match p.letter {
        Some(l) => v.extend(["-P".to_string(), format!("workload{l}")]),
        None => v.push("-load".into()),
    }
    v.extend(["-p".to_string(), format!("recordcount={}", p.records)]);
    if let Some(d) = &p.distribution {
        v.extend(["-p".to_string(), format!("requestdistribution={d}")]);
    }
    v
}

/// For `fairbench explain`: the label's options and what each token means.
pub fn decode(label: &str) -> Option<Result<Decoded, LabelError>> {
    let p = match parse(label)? {
        Ok(p) => p,
        Err((token, message)) => return Some(Err(LabelError { label: label.to_string(), token, message })),
    };
    let mut d = Decoded { workload: NAME.to_string(), command: "run".into(), options: Vec::new(), explanation: Vec::new() };
    let head = label.split('-').next().unwrap_or_default().to_string();
    match p.letter {
        Some(l) => {
            d.options.push(("ycsb-workload".into(), format!("workload{l}")));
            d.explanation.push((head, format!("YCSB core workload {} (-P workload{l})", l.to_ascii_uppercase())));
        }
        None => {
            d.options.push(("ycsb-phase".into(), "load".into()));
            d.explanation.push((head, "YCSB's load phase: inserts the records (fairbench load ycsb)".into()));
        }
    }
    d.options.push(("ycsb.recordcount".into(), p.records.to_string()));
    d.explanation.push((label.split('-').nth(1).unwrap_or_default().to_string(), format!("{} records (-p recordcount={})", p.records, p.records)));
    if let Some(dist) = &p.distribution {
        d.options.push(("ycsb.requestdistribution".into(), dist.clone()));
        d.explanation.push((dist.clone(), format!("keys drawn {dist} (-p requestdistribution={dist})")));
    }
    Some(Ok(d))
}

/// The canonical label from option values as `explain` has them.
pub fn canonical(get: &dyn Fn(&str) -> Option<String>) -> String {
    let records = get("ycsb.recordcount").and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    if get("ycsb-phase").as_deref() == Some("load") {
        return text(None, records, None);
    }
    let letter = get("ycsb-workload").and_then(|w| w.strip_prefix("workload").map(str::to_ascii_uppercase)).unwrap_or_else(|| "custom".into());
    text(Some(&letter), records, get("ycsb.requestdistribution").as_deref())
}

/// The run's label: `YCSB_A-1M` for core workload A over a million
/// records (`YCSB_custom-...` for another mix), `-load` for the load phase.
pub fn of(c: &Config, phase: Phase) -> String {
    let letter = core_letter(c).map(|l| l.to_ascii_uppercase().to_string()).unwrap_or_else(|| "custom".into());
    match phase {
        Phase::Load => text(None, c.recordcount, None),
        Phase::Run => text(Some(&letter), c.recordcount, Some(&c.requestdistribution)),
    }
}

/// A label's text: `YCSB_<workload>-<records>[-<distribution>]`, or
/// `YCSB_load-<records>` when `workload` is None.
fn text(workload: Option<&str>, records: u64, distribution: Option<&str>) -> String {
    let size = compact(records);
    match (workload, distribution) {
        (None, _) => format!("YCSB_load-{size}"),
        (Some(w), Some(d)) => format!("YCSB_{w}-{size}-{d}"),
        (Some(w), None) => format!("YCSB_{w}-{size}"),
    }
}

/// The core workload whose operation mix this configuration runs, if any.
fn core_letter(c: &Config) -> Option<char> {
    CORE_WORKLOADS.iter().find_map(|(name, text)| {
        let mut p = Props::defaults();
        for (k, v, _) in crate::workload::common::java_properties(text) {
            let _ = p.set_override(&format!("{k}={v}"));
        }
        let core = Config::new(&p).ok()?;
        // The mix names the workload; the label's last token says how keys are drawn.
        let same = core.mix.iter().zip(&c.mix).all(|(a, b)| (a - b).abs() < 1e-9);
        same.then(|| name.chars().last().unwrap_or('?'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_stand_for_ycsb_words() {
        let p = parse("YCSB_A-1M-zipfian").unwrap().unwrap();
        assert_eq!(words(&p), ["ycsb", "-P", "workloada", "-p", "recordcount=1000000", "-p", "requestdistribution=zipfian"]);
        let p = parse("ycsb_load-10K").unwrap().unwrap();
        assert_eq!(words(&p), ["ycsb", "-load", "-p", "recordcount=10000"]);
        assert!(parse("sb_other").is_none());
        for bad in ["YCSB_G-1M", "YCSB_A", "YCSB_A-many", "YCSB_A-1M-pareto", "YCSB_custom-1M-zipfian", "YCSB_load-1M-zipfian"] {
            assert!(parse(bad).unwrap().is_err(), "{bad}");
        }
    }

    #[test]
    fn explain_says_what_each_token_means() {
        let d = decode("YCSB_D-100K-latest").unwrap().unwrap();
        assert!(d.options.contains(&("ycsb-workload".into(), "workloadd".into())));
        assert!(d.options.contains(&("ycsb.recordcount".into(), "100000".into())));
        assert_eq!(d.explanation.len(), 3);
        let get = |n: &str| d.options.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        assert_eq!(canonical(&get), "YCSB_D-100K-latest");
    }

    #[test]
    fn labels_name_the_core_workload() {
        let mut p = Props::defaults();
        p.read_file(std::path::Path::new("workloadb")).unwrap();
        p.set_override("recordcount=1000000").unwrap();
        let c = Config::new(&p).unwrap();
        assert_eq!(of(&c, Phase::Run), "YCSB_B-1M-zipfian");
        assert_eq!(of(&c, Phase::Load), "YCSB_load-1M");
        p.set_override("readproportion=0.9").unwrap();
        assert_eq!(of(&Config::new(&p).unwrap(), Phase::Run), "YCSB_custom-1M-zipfian");
    }
}
