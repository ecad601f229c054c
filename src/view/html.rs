//! `fairbench report`: stored runs as one self-contained HTML page. The
//! charts are inline SVG (chart.rs), the style and the hover script are
//! inline, so the file opens offline and can be mailed or attached as is.
//!
//! Order of the page: what the audit found, the runs at a glance, the
//! scaling curve, latency distributions, each level's time series, the
//! workload's own figures, environment and configuration differences, and
//! the command lines that reproduce the runs.

use crate::live::chart::{esc, num, Band, BandKind, Chart, Scale, Series};
use crate::model::record::{Finding, IntervalRec, LevelRec, Repeated, RunRecord};
use crate::stats::significance::{median, spread};
use hdrhistogram::Histogram;
use std::fmt::Write;

/// Most points a time-series line gets: beyond it intervals are merged into
/// windows (see [`downsample`]).
pub const MAX_POINTS: usize = 720;

/// A stored run with each level's latency histogram (same order as its levels).
pub struct ReportRun {
    pub rec: RunRecord,
    pub hists: Vec<Option<Histogram<u64>>>,
    /// The command line that runs it again, as the command line spells it
    /// (given by the command that builds the report: the page names no flag).
    pub command: String,
}

/// How a stored run is written as the command line that runs it again.
pub type Reproduce = fn(&RunRecord) -> String;

pub struct Report {
    pub html: String,
    /// Every chart of the page, for `--charts`.
    pub charts: Vec<Chart>,
}

/// One point of a level's time series: a window of one or more intervals.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Seconds since the level started, at the window's end.
    pub t: f64,
    /// The window's lowest throughput and highest latency, error rate and
    /// CPU: merging intervals must not smooth a stall or a spike away.
    pub tps: f64,
    pub qps: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub errors_s: f64,
    pub reconnects_s: f64,
    pub cpu_cores: f64,
}

/// At most `max` points for `ivs`, each window keeping its minimum
/// throughput and maximum latency (a one-second stall in a 24-hour run
/// still shows as a drop to zero).
pub fn downsample(ivs: &[IntervalRec], max: usize) -> Vec<Point> {
    let w = ivs.len().div_ceil(max.max(1)).max(1);
    ivs.chunks(w)
        .map(|c| {
            let rates = |f: fn(&IntervalRec) -> f64| c.iter().map(move |i| f(i) / i.secs.max(1e-9));
            let min = |f: fn(&IntervalRec) -> f64| rates(f).fold(f64::INFINITY, f64::min);
            let max = |f: fn(&IntervalRec) -> f64| rates(f).fold(0.0, f64::max);
            Point {
                t: c.last().map(|i| i.t).unwrap_or(0.0),
                tps: min(|i| i.events as f64),
                qps: min(|i| (i.reads + i.writes + i.other) as f64),
                p95_ms: c.iter().map(|i| i.p95_ms).fold(0.0, f64::max),
                p99_ms: c.iter().map(|i| i.p99_ms).fold(0.0, f64::max),
                errors_s: max(|i| i.errors as f64),
                reconnects_s: max(|i| i.reconnects as f64),
                cpu_cores: max(|i| i.cpu_s),
            }
        })
        .collect()
}

/// How a run is named in legends: its id and tag, or its engine.
fn run_name(r: &RunRecord) -> String {
    if r.tag.is_empty() {
        format!("#{} {}", r.id, r.engine)
    } else {
        format!("#{} {}", r.id, r.tag)
    }
}

fn series(name: String, points: Vec<(f64, f64)>, dashed: bool) -> Series {
    Series { name, points, dashed, errors: Vec::new() }
}

/// One metric against threads: each level's median over its repetitions,
/// with the median's 95% interval as an error bar where it has several.
fn scaling_series(name: String, levels: &[Repeated], metric: fn(&Repeated) -> &[f64], dashed: bool) -> Series {
    let mut s = series(name, levels.iter().map(|l| (l.threads as f64, median(metric(l)))).collect(), dashed);
    s.errors = levels.iter().filter_map(|l| spread(metric(l)).ci.map(|(lo, hi)| (l.threads as f64, lo, hi))).collect();
    s
}

/// TPS, and p95/p99 latency, against threads: one line per run.
fn scaling_charts(runs: &[ReportRun]) -> Vec<Chart> {
    let swept = runs.iter().any(|r| r.rec.levels.len() > 1) || runs.len() > 1;
    if !swept {
        return Vec::new();
    }
    let tps = runs.iter().map(|r| scaling_series(run_name(&r.rec), &r.rec.repeated(), |l| &l.tps, false)).collect();
    let mut lat = Vec::new();
    for r in runs {
        let levels = r.rec.repeated();
        lat.push(scaling_series(format!("{} p95", run_name(&r.rec)), &levels, |l| &l.p95_ms, false));
        lat.push(scaling_series(format!("{} p99", run_name(&r.rec)), &levels, |l| &l.p99_ms, true));
    }
    let chart = |id: &str, title: &str, y: &str, series: Vec<Series>| Chart {
        id: id.into(),
        title: title.into(),
        x_label: "threads".into(),
        y_label: y.into(),
        x_scale: Scale::Log2,
        series,
        bands: vec![],
        markers: true,
        x_names: vec![],
    };
    vec![chart("scaling-tps", "Throughput against threads", "transactions/s", tps), chart("scaling-latency", "Latency against threads", "ms", lat)]
}

/// Points of an HDR percentile plot on the nines axis, in milliseconds.
fn nines_points(h: &Histogram<u64>) -> Vec<(f64, f64)> {
    if h.is_empty() {
        return Vec::new();
    }
    // Past log10(count) nines a percentile is the maximum: stop there.
    let top = (h.len() as f64).log10().clamp(1.0, 6.0);
    let steps = (top * 20.0).ceil() as usize;
    (0..=steps)
        .map(|i| {
            let x = top * i as f64 / steps as f64;
            let q = 1.0 - 10f64.powf(-x);
            (x, h.value_at_quantile(q) as f64 / 1000.0)
        })
        .collect()
}

/// Per run, one line per level; when comparing, also per thread count one
/// chart with a line per run.
fn hdr_charts(runs: &[ReportRun]) -> Vec<Chart> {
    let chart = |id: String, title: String, series: Vec<Series>| Chart {
        id,
        title,
        x_label: "percentile".into(),
        y_label: "latency, ms".into(),
        x_scale: Scale::Nines,
        series,
        bands: vec![],
        markers: false,
        x_names: vec![],
    };
    let mut out = Vec::new();
    for r in runs {
        let s: Vec<Series> = r.rec.levels.iter().zip(&r.hists).filter_map(|(l, h)| Some(series(l.at(), nines_points(h.as_ref()?), false))).collect();
        if !s.is_empty() {
            out.push(chart(format!("hdr-run{}", r.rec.id), format!("Latency distribution, run {}", run_name(&r.rec)), s));
        }
    }
    if runs.len() > 1 {
        for k in crate::model::record::LevelKey::of(runs.iter().flat_map(|r| r.rec.levels.iter().map(|l| l.key()))) {
            let s: Vec<Series> = runs
                .iter()
                .filter_map(|r| {
                    let i = r.rec.levels.iter().position(|l| l.key() == k)?;
                    Some(series(run_name(&r.rec), nines_points(r.hists.get(i)?.as_ref()?), false))
                })
                .collect();
            if s.len() > 1 {
                let id = match &k.step {
                    Some(s) => format!("hdr-step-{}", s.replace('.', "_")),
                    None => format!("hdr-threads{}", k.threads),
                };
                out.push(chart(id, format!("Latency distribution at {}", k.at()), s));
            }
        }
    }
    out
}

/// Warmup, stalls and the longest gap of a level, as shaded spans.
fn level_bands(l: &LevelRec) -> Vec<Band> {
    let mut b = Vec::new();
    let warm: Vec<&IntervalRec> = l.intervals.iter().filter(|i| i.warmup).collect();
    if let (Some(f), Some(t)) = (warm.first(), warm.last()) {
        b.push(Band { from: f.t - f.secs, to: t.t, kind: BandKind::Warmup });
    }
    if let Some((_, spans)) = crate::audit::stall_spans(l) {
        b.extend(spans.into_iter().map(|(from, to, _)| Band { from, to, kind: BandKind::Stall }));
    }
    // The gap is timed from the end of warmup; the charts from the start.
    let warm_s = warm.last().map(|i| i.t).unwrap_or(0.0);
    if let Some(g) = outage_band(l) {
        b.push(Band { from: warm_s + g.from_s, to: warm_s + g.to_s, kind: BandKind::Gap });
    }
    b
}

/// The level's longest gap without a completed event or write, when worth
/// shading (as the audit's `outage` finding: 1 s and ten times the p99).
fn outage_band(l: &LevelRec) -> Option<&crate::stats::gaps::GapSpan> {
    let o = l.outage.as_ref()?;
    [o.all.as_ref(), o.write.as_ref()].into_iter().flatten().filter(|g| crate::stats::gaps::remarkable(g.secs, l.p99_ms)).max_by(|a, b| a.secs.total_cmp(&b.secs))
}

/// The charts a run's family draws of the whole run (its levels one after
/// the other), each level a series of its own.
fn timeline_charts(runs: &[ReportRun]) -> Vec<Chart> {
    let mut out = Vec::new();
    for r in runs {
        let Some(family) = crate::workload::family::find(&r.rec.workload) else { continue };
        for (n, t) in family.timeline(&r.rec.workload).into_iter().enumerate() {
            let mut offset = 0.0;
            let mut series_of = Vec::new();
            for l in &r.rec.levels {
                let names: Vec<String> = l.kinds().iter().map(|k| k.get("name").and_then(|v| v.as_str()).unwrap_or("").to_string()).collect();
                let idx: Vec<usize> = names.iter().enumerate().filter(|(_, n)| t.kinds.contains(&n.as_str())).map(|(i, _)| i).collect();
                let points: Vec<(f64, f64)> = l
                    .intervals
                    .iter()
                    .filter(|iv| !iv.kinds.is_empty() && iv.secs > 0.0)
                    .map(|iv| (offset + iv.t, idx.iter().map(|&i| iv.kinds.get(i).copied().unwrap_or(0)).sum::<u64>() as f64 / iv.secs * t.per_second))
                    .collect();
                offset += l.intervals.last().map_or(0.0, |iv| iv.t);
                if !idx.is_empty() && !points.is_empty() {
                    series_of.push(series(l.heading(), points, false));
                }
            }
            if series_of.is_empty() {
                continue;
            }
            out.push(Chart {
                id: format!("run{}-timeline-{n}", r.rec.id),
                title: format!("{}, {}", t.title, run_name(&r.rec)),
                x_label: "seconds".into(),
                y_label: t.unit.into(),
                x_scale: Scale::Linear,
                series: series_of,
                bands: vec![],
                markers: false,
                x_names: vec![],
            });
        }
    }
    out
}

/// The time-series charts of one level.
fn level_charts(r: &RunRecord, l: &LevelRec) -> Vec<Chart> {
    let pts = downsample(&l.intervals, MAX_POINTS);
    let line = |name: &str, f: fn(&Point) -> f64, dashed: bool| series(name.into(), pts.iter().map(|p| (p.t, f(p))).collect(), dashed);
    let id = |what: &str| format!("run{}-level{}-{what}", r.id, l.level_no);
    let bands = level_bands(l);
    let cpu_of = if r.transport == "embedded" { "CPU of fairbench (client and embedded engine)" } else { "Client CPU" };
    let chart = |what: &str, title: String, y: &str, series: Vec<Series>| Chart {
        id: id(what),
        title,
        x_label: "seconds".into(),
        y_label: y.into(),
        x_scale: Scale::Linear,
        series,
        bands: bands.clone(),
        markers: false,
        x_names: vec![],
    };
    vec![
        chart("tps", "Transactions per second".into(), "TPS", vec![line("TPS", |p| p.tps, false)]),
        chart("qps", "Queries per second".into(), "QPS", vec![line("QPS", |p| p.qps, false)]),
        chart("latency", "Latency".into(), "ms", vec![line("p95", |p| p.p95_ms, false), line("p99", |p| p.p99_ms, true)]),
        chart("errors", "Errors and reconnects".into(), "per second", vec![line("errors/s", |p| p.errors_s, false), line("reconnects/s", |p| p.reconnects_s, true)]),
        chart("cpu", cpu_of.into(), "cores", vec![line("cores", |p| p.cpu_cores, false)]),
    ]
}

const STYLE: &str = r#"
:root{--ink:#1d2733;--muted:#5b6673;--line:#e3e7ec;--bg:#f5f7fa}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.5 system-ui,-apple-system,'Segoe UI','DejaVu Sans',sans-serif}
main{max-width:1120px;margin:0 auto;padding:28px 20px 60px}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:19px;margin:36px 0 12px;padding-bottom:6px;border-bottom:2px solid var(--line)}
h3{font-size:16px;margin:22px 0 8px}
.sub{color:var(--muted);margin:0 0 18px}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:14px 18px;margin:10px 0}
table{border-collapse:collapse;width:100%;background:#fff;font-size:14px}
th,td{padding:6px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{color:var(--muted);font-weight:600;background:#fafbfc}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:12px}
.grid svg,.charts svg{width:100%;height:auto;border:1px solid var(--line);border-radius:8px;background:#fff}
.finding{border-left:5px solid #4269d0}
.finding.critical{border-left-color:#c62828}.finding.warning{border-left-color:#ef8a18}
.sev{display:inline-block;font-size:12px;font-weight:700;text-transform:uppercase;letter-spacing:.04em;padding:1px 8px;border-radius:10px;color:#fff;background:#4269d0;margin-right:8px}
.critical .sev{background:#c62828}.warning .sev{background:#ef8a18}
.finding ul{margin:6px 0;padding-left:20px;color:var(--muted);font-size:14px}
.advice{font-size:14px}
code,pre{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:13px}
pre{background:#1d2733;color:#e8edf2;padding:12px 14px;border-radius:8px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
details{margin:8px 0}summary{cursor:pointer;color:var(--muted)}
.ok{color:#2e7d32}
table.runs code,td.n{white-space:nowrap}td.tgt{overflow-wrap:anywhere}
.legend-note{color:var(--muted);font-size:13px}
#tip{position:fixed;pointer-events:none;background:rgba(29,39,51,.94);color:#fff;font-size:12px;padding:6px 9px;border-radius:6px;display:none;z-index:9;white-space:nowrap}
footer{color:var(--muted);font-size:13px;margin-top:40px}
"#;

/// Hover values: the nearest point of every line under the pointer.
const SCRIPT: &str = r#"
(function(){
var tip=document.getElementById('tip');
function parse(pl){if(pl._p)return pl._p;var xy=pl.getAttribute('points').trim().split(/\s+/).map(function(s){return s.split(',').map(Number)});var v=(pl.getAttribute('data-v')||'').split(';').map(function(s){return s.split('|')});pl._p={xy:xy,v:v};return pl._p}
document.querySelectorAll('svg.chart').forEach(function(svg){
 var guide=document.createElementNS('http://www.w3.org/2000/svg','line');guide.setAttribute('stroke','#8a95a3');guide.setAttribute('stroke-dasharray','3 3');guide.setAttribute('y1',svg.getAttribute('data-top'));guide.setAttribute('y2',svg.getAttribute('data-bottom'));guide.style.display='none';svg.appendChild(guide);
 svg.addEventListener('mousemove',function(e){
  var m=svg.getScreenCTM();if(!m)return;var pt=svg.createSVGPoint();pt.x=e.clientX;pt.y=e.clientY;var p=pt.matrixTransform(m.inverse());
  var rows=[],xl=null,gx=null;
  svg.querySelectorAll('g.series').forEach(function(g){var pl=g.querySelector('polyline');if(!pl)return;var d=parse(pl);var best=-1,bd=1e9;
   for(var i=0;i<d.xy.length;i++){var dd=Math.abs(d.xy[i][0]-p.x);if(dd<bd){bd=dd;best=i}}
   if(best<0||bd>40)return;xl=d.v[best][0];gx=d.xy[best][0];var c=pl.getAttribute('stroke');
   rows.push('<span style="color:'+c+'">\u25CF</span> '+g.getAttribute('data-name').replace(/[&<>]/g,function(c0){return {'&':'&amp;','<':'&lt;','>':'&gt;'}[c0]})+': <b>'+d.v[best][1]+'</b>')});
  if(!rows.length){tip.style.display='none';guide.style.display='none';return}
  guide.setAttribute('x1',gx);guide.setAttribute('x2',gx);guide.style.display='';
  tip.innerHTML='<div>'+svg.getAttribute('data-xlabel')+' '+xl+'</div>'+rows.join('<br>');tip.style.display='block';tip.style.left=(e.clientX+14)+'px';tip.style.top=(e.clientY+14)+'px'});
 svg.addEventListener('mouseleave',function(){tip.style.display='none';guide.style.display='none'});
});
})();
"#;

/// The page for `runs` (the first is the baseline when comparing).
pub fn build(runs: &[ReportRun], generated_at: &str) -> Report {
    let refs: Vec<&RunRecord> = runs.iter().map(|r| &r.rec).collect();
    let compared = crate::compare::compare(&refs);
    let mut charts = Vec::new();
    let mut o = String::new();
    let title = if runs.len() == 1 { format!("Run {}: {}", runs[0].rec.id, runs[0].rec.label) } else { format!("Comparing {} runs", runs.len()) };
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>fairbench: {}</title><style>{STYLE}</style></head><body><main>",
        esc(&title)
    );
    let _ = write!(o, "<h1>{}</h1><p class=\"sub\">fairbench report · {} · {} run{}</p>", esc(&title), esc(generated_at), runs.len(), if runs.len() == 1 { "" } else { "s" });

    findings_section(&mut o, &compared.findings);
    runs_section(&mut o, runs);
    significance_section(&mut o, &refs);

    if super::steps::any(runs) {
        o.push_str("<h2 id=\"steps\">Steps</h2><p class=\"legend-note\">One chart per step of the sequence, each run's operations per second over it (inserts in batches for the load steps, queries for the query steps).</p><div class=\"grid\">");
        push_charts(&mut o, &mut charts, super::steps::charts(runs, run_name));
        o.push_str("</div>");
    }
    super::capacity::section(&mut o, &mut charts, runs, push_charts);
    // A search's levels are its steps: their curve is the capacity section's.
    let scaling = if super::steps::any(runs) || super::capacity::any(runs) { Vec::new() } else { scaling_charts(runs) };
    if !scaling.is_empty() {
        o.push_str("<h2 id=\"scaling\">Scaling</h2><div class=\"grid\">");
        push_charts(&mut o, &mut charts, scaling);
        o.push_str("</div>");
    }
    hardware_section(&mut o, &mut charts, runs);
    super::server_time::section(&mut o, runs);
    let hdr = hdr_charts(runs);
    if !hdr.is_empty() {
        o.push_str("<h2 id=\"latency\">Latency distributions</h2><p class=\"legend-note\">HDR percentile plots: 90%, 99%, 99.9% ... evenly spaced, so the tail is as visible as the median.</p><div class=\"grid\">");
        push_charts(&mut o, &mut charts, hdr);
        o.push_str("</div>");
    }
    let timelines = timeline_charts(runs);
    if !timelines.is_empty() {
        o.push_str("<h2 id=\"timeline\">The whole run</h2><p class=\"legend-note\">Each level after the one before, per interval, from the counts of each kind of event.</p><div class=\"grid\">");
        push_charts(&mut o, &mut charts, timelines);
        o.push_str("</div>");
    }
    o.push_str("<h2 id=\"timeseries\">Over time</h2><p class=\"legend-note\">Per level, per second. Grey: warmup; red: stall (throughput below 10% of the level's median for 2 s or more); purple: the longest gap without a completed event or write, when 1 s or more. Long runs are drawn in windows keeping each window's lowest throughput and highest latency.</p>");
    for r in runs {
        for l in &r.rec.levels {
            let _ = write!(o, "<h3>{}, {}</h3><div class=\"grid\">", esc(&run_name(&r.rec)), esc(&l.heading()));
            push_charts(&mut o, &mut charts, level_charts(&r.rec, l));
            o.push_str("</div>");
        }
    }
    extras_section(&mut o, runs);
    environment_section(&mut o, runs, &compared.diffs);
    reproduce_section(&mut o, runs);
    let _ = write!(o, "<footer>Made by fairbench {} from its results store. Self-contained: no network needed to view it.</footer>", crate::VERSION);
    let _ = writeln!(o, "</main><div id=\"tip\"></div><script>{SCRIPT}</script></body></html>");
    Report { html: o, charts }
}

/// What the hardware did per transaction, per run and level (a table, each
/// figure with its ratio to the first run's), and the server's and client's
/// CPU per transaction against threads.
fn hardware_section(o: &mut String, charts: &mut Vec<Chart>, runs: &[ReportRun]) {
    use crate::model::efficiency::{of_run, with_ratio, Efficiency, FIGURES};
    let all: Vec<(&RunRecord, Vec<Efficiency>)> = runs.iter().map(|r| (&r.rec, of_run(&r.rec).into_iter().filter(|e| e.secs > 0.0).collect::<Vec<_>>())).filter(|(_, e)| !e.is_empty()).collect();
    if all.is_empty() {
        return;
    }
    o.push_str("<h2 id=\"hardware\">Hardware per transaction</h2><p class=\"legend-note\">What the server, the client and the host did per transaction over each level's measured time; in brackets the ratio to the first run's figure at the same threads. A dash: the figure could not be had.</p><table class=\"hardware\"><tr><th>run</th><th class=n>threads</th><th class=n>TPS</th>");
    for f in FIGURES {
        let _ = write!(o, "<th class=n>{}</th>", esc(f.long));
    }
    o.push_str("</tr>");
    let base = &all[0].1;
    for (r, levels) in &all {
        for e in levels {
            let b = base.iter().find(|b| b.threads == e.threads);
            let _ = write!(o, "<tr data-run=\"{}\" data-threads=\"{}\"><td>{}</td><td class=n>{}</td><td class=n>{:.1}</td>", r.id, e.threads, r.id, e.threads, e.tps);
            for f in FIGURES {
                let _ = write!(o, "<td class=n>{}</td>", with_ratio((f.of)(e), b.and_then(f.of), r.id == all[0].0.id));
            }
            o.push_str("</tr>");
        }
    }
    o.push_str("</table><div class=\"grid\">");
    let (mut cpu, mut host) = (Vec::new(), Vec::new());
    for (r, levels) in &all {
        let points = |f: fn(&Efficiency) -> Option<f64>| levels.iter().filter_map(|e| Some((e.threads as f64, f(e)?))).collect::<Vec<_>>();
        let server = points(|e| e.server_cpu_us_per_trx);
        if !server.is_empty() {
            cpu.push(self::series(format!("{} server", run_name(r)), server, false));
        }
        cpu.push(self::series(format!("{} client", run_name(r)), points(|e| e.client_cpu_us_per_trx), true));
        host.push(self::series(format!("{} host", run_name(r)), points(|e| e.host_cpu_us_per_trx), false));
    }
    let chart = |id: &str, title: &str, series: Vec<Series>| Chart {
        id: id.into(),
        title: title.into(),
        x_label: "threads".into(),
        y_label: "CPU µs per transaction".into(),
        x_scale: Scale::Log2,
        series,
        bands: vec![],
        markers: true,
        x_names: vec![],
    };
    let mut cs = vec![chart("hardware-cpu", "Server and client CPU per transaction", cpu)];
    if host.iter().any(|s| !s.points.is_empty()) {
        cs.push(chart("hardware-host", "Host CPU per transaction (all processes)", host));
    }
    push_charts(o, charts, cs);
    o.push_str("</div>");
}

/// Each run against the first, per level, when any measured a level more
/// than once: the verdicts `compare` prints.
fn significance_section(o: &mut String, rs: &[&RunRecord]) {
    use crate::compare::gate::{lines, Metric};
    let series = rs.iter().any(|r| r.repeated().iter().any(|l| l.tps.len() >= 2));
    if rs.len() < 2 || !series {
        return;
    }
    o.push_str("<h2 id=\"significance\">Is the difference real?</h2><p class=\"legend-note\">Each run against the first, per level: the ratio of medians with its 95% confidence interval (Welch's t-test on the logarithm).</p><table><tr><th>run</th><th>clients</th><th>verdict</th><th>repetitions</th></tr>");
    for r in &rs[1..] {
        for l in lines(rs[0], r, &[Metric::Throughput, Metric::P99], None) {
            let significant = l.test.as_ref().is_some_and(|t| t.significant());
            let _ = write!(o, "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{} vs {}</td></tr>", if significant { "significant" } else { "" }, r.id, l.threads, esc(&l.words), l.n.0, l.n.1);
        }
    }
    o.push_str("</table>");
}

fn push_charts(o: &mut String, all: &mut Vec<Chart>, cs: Vec<Chart>) {
    for c in cs {
        let svg = c.svg();
        // The x axis's name for the hover box.
        let svg = svg.replacen("<svg ", &format!("<svg data-xlabel=\"{}\" ", esc(&c.x_label)), 1);
        o.push_str(&svg);
        all.push(c);
    }
}

fn findings_section(o: &mut String, fs: &[Finding]) {
    o.push_str("<h2 id=\"findings\">Audit findings</h2>");
    if fs.is_empty() {
        o.push_str("<div class=\"card\"><span class=\"ok\">✔</span> No findings: nothing unfair or suspicious was seen in these runs.</div>");
        return;
    }
    let mut fs: Vec<&Finding> = fs.iter().collect();
    fs.sort_by_key(|f| std::cmp::Reverse(f.severity));
    for f in fs {
        let sev = f.severity.name();
        let _ = write!(o, "<div class=\"card finding {sev}\" data-rule=\"{}\"><span class=\"sev\">{sev}</span><b>{}</b>", esc(&f.rule), esc(&f.message));
        if !f.evidence.is_empty() {
            o.push_str("<ul>");
            for e in &f.evidence {
                let _ = write!(o, "<li>{}</li>", esc(e));
            }
            o.push_str("</ul>");
        }
        let _ = write!(o, "<div class=\"advice\"><b>What to do:</b> {}</div></div>", esc(&f.advice));
    }
}

fn runs_section(o: &mut String, runs: &[ReportRun]) {
    o.push_str("<h2 id=\"runs\">Runs</h2><table class=\"runs\"><tr><th>run</th><th>label</th><th>target</th><th>status</th><th class=n>threads</th><th class=n>TPS</th><th class=n>QPS</th><th class=n>p95 ms</th><th class=n>p99 ms</th><th class=n>CPU cores</th></tr>");
    for r in runs {
        let rec = &r.rec;
        for (i, l) in rec.levels.iter().enumerate() {
            let head = if i == 0 {
                format!(
                    "<td rowspan=\"{n}\"><b>{}</b>{}</td><td rowspan=\"{n}\"><code>{}</code></td><td class=\"tgt\" rowspan=\"{n}\">{} ({})</td><td rowspan=\"{n}\">{}</td>",
                    rec.id,
                    if rec.tag.is_empty() { String::new() } else { format!("<br><span class=\"legend-note\">{}</span>", esc(&rec.tag)) },
                    esc(&rec.label),
                    esc(&rec.target),
                    esc(&rec.engine),
                    esc(&rec.status_text()),
                    n = rec.levels.len()
                )
            } else {
                String::new()
            };
            let _ = write!(
                o,
                "<tr>{head}<td class=n>{}</td><td class=n>{:.1}</td><td class=n>{:.1}</td><td class=n>{:.2}</td><td class=n>{:.2}</td><td class=n>{:.2}</td></tr>",
                l.threads, l.tps, l.qps, l.p95_ms, l.p99_ms, l.cpu_cores
            );
        }
        if rec.levels.is_empty() {
            let _ = write!(
                o,
                "<tr><td><b>{}</b></td><td><code>{}</code></td><td>{}</td><td>{}</td><td colspan=6>no level measured</td></tr>",
                rec.id,
                esc(&rec.label),
                esc(&rec.target),
                esc(&rec.status_text())
            );
        }
    }
    o.push_str("</table>");
}

/// What the workload adds: its family's figures and the per-kind counts
/// and latencies the stored summary holds.
fn extras_section(o: &mut String, runs: &[ReportRun]) {
    let mut body = kinds_charts(runs);
    for r in runs {
        let family = crate::workload::family::find(&r.rec.workload);
        for l in &r.rec.levels {
            let mut figures = l.figures();
            figures.extend(family.map(|f| f.report_figures(l)).unwrap_or_default());
            let kinds = l.kinds();
            if figures.is_empty() && kinds.is_empty() {
                continue;
            }
            let _ = write!(body, "<h3>{}, {}</h3>", esc(&l.heading()), esc(&run_name(&r.rec)));
            if !figures.is_empty() {
                body.push_str("<table class=\"extras\">");
                for (k, v) in &figures {
                    let _ = write!(body, "<tr><th>{}</th><td class=n>{}</td></tr>", esc(k), esc(v));
                }
                body.push_str("</table>");
            }
            if !kinds.is_empty() {
                body.push_str("<table class=\"kinds\"><tr><th>transaction</th><th class=n>count</th><th class=n>per second</th><th class=n>rolled back</th><th class=n>avg ms</th><th class=n>p95 ms</th><th class=n>p99 ms</th><th class=n>max ms</th></tr>");
                let secs = l.elapsed_s.max(1e-9);
                for k in kinds {
                    let n = |f: &str| k.get(f).and_then(|v| v.as_f64()).unwrap_or(0.0);
                    let lat = |f: &str| k.get("latency_ms").and_then(|v| v.get(f)).and_then(|v| v.as_f64()).unwrap_or(0.0);
                    let _ = write!(
                        body,
                        "<tr><td>{}</td><td class=n>{}</td><td class=n>{:.1}</td><td class=n>{}</td><td class=n>{:.2}</td><td class=n>{:.2}</td><td class=n>{:.2}</td><td class=n>{:.2}</td></tr>",
                        esc(k.get("name").and_then(|v| v.as_str()).unwrap_or("?")),
                        n("events"),
                        n("events") / secs,
                        n("rollbacks"),
                        lat("avg"),
                        lat("p95"),
                        lat("p99"),
                        lat("max")
                    );
                }
                body.push_str("</table>");
            }
        }
    }
    if !body.is_empty() {
        o.push_str("<h2 id=\"workload\">Workload figures</h2>");
        o.push_str(&body);
    }
}

/// Per level (by its place in each run), a bar per run for every kind of
/// event the runs have (TPC-H's queries, TPC-C's transactions): their mean
/// latencies side by side.
fn kinds_charts(runs: &[ReportRun]) -> String {
    let mut out = String::new();
    let levels = runs.iter().map(|r| r.rec.levels.len()).max().unwrap_or(0);
    for i in 0..levels {
        let kinds_of = |r: &ReportRun| -> Vec<(String, f64, f64)> {
            let Some(l) = r.rec.levels.get(i) else { return Vec::new() };
            l.kinds()
                .iter()
                .map(|k| {
                    let name = k.get("name").and_then(|v| v.as_str()).unwrap_or("?").to_string();
                    let events = k.get("events").and_then(|v| v.as_f64()).unwrap_or(0.0);
                    let avg = k.get("latency_ms").and_then(|v| v.get("avg")).and_then(|v| v.as_f64()).unwrap_or(0.0);
                    (name, events, avg)
                })
                .collect()
        };
        let per_run: Vec<Vec<(String, f64, f64)>> = runs.iter().map(kinds_of).collect();
        let mut rows: Vec<String> = Vec::new();
        for (name, events, _) in per_run.iter().flatten() {
            if *events > 0.0 && !rows.contains(name) {
                rows.push(name.clone());
            }
        }
        if rows.len() < 2 {
            continue;
        }
        let values: Vec<Vec<Option<f64>>> = rows.iter().map(|name| per_run.iter().map(|ks| ks.iter().find(|(n, e, _)| n == name && *e > 0.0).map(|(_, _, avg)| *avg)).collect()).collect();
        let names: Vec<String> = runs.iter().map(|r| run_name(&r.rec)).collect();
        let heading = runs.iter().find_map(|r| r.rec.levels.get(i)).map(|l| l.heading()).unwrap_or_default();
        out.push_str(&crate::live::bars::svg(&format!("kinds-{i}"), &format!("Mean latency by kind, {heading}"), "ms", &rows, &names, &values));
    }
    out
}

fn environment_section(o: &mut String, runs: &[ReportRun], diffs: &[crate::compare::Diff]) {
    o.push_str("<h2 id=\"environment\">Environment</h2>");
    o.push_str("<table><tr><th>run</th><th>server</th><th>durability</th><th>memory fit</th><th>client host</th></tr>");
    for r in runs {
        let rec = &r.rec;
        match &rec.env_start {
            Some(e) => {
                let d = crate::env::durability::durability(&e.server);
                let (fit, why) = crate::audit::memory_fit(&e.server);
                let _ = write!(
                    o,
                    "<tr><td><b>{}</b></td><td>{} {}{}</td><td>{}<br><span class=\"legend-note\">{}</span></td><td>{}<br><span class=\"legend-note\">{}</span></td><td>{}<br><span class=\"legend-note\">{} CPUs ({} available), {} GiB, kernel {}</span></td></tr>",
                    rec.id,
                    esc(&e.server.engine),
                    esc(&e.server.version),
                    if e.server.local { " (local)" } else { "" },
                    esc(d.class.name()),
                    esc(&d.evidence.join(", ")),
                    esc(fit.name()),
                    esc(&why),
                    esc(&e.host.hostname),
                    e.host.cpus,
                    e.host.cpus_available,
                    num(e.host.mem_total_bytes as f64 / (1u64 << 30) as f64),
                    esc(&e.host.kernel)
                );
            }
            None => {
                let _ = write!(o, "<tr><td><b>{}</b></td><td colspan=4>no environment snapshot stored</td></tr>", rec.id);
            }
        }
    }
    o.push_str("</table>");
    if runs.len() > 1 {
        o.push_str("<h3>Configuration differences</h3>");
        if diffs.is_empty() {
            o.push_str("<div class=\"card\">No differences recorded.</div>");
        } else {
            o.push_str("<table class=\"diffs\"><tr><th>group</th><th>setting</th>");
            for r in runs {
                let _ = write!(o, "<th>{}</th>", esc(&run_name(&r.rec)));
            }
            o.push_str("</tr>");
            let mut group = "";
            for d in diffs {
                let g = if d.group != group { d.group } else { "" };
                group = d.group;
                let _ = write!(o, "<tr><td><b>{}</b></td><td><code>{}</code></td>", esc(g), esc(&d.name));
                for v in &d.values {
                    let _ = write!(o, "<td><code>{}</code></td>", esc(v));
                }
                o.push_str("</tr>");
            }
            o.push_str("</table>");
        }
    }
    for r in runs {
        let Some(e) = &r.rec.env_start else { continue };
        let _ = write!(o, "<details><summary>All server settings of run {} ({} values)</summary><table class=\"vars\">", r.rec.id, e.server.variables.len());
        for (k, v) in &e.server.variables {
            let _ = write!(o, "<tr><td><code>{}</code></td><td><code>{}</code></td></tr>", esc(k), esc(v));
        }
        o.push_str("</table></details>");
    }
}

fn reproduce_section(o: &mut String, runs: &[ReportRun]) {
    o.push_str("<h2 id=\"reproduce\">Reproduce</h2>");
    for r in runs {
        let rec = &r.rec;
        let _ = write!(
            o,
            "<div class=\"card\"><b>Run {}</b> · label <code>{}</code> · {} · fairbench {} on {}<pre>{}</pre></div>",
            rec.id,
            esc(&rec.label),
            esc(&rec.started_at),
            esc(&rec.tool_version),
            esc(&rec.hostname),
            esc(&r.command)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(t: f64, events: u64, p99: f64) -> IntervalRec {
        IntervalRec { seq: t as usize, t, secs: 1.0, events, p95_ms: p99 / 2.0, p99_ms: p99, ..Default::default() }
    }

    #[test]
    fn downsampling_keeps_a_one_second_stall_and_spike() {
        let mut ivs: Vec<IntervalRec> = (1..=86_400).map(|t| iv(t as f64, 1000, 5.0)).collect();
        ivs[50_000].events = 0;
        ivs[60_000].p99_ms = 900.0;
        let pts = downsample(&ivs, MAX_POINTS);
        assert!(pts.len() <= MAX_POINTS, "{}", pts.len());
        assert_eq!(pts.iter().map(|p| p.tps).fold(f64::INFINITY, f64::min), 0.0);
        assert_eq!(pts.iter().map(|p| p.p99_ms).fold(0.0, f64::max), 900.0);
        assert_eq!(pts.last().unwrap().t, 86_400.0);
    }

    #[test]
    fn short_levels_are_not_downsampled() {
        let ivs: Vec<IntervalRec> = (1..=10).map(|t| iv(t as f64, 10 * t, 1.0)).collect();
        let pts = downsample(&ivs, MAX_POINTS);
        assert_eq!(pts.len(), 10);
        assert_eq!(pts[3].tps, 40.0);
    }
}
