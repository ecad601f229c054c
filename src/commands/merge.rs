//! `fairbench merge FILE...`: the `--hdr-log` files of a group's members
//! added into one result. Histograms add exactly, so the merged percentiles
//! are those of one histogram fed every member's latencies; intervals are
//! aligned on the group's common boundaries (the logs' times are on the
//! database's clock). The result is stored like any run, with the audit
//! over the whole as findings.

use crate::cli::MergeArgs;
use crate::error::{Error, Result};
use crate::model::record::{Finding, Severity};
use crate::model::{Interval, LevelResult, RunInfo, Stop};
use crate::stats::{new_hist, pct_ms, Window};
use base64::Engine as _;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Clock offsets beyond this make the alignment of intervals doubtful.
const MAX_CLOCK_OFFSET_MS: f64 = 50.0;

/// Per level (threads): intervals (absolute start s, duration s, histogram).
type LevelIntervals = BTreeMap<usize, Vec<(f64, f64, Histogram<u64>)>>;

/// One member's log.
struct Member {
    file: PathBuf,
    head: BTreeMap<String, String>,
    intervals: LevelIntervals,
    /// Per level: the `#fairbench-interval` counters, one per interval
    /// histogram in the same order (a level's last histogram, its tail,
    /// has none).
    counters: BTreeMap<usize, Vec<Counters>>,
    /// Per level: its `#fairbench-summary` fields.
    summaries: BTreeMap<usize, BTreeMap<String, String>>,
}

impl Member {
    fn get(&self, k: &str) -> &str {
        self.head.get(k).map(String::as_str).unwrap_or("")
    }
    fn num(&self, k: &str) -> f64 {
        self.get(k).parse().unwrap_or(0.0)
    }
}

/// What a member counted in one interval besides latencies.
#[derive(Clone, Copy, Default)]
struct Counters {
    reads: u64,
    writes: u64,
    other: u64,
    errors: u64,
    reconnects: u64,
    cpu_user_s: f64,
    cpu_sys_s: f64,
}

impl Counters {
    fn parse(f: &BTreeMap<String, String>) -> Counters {
        let n = |k: &str| f.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        Counters {
            reads: n("reads") as u64,
            writes: n("writes") as u64,
            other: n("other") as u64,
            errors: n("errors") as u64,
            reconnects: n("reconnects") as u64,
            cpu_user_s: n("cpu_user_s"),
            cpu_sys_s: n("cpu_sys_s"),
        }
    }

    fn add(&mut self, o: &Counters) {
        self.reads += o.reads;
        self.writes += o.writes;
        self.other += o.other;
        self.errors += o.errors;
        self.reconnects += o.reconnects;
        self.cpu_user_s += o.cpu_user_s;
        self.cpu_sys_s += o.cpu_sys_s;
    }
}

/// A level's tail (the histogram written with its summary) counted what the
/// summary has beyond the intervals' lines, so the merged intervals add up
/// to the totals.
fn tail_counters(intervals: &LevelIntervals, counters: &mut BTreeMap<usize, Vec<Counters>>, summaries: &BTreeMap<usize, BTreeMap<String, String>>) {
    for (level, ivs) in intervals {
        let (Some(summary), Some(c)) = (summaries.get(level), counters.get_mut(level)) else { continue };
        if c.len() + 1 != ivs.len() {
            continue;
        }
        let total = Counters::parse(summary);
        let sum = c.iter().fold(Counters::default(), |mut a, x| {
            a.add(x);
            a
        });
        c.push(Counters {
            reads: total.reads.saturating_sub(sum.reads),
            writes: total.writes.saturating_sub(sum.writes),
            other: total.other.saturating_sub(sum.other),
            errors: total.errors.saturating_sub(sum.errors),
            reconnects: total.reconnects.saturating_sub(sum.reconnects),
            cpu_user_s: (total.cpu_user_s - sum.cpu_user_s).max(0.0),
            cpu_sys_s: (total.cpu_sys_s - sum.cpu_sys_s).max(0.0),
        });
    }
}

/// The lines of an HdrHistogram interval log, from a file that may hold
/// other lines too: `--hdr-log -` shares standard output with the run's
/// report, and `kubectl logs` adds the standard error. Log lines are
/// comments, the legend, and intervals (`Tag=...` or a number first).
fn log_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for l in text.lines() {
        let first = l.chars().next().unwrap_or(' ');
        if first == '#' || first == '"' || first.is_ascii_digit() || l.starts_with("Tag=") {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

fn fields(line: &str) -> BTreeMap<String, String> {
    line.split_whitespace().filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn bad(file: &Path, why: &str) -> Error {
    Error::Usage(format!("{}: {why}; give the files fairbench run --hdr-log wrote", file.display()))
}

fn read_member(file: &Path) -> Result<Member> {
    let bytes = std::fs::read(file).map_err(|e| bad(file, &format!("cannot read it ({e})")))?;
    let text = log_lines(std::str::from_utf8(&bytes).map_err(|_| bad(file, "not a text file"))?);
    let bytes = text.as_bytes();
    let head = text.lines().find_map(|l| l.strip_prefix("#fairbench-member ")).map(fields).ok_or_else(|| bad(file, "no #fairbench-member line: not a fairbench HdrHistogram log"))?;
    let mut summaries = BTreeMap::new();
    for l in text.lines().filter_map(|l| l.strip_prefix("#fairbench-summary ")) {
        let f = fields(l);
        let threads = f.get("threads").and_then(|t| t.parse().ok()).ok_or_else(|| bad(file, "a #fairbench-summary line without threads="))?;
        summaries.insert(threads, f);
    }
    let mut counters: BTreeMap<usize, Vec<Counters>> = BTreeMap::new();
    for l in text.lines().filter_map(|l| l.strip_prefix("#fairbench-interval ")) {
        let f = fields(l);
        let threads = f.get("threads").and_then(|t| t.parse().ok()).ok_or_else(|| bad(file, "a #fairbench-interval line without threads="))?;
        counters.entry(threads).or_default().push(Counters::parse(&f));
    }
    let mut base = 0.0;
    let mut intervals: LevelIntervals = BTreeMap::new();
    let mut de = Deserializer::new();
    for (n, entry) in IntervalLogIterator::new(bytes).enumerate() {
        match entry.map_err(|e| bad(file, &format!("entry {} is not an HdrHistogram interval log line ({e:?})", n + 1)))? {
            LogEntry::BaseTime(t) => base = t.as_secs_f64(),
            LogEntry::StartTime(_) => {}
            LogEntry::Interval(iv) => {
                let threads = iv.tag().and_then(|t| t.as_str().strip_prefix("threads=")).and_then(|t| t.parse().ok()).ok_or_else(|| bad(file, "an interval without a threads=N tag"))?;
                let raw = base64::engine::general_purpose::STANDARD.decode(iv.encoded_histogram()).map_err(|_| bad(file, "a histogram that is not base64"))?;
                let h: Histogram<u64> = de.deserialize(&mut std::io::Cursor::new(raw)).map_err(|e| bad(file, &format!("a histogram that does not decode ({e:?})")))?;
                intervals.entry(threads).or_default().push((base + iv.start_timestamp().as_secs_f64(), iv.duration().as_secs_f64(), h));
            }
        }
    }
    tail_counters(&intervals, &mut counters, &summaries);
    if intervals.is_empty() && summaries.is_empty() {
        return Err(bad(file, "no intervals and no summary"));
    }
    Ok(Member { file: file.to_path_buf(), head, intervals, counters, summaries })
}

/// One merged load level.
struct Level {
    threads: usize,
    /// (start s relative to the level's start, duration s, members, histogram, counters)
    intervals: Vec<(f64, f64, usize, Histogram<u64>, Counters)>,
    total: Histogram<u64>,
    elapsed_s: f64,
    window: Window,
    cpu: (f64, f64),
}

fn merge_level(members: &[Member], level: usize) -> Level {
    let starts: Vec<f64> = members.iter().filter_map(|m| m.intervals.get(&level).and_then(|v| v.first()).map(|i| i.0)).collect();
    let t0 = starts.iter().cloned().fold(f64::MAX, f64::min);
    let step = members.iter().filter_map(|m| m.intervals.get(&level)).flatten().map(|i| i.1).fold(0.0, f64::max).max(1e-3);
    let mut slots: BTreeMap<i64, (f64, usize, Histogram<u64>, Counters)> = BTreeMap::new();
    let mut total = new_hist();
    for m in members {
        let counted = m.counters.get(&level).map(Vec::as_slice).unwrap_or_default();
        for (i, (start, secs, h)) in m.intervals.get(&level).into_iter().flatten().enumerate() {
            let key = ((start - t0) / step).round() as i64;
            let slot = slots.entry(key).or_insert_with(|| (0.0, 0, new_hist(), Counters::default()));
            slot.0 = slot.0.max(*secs);
            slot.1 += 1;
            let _ = slot.2.add(h);
            if let Some(c) = counted.get(i) {
                slot.3.add(c);
            }
            let _ = total.add(h);
        }
    }
    let mut window = Window::default();
    let (mut elapsed, mut threads, mut cpu) = (0.0f64, 0usize, (0.0, 0.0));
    for m in members {
        let Some(s) = m.summaries.get(&level) else { continue };
        let n = |k: &str| s.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        window.reads += n("reads") as u64;
        window.writes += n("writes") as u64;
        window.other += n("other") as u64;
        window.errors += n("errors") as u64;
        window.reconnects += n("reconnects") as u64;
        elapsed = elapsed.max(n("elapsed_s"));
        threads += level;
        cpu.0 += n("cpu_user_s");
        cpu.1 += n("cpu_sys_s");
    }
    window.events = total.len();
    window.lat = total.clone();
    let intervals = slots.into_iter().map(|(k, (secs, n, h, c))| (k as f64 * step, secs, n, h, c)).collect();
    Level { threads: threads.max(level), intervals, total, elapsed_s: elapsed, window, cpu }
}

/// The members the group had at its start whose logs were not given: the
/// names every log lists (`members=`), or 1..size for logs without them.
fn missing_members(members: &[Member], size: usize) -> Vec<String> {
    let present: Vec<&str> = members.iter().map(|m| m.get("member")).collect();
    let mut all: Vec<String> = members.iter().flat_map(|m| m.get("members").split(',').filter(|n| !n.is_empty()).map(str::to_string)).collect();
    if all.is_empty() {
        all = (1..=size).map(|i| i.to_string()).collect();
    }
    let mut missing: Vec<String> = Vec::new();
    for n in all {
        if !present.contains(&n.as_str()) && !missing.contains(&n) {
            missing.push(n);
        }
    }
    missing
}

fn findings(members: &[Member], levels: &[usize]) -> Vec<Finding> {
    let mut out = Vec::new();
    let size = members.iter().map(|m| m.num("size") as usize).max().unwrap_or(0);
    let group = members[0].get("group");
    let missing = missing_members(members, size);
    if members.len() < size || !missing.is_empty() {
        out.push(Finding {
            rule: "group-members-missing".into(),
            severity: Severity::Critical,
            runs: vec![],
            message: format!("group {group} had {size} members but {} logs were merged: member(s) {} missing", members.len(), missing.join(", ")),
            evidence: members.iter().map(|m| format!("{}: member {}", m.file.display(), m.get("member"))).collect(),
            advice: "merge every member's --hdr-log, or rerun: the merged load is smaller than the group's".into(),
        });
    }
    for &level in levels {
        let starts: Vec<(String, f64, f64)> = members
            .iter()
            .filter_map(|m| Some((m.get("member").to_string(), m.summaries.get(&level)?.get("start_s")?.parse().ok()?, m.intervals.get(&level)?.iter().map(|i| i.1).fold(0.0, f64::max))))
            .collect();
        let lo = starts.iter().map(|s| s.1).fold(f64::MAX, f64::min);
        let hi = starts.iter().map(|s| s.1).fold(f64::MIN, f64::max);
        let step = starts.iter().map(|s| s.2).fold(0.0, f64::max);
        if starts.len() > 1 && step > 0.0 && hi - lo > step {
            out.push(Finding {
                rule: "group-start-spread".into(),
                severity: Severity::Warning,
                runs: vec![],
                message: format!("at {level} threads the members started {:.3} s apart, more than one interval ({step} s)", hi - lo),
                evidence: starts.iter().map(|s| format!("member {} started at {:.3}", s.0, s.1)).collect(),
                advice: "start the members with --group so they begin together".into(),
            });
        }
    }
    for m in members {
        let off = m.num("clock_offset_ms");
        if off.abs() > MAX_CLOCK_OFFSET_MS {
            out.push(Finding {
                rule: "group-clock-offset".into(),
                severity: Severity::Warning,
                runs: vec![],
                message: format!("member {} on {} had a clock {off:+.1} ms off the database's (bound {MAX_CLOCK_OFFSET_MS} ms)", m.get("member"), m.get("host")),
                evidence: vec![format!("{}: clock_offset_ms={off}", m.file.display())],
                advice: "synchronise the hosts' clocks (NTP/chrony); the merge aligned intervals with the measured offset".into(),
            });
        }
    }
    out
}

pub fn merge(a: MergeArgs) -> Result<()> {
    let members = a.files.iter().map(|f| read_member(f)).collect::<Result<Vec<_>>>()?;
    let mut levels: Vec<usize> = members.iter().flat_map(|m| m.intervals.keys().chain(m.summaries.keys()).copied()).collect();
    levels.sort_unstable();
    levels.dedup();
    let first = &members[0];
    let percentile = first.num("percentile").max(1.0);
    println!("Merged {} member log(s) of group {} ({} on {})", members.len(), first.get("group"), first.get("workload"), first.get("engine"));
    let merged: Vec<Level> = levels.iter().map(|&l| merge_level(&members, l)).collect();
    for lv in &merged {
        println!();
        for (t, secs, n, h, c) in &lv.intervals {
            let secs = secs.max(1e-9);
            println!(
                "[ {:.0}s ] members: {n} events: {} tps: {:.2} lat (ms,{percentile}%): {:.2} max: {:.2} reads: {} writes: {} other: {} errors: {} client cpu: {:.2} s",
                t + secs,
                h.len(),
                h.len() as f64 / secs,
                pct_ms(h, percentile),
                h.max() as f64 / 1000.0,
                c.reads,
                c.writes,
                c.other,
                c.errors,
                c.cpu_user_s + c.cpu_sys_s
            );
        }
        let el = lv.elapsed_s.max(1e-9);
        let h = &lv.total;
        println!(
            "Total at {} threads: events: {} tps: {:.2} latency (ms): min {:.2} avg {:.2} p50 {:.2} p95 {:.2} p99 {:.2} max {:.2}",
            lv.threads,
            h.len(),
            h.len() as f64 / el,
            h.min() as f64 / 1000.0,
            h.mean() / 1000.0,
            pct_ms(h, 50.0),
            pct_ms(h, 95.0),
            pct_ms(h, 99.0),
            h.max() as f64 / 1000.0
        );
    }
    println!();
    for m in &members {
        let ev: u64 = m.intervals.values().flatten().map(|i| i.2.len()).sum();
        let cpu: f64 = m.summaries.values().map(|s| ["cpu_user_s", "cpu_sys_s"].iter().filter_map(|k| s.get(*k)?.parse::<f64>().ok()).sum::<f64>()).sum();
        println!("Member {} on {}: events: {ev} clock offset: {:+.3} ms client CPU: {cpu:.2} s ({})", m.get("member"), m.get("host"), m.num("clock_offset_ms"), m.file.display());
    }
    let mut found = findings(&members, &levels);
    for f in &found {
        println!("{}: {} ({})", f.severity.name(), f.message, f.advice);
    }
    if a.no_save {
        return Ok(());
    }
    let info = RunInfo {
        label: first.get("label").to_string(),
        workload: first.get("workload").to_string(),
        engine: first.get("engine").to_string(),
        target: format!("group {} ({} members merged)", first.get("group"), members.len()),
        transport: "merged".into(),
        percentile: percentile as u32,
        options: vec![
            ("group".into(), first.get("group").into()),
            ("members".into(), members.len().to_string()),
            ("merged-files".into(), a.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(",")),
        ],
        kinds: vec![],
        steps: vec![],
    };
    let rec = crate::store::Recorder::begin_offline(&a.store.results, &info, &merged.iter().map(|l| l.threads).collect::<Vec<_>>(), &a.tag)?;
    let mut sink = rec.sink();
    for lv in merged {
        sink.start(lv.threads);
        let intervals: Vec<Interval> = lv
            .intervals
            .into_iter()
            .map(|(t, secs, _, h, c)| Interval {
                t: t + secs,
                secs,
                threads: lv.threads,
                warmup: false,
                w: Window { events: h.len(), reads: c.reads, writes: c.writes, other: c.other, errors: c.errors, reconnects: c.reconnects, lat: h, ..Window::default() },
                cpu_user_s: c.cpu_user_s,
                cpu_sys_s: c.cpu_sys_s,
            })
            .collect();
        for iv in &intervals {
            sink.interval(iv, false);
        }
        let r = LevelResult { threads: lv.threads, total: lv.window, elapsed_s: lv.elapsed_s, clients: vec![], cpu_user_s: lv.cpu.0, cpu_sys_s: lv.cpu.1, intervals, stop: Stop::Completed, rate: 0.0 };
        sink.summary(&r, &info);
    }
    rec.finish(&Ok(()));
    let id = rec.run_id();
    found.iter_mut().for_each(|f| f.runs = vec![id]);
    rec.add_findings(&found);
    println!("Stored as run {id} in {}", a.store.results.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_keep_the_log_and_drop_the_report_around_it() {
        let text = "fairbench 0.1.0 (x)\n#fairbench-member group=g member=0\n[ 1s ] thds: 1 tps: 1.00\nTag=threads=1,0.000,1.000,1.0,HISTF\n    read: 3\nfairbench: group g: member 0\n0.000,1.000,1.0,HISTF\n\"StartTimestamp\",\"Interval_Length\"\n";
        assert_eq!(log_lines(text), "#fairbench-member group=g member=0\nTag=threads=1,0.000,1.000,1.0,HISTF\n0.000,1.000,1.0,HISTF\n\"StartTimestamp\",\"Interval_Length\"\n");
    }
}
