//! `fairbench merge FILE...`: the `--hdr-log` files of a group's members
//! added into one result. Histograms add exactly, so the merged percentiles
//! are those of one histogram fed every member's latencies; intervals are
//! aligned on the group's common boundaries (the logs' times are on the
//! database's clock). The result is stored like any run, with the audit
//! over the whole as findings.
//!
//! A log is read twice: first for where its intervals lie, which aligns
//! all members (the slots), then for its histograms, each added into its
//! slot as it is decoded. Memory holds one histogram per slot, not one per
//! interval of every member (at 1 µs .. 1 h and 3 digits each takes about
//! 190 KB: four 10-minute logs at 1 s took 575 MiB when they were kept).

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
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

/// Clock offsets beyond this make the alignment of intervals doubtful.
const MAX_CLOCK_OFFSET_MS: f64 = 50.0;

/// Where a member's intervals of one level lie: known from the first
/// reading, before any histogram is decoded.
#[derive(Clone, Copy)]
struct Span {
    /// The first interval's start, s on the database's clock.
    first_s: f64,
    longest_s: f64,
    intervals: usize,
}

/// How the second reading gets a log's lines again.
enum Again {
    /// A regular file is read again; the digest of its log lines tells
    /// whether it changed in between.
    Reread(u64),
    /// A pipe (`<(kubectl logs ...)`) can be read once only: its log lines
    /// are kept, a few hundred bytes per interval.
    Kept(String),
}

/// One member's log.
struct Member {
    file: PathBuf,
    head: BTreeMap<String, String>,
    /// Per level (threads).
    spans: BTreeMap<usize, Span>,
    /// Per level: its `#fairbench-summary` fields.
    summaries: BTreeMap<usize, BTreeMap<String, String>>,
    again: Again,
    /// In all its interval histograms, counted by the second reading.
    events: u64,
}

impl Member {
    fn get(&self, k: &str) -> &str {
        self.head.get(k).map(String::as_str).unwrap_or("")
    }
    fn num(&self, k: &str) -> f64 {
        self.get(k).parse().unwrap_or(0.0)
    }
}

/// What a member logged besides latencies, for one interval (its
/// `#fairbench-interval` line) or a level (its summary): a window's
/// counters, added with [`Window::merge`] as the runner adds its clients',
/// and the client CPU.
struct Logged {
    w: Window,
    cpu_user_s: f64,
    cpu_sys_s: f64,
}

impl Logged {
    fn none() -> Logged {
        Logged { w: Window::counts_only(), cpu_user_s: 0.0, cpu_sys_s: 0.0 }
    }

    fn parse(f: &BTreeMap<String, String>) -> Logged {
        let n = |k: &str| f.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        let mut w = Window::counts_only();
        w.reads = n("reads") as u64;
        w.writes = n("writes") as u64;
        w.other = n("other") as u64;
        w.errors = n("errors") as u64;
        w.reconnects = n("reconnects") as u64;
        Logged { w, cpu_user_s: n("cpu_user_s"), cpu_sys_s: n("cpu_sys_s") }
    }

    fn add(&mut self, o: &Logged) {
        self.w.merge(&o.w);
        self.cpu_user_s += o.cpu_user_s;
        self.cpu_sys_s += o.cpu_sys_s;
    }

    /// What this summary counted beyond `intervals`, never below zero.
    fn beyond(&self, intervals: &Logged) -> Logged {
        let (a, b) = (&self.w, &intervals.w);
        let mut w = Window::counts_only();
        w.reads = a.reads.saturating_sub(b.reads);
        w.writes = a.writes.saturating_sub(b.writes);
        w.other = a.other.saturating_sub(b.other);
        w.errors = a.errors.saturating_sub(b.errors);
        w.reconnects = a.reconnects.saturating_sub(b.reconnects);
        Logged { w, cpu_user_s: (self.cpu_user_s - intervals.cpu_user_s).max(0.0), cpu_sys_s: (self.cpu_sys_s - intervals.cpu_sys_s).max(0.0) }
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

fn read_log(file: &Path) -> Result<String> {
    let bytes = std::fs::read(file).map_err(|e| bad(file, &format!("cannot read it ({e})")))?;
    Ok(log_lines(std::str::from_utf8(&bytes).map_err(|_| bad(file, "not a text file"))?))
}

fn digest(text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// Calls `f(level, start s on the database's clock, secs, encoded
/// histogram)` for each interval of the log, in order.
fn each_interval(file: &Path, text: &str, mut f: impl FnMut(usize, f64, f64, &str) -> Result<()>) -> Result<()> {
    let mut base = 0.0;
    for (n, entry) in IntervalLogIterator::new(text.as_bytes()).enumerate() {
        match entry.map_err(|e| bad(file, &format!("entry {} is not an HdrHistogram interval log line ({e:?})", n + 1)))? {
            LogEntry::BaseTime(t) => base = t.as_secs_f64(),
            LogEntry::StartTime(_) => {}
            LogEntry::Interval(iv) => {
                let threads = iv.tag().and_then(|t| t.as_str().strip_prefix("threads=")).and_then(|t| t.parse().ok()).ok_or_else(|| bad(file, "an interval without a threads=N tag"))?;
                f(threads, base + iv.start_timestamp().as_secs_f64(), iv.duration().as_secs_f64(), iv.encoded_histogram())?;
            }
        }
    }
    Ok(())
}

/// The first reading: what aligns the members, without the histograms.
fn read_member(file: &Path) -> Result<Member> {
    let text = read_log(file)?;
    let head = text.lines().find_map(|l| l.strip_prefix("#fairbench-member ")).map(fields).ok_or_else(|| bad(file, "no #fairbench-member line: not a fairbench HdrHistogram log"))?;
    let mut summaries = BTreeMap::new();
    for l in text.lines().filter_map(|l| l.strip_prefix("#fairbench-summary ")) {
        let f = fields(l);
        let threads = f.get("threads").and_then(|t| t.parse().ok()).ok_or_else(|| bad(file, "a #fairbench-summary line without threads="))?;
        summaries.insert(threads, f);
    }
    let mut spans: BTreeMap<usize, Span> = BTreeMap::new();
    each_interval(file, &text, |level, start, secs, _| {
        let s = spans.entry(level).or_insert(Span { first_s: start, longest_s: secs, intervals: 0 });
        s.longest_s = s.longest_s.max(secs);
        s.intervals += 1;
        Ok(())
    })?;
    if spans.is_empty() && summaries.is_empty() {
        return Err(bad(file, "no intervals and no summary"));
    }
    let regular = std::fs::metadata(file).is_ok_and(|m| m.is_file());
    let again = if regular { Again::Reread(digest(&text)) } else { Again::Kept(text) };
    Ok(Member { file: file.to_path_buf(), head, spans, summaries, again, events: 0 })
}

/// Per level: the `#fairbench-interval` counters, one per interval
/// histogram in the same order. A level's last histogram, its tail, has
/// no line: it counted what the summary has beyond the lines, so the
/// merged intervals add up to the totals. A level run without
/// intermediate reports has no line at all: its one histogram is its tail.
fn logged_intervals(file: &Path, text: &str, m: &Member) -> Result<BTreeMap<usize, Vec<Logged>>> {
    let mut out: BTreeMap<usize, Vec<Logged>> = BTreeMap::new();
    for l in text.lines().filter_map(|l| l.strip_prefix("#fairbench-interval ")) {
        let f = fields(l);
        let threads = f.get("threads").and_then(|t| t.parse().ok()).ok_or_else(|| bad(file, "a #fairbench-interval line without threads="))?;
        out.entry(threads).or_default().push(Logged::parse(&f));
    }
    for (level, span) in &m.spans {
        let Some(summary) = m.summaries.get(level) else { continue };
        let c = out.entry(*level).or_default();
        if c.len() + 1 != span.intervals {
            continue;
        }
        let sum = c.iter().fold(Logged::none(), |mut a, x| {
            a.add(x);
            a
        });
        c.push(Logged::parse(summary).beyond(&sum));
    }
    Ok(out)
}

/// A merged interval: the members' intervals that share a boundary.
struct Slot {
    secs: f64,
    members: usize,
    got: Logged,
}

/// One load level being merged.
struct Level {
    /// The earliest member's first interval start, s.
    t0: f64,
    step: f64,
    /// By position on the level's common boundaries.
    slots: BTreeMap<i64, Slot>,
    total: Histogram<u64>,
}

impl Level {
    fn new(members: &[Member], level: usize) -> Level {
        let spans = || members.iter().filter_map(|m| m.spans.get(&level));
        let t0 = spans().map(|s| s.first_s).fold(f64::MAX, f64::min);
        let step = spans().map(|s| s.longest_s).fold(0.0, f64::max).max(1e-3);
        Level { t0, step, slots: BTreeMap::new(), total: new_hist() }
    }

    fn add(&mut self, start_s: f64, secs: f64, h: Histogram<u64>, logged: Option<Logged>) {
        let key = ((start_s - self.t0) / self.step).round() as i64;
        let slot = self.slots.entry(key).or_insert_with(|| Slot { secs: 0.0, members: 0, got: Logged { w: Window { lat: new_hist(), ..Window::counts_only() }, cpu_user_s: 0.0, cpu_sys_s: 0.0 } });
        slot.secs = slot.secs.max(secs);
        slot.members += 1;
        let _ = self.total.add(&h);
        let mut iv = logged.unwrap_or_else(Logged::none);
        iv.w.lat = h;
        slot.got.add(&iv);
    }
}

/// The second reading: each interval histogram of `m` is decoded, added
/// into its level's slot and dropped.
fn add_member(m: &mut Member, levels: &mut BTreeMap<usize, Level>) -> Result<()> {
    let reread;
    let text = match &m.again {
        Again::Kept(text) => text,
        Again::Reread(d) => {
            reread = read_log(&m.file)?;
            if digest(&reread) != *d {
                return Err(Error::Usage(format!("{}: the file changed while it was being merged; merge the logs once their runs have ended", m.file.display())));
            }
            &reread
        }
    };
    let mut logged: BTreeMap<usize, std::vec::IntoIter<Logged>> = logged_intervals(&m.file, text, m)?.into_iter().map(|(l, v)| (l, v.into_iter())).collect();
    let mut de = Deserializer::new();
    let mut events = 0;
    each_interval(&m.file, text, |level, start, secs, encoded| {
        let raw = base64::engine::general_purpose::STANDARD.decode(encoded).map_err(|_| bad(&m.file, "a histogram that is not base64"))?;
        let h: Histogram<u64> = de.deserialize(&mut std::io::Cursor::new(raw)).map_err(|e| bad(&m.file, &format!("a histogram that does not decode ({e:?})")))?;
        events += h.len();
        let iv = logged.get_mut(&level).and_then(Iterator::next);
        // Every level a log has intervals at was found by the first reading.
        if let Some(lv) = levels.get_mut(&level) {
            lv.add(start, secs, h, iv);
        }
        Ok(())
    })?;
    m.events = events;
    Ok(())
}

/// One merged load level.
struct Merged {
    threads: usize,
    /// (start s from the level's start, members, interval)
    intervals: Vec<(f64, usize, Interval)>,
    elapsed_s: f64,
    window: Window,
    cpu: (f64, f64),
}

/// The level's intervals at their times, and its totals from the members'
/// summaries.
fn finish_level(members: &[Member], level: usize, lv: Level) -> Merged {
    let mut total = Logged { w: Window::default(), cpu_user_s: 0.0, cpu_sys_s: 0.0 };
    let (mut elapsed, mut threads) = (0.0f64, 0usize);
    for m in members {
        let Some(s) = m.summaries.get(&level) else { continue };
        total.add(&Logged::parse(s));
        elapsed = elapsed.max(s.get("elapsed_s").and_then(|v| v.parse().ok()).unwrap_or(0.0));
        threads += level;
    }
    let threads = threads.max(level);
    let mut window = total.w;
    window.events = lv.total.len();
    window.lat = lv.total;
    let step = lv.step;
    let intervals = lv
        .slots
        .into_iter()
        .map(|(k, s)| {
            let mut w = s.got.w;
            w.events = w.lat.len();
            (k as f64 * step, s.members, Interval { t: k as f64 * step + s.secs, secs: s.secs, threads, warmup: false, w, cpu_user_s: s.got.cpu_user_s, cpu_sys_s: s.got.cpu_sys_s, stall_s: 0.0 })
        })
        .collect();
    Merged { threads, intervals, elapsed_s: elapsed, window, cpu: (total.cpu_user_s, total.cpu_sys_s) }
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
        let starts: Vec<(String, f64, f64)> =
            members.iter().filter_map(|m| Some((m.get("member").to_string(), m.summaries.get(&level)?.get("start_s")?.parse().ok()?, m.spans.get(&level)?.longest_s))).collect();
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
    let mut members = a.files.iter().map(|f| read_member(f)).collect::<Result<Vec<_>>>()?;
    let mut levels: Vec<usize> = members.iter().flat_map(|m| m.spans.keys().chain(m.summaries.keys()).copied()).collect();
    levels.sort_unstable();
    levels.dedup();
    let mut merging: BTreeMap<usize, Level> = levels.iter().map(|&l| (l, Level::new(&members, l))).collect();
    for m in &mut members {
        add_member(m, &mut merging)?;
    }
    let merged: Vec<Merged> = merging.into_iter().map(|(l, lv)| finish_level(&members, l, lv)).collect();
    let first = &members[0];
    let percentile = first.num("percentile").max(1.0);
    println!("Merged {} member log(s) of group {} ({} on {})", members.len(), first.get("group"), first.get("workload"), first.get("engine"));
    for lv in &merged {
        println!();
        for (start, n, iv) in &lv.intervals {
            let (h, c) = (&iv.w.lat, &iv.w);
            let secs = iv.secs.max(1e-9);
            println!(
                "[ {:.0}s ] members: {n} events: {} tps: {:.2} lat (ms,{percentile}%): {:.2} max: {:.2} reads: {} writes: {} other: {} errors: {} client cpu: {:.2} s",
                start + secs,
                h.len(),
                h.len() as f64 / secs,
                pct_ms(h, percentile),
                h.max() as f64 / 1000.0,
                c.reads,
                c.writes,
                c.other,
                c.errors,
                iv.cpu_user_s + iv.cpu_sys_s
            );
        }
        let el = lv.elapsed_s.max(1e-9);
        let h = &lv.window.lat;
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
        let cpu: f64 = m.summaries.values().map(|s| ["cpu_user_s", "cpu_sys_s"].iter().filter_map(|k| s.get(*k)?.parse::<f64>().ok()).sum::<f64>()).sum();
        println!("Member {} on {}: events: {} clock offset: {:+.3} ms client CPU: {cpu:.2} s ({})", m.get("member"), m.get("host"), m.events, m.num("clock_offset_ms"), m.file.display());
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
        options: crate::model::options::RunOptions::from_pairs([
            ("group", first.get("group").to_string()),
            ("members", members.len().to_string()),
            ("merged-files", a.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(",")),
        ]),
        kinds: vec![],
        steps: vec![],
    };
    let rec = crate::store::Recorder::begin(&a.store.results, &info, &merged.iter().map(|l| l.threads).collect::<Vec<_>>(), &a.tag)?;
    let mut sink = rec.sink();
    for lv in merged {
        sink.before_start();
        sink.start(lv.threads);
        let intervals: Vec<Interval> = lv.intervals.into_iter().map(|(_, _, iv)| iv).collect();
        for iv in &intervals {
            sink.interval(iv, false);
        }
        let r = LevelResult {
            threads: lv.threads,
            total: lv.window,
            elapsed_s: lv.elapsed_s,
            clients: vec![],
            cpu_user_s: lv.cpu.0,
            cpu_sys_s: lv.cpu.1,
            intervals,
            stop: Stop::Completed,
            rate: 0.0,
            outage: None,
            name: None,
            figures: Vec::new(),
            connect_s: 0.0,
        };
        sink.summary(&r, &info);
    }
    let id = rec.run_id();
    found.iter_mut().for_each(|f| f.runs = vec![id]);
    crate::runner::record::close_audited(&rec, &Ok(()), None, found);
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

    /// The histograms are read on a second pass: a log that grew in
    /// between (a member still running) would not match the alignment
    /// the first pass found.
    #[test]
    fn a_log_that_changes_between_the_readings_is_one_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.hlog");
        std::fs::write(&file, "#fairbench-member group=g member=1 members=1 size=1\n#fairbench-summary threads=1 start_s=1.0 elapsed_s=1.0 events=0\n").unwrap();
        let mut m = read_member(&file).unwrap();
        let mut levels: BTreeMap<usize, Level> = [(1, Level::new(std::slice::from_ref(&m), 1))].into_iter().collect();
        std::fs::write(&file, "#fairbench-member group=g member=1 members=1 size=1\n#fairbench-summary threads=1 start_s=1.0 elapsed_s=2.0 events=0\n").unwrap();
        let e = add_member(&mut m, &mut levels).expect_err("an error").to_string();
        assert!(e.contains("m.hlog: the file changed while it was being merged"), "{e}");
    }
}
