//! A run watched as it goes: `--live ADDR` serves a page drawing the
//! per-interval time series (server-sent events), `--metrics-addr ADDR`
//! an OpenMetrics endpoint for Prometheus and Grafana.
//!
//! The reporter thread feeds [`LiveSink`] once per interval, like every
//! other sink: it updates the metrics and appends one point under a mutex
//! that HTTP threads hold only to copy points out. No client task ever
//! touches any of it.

use super::chart::esc;
use super::http::{Reply, Request};
use crate::model::efficiency::{of_window, Efficiency, Whose, Window};
use crate::model::{Interval, LevelResult, RunInfo, Sink};
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::{Registry, Unit};
use serde_json::json;
use std::borrow::Cow;
use std::io::Write;
use std::net::TcpStream;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

type FGauge = Gauge<f64, AtomicU64>;
/// Gauges by a label set (one with no labels beside the run's).
type Gauges = Family<Vec<(String, String)>, FGauge>;

struct Metrics {
    registry: Registry,
    transactions: Counter,
    queries: Counter,
    errors: Counter,
    reconnects: Counter,
    tps: FGauge,
    qps: FGauge,
    latency: Family<Vec<(String, String)>, FGauge>,
    cpu: FGauge,
    threads: Gauge,
    intervals: Counter,
    /// Hardware per transaction over the last sample, by figure; a figure
    /// that could not be had has no sample.
    hardware: Vec<(&'static str, Gauges)>,
}

/// The hardware gauges: name, help, and the figure in base units (seconds, bytes).
type HardwareGauge = (&'static str, &'static str, fn(&Efficiency) -> Option<f64>);
const HARDWARE: &[HardwareGauge] = &[
    ("server_cpu_seconds_per_transaction", "The server processes' CPU per transaction over the last sample", |e| e.server_cpu_us_per_trx.map(|v| v / 1e6)),
    ("client_cpu_seconds_per_transaction", "fairbench's CPU per transaction over the last sample", |e| e.client_cpu_us_per_trx.map(|v| v / 1e6)),
    ("host_cpu_seconds_per_transaction", "The server host's busy CPU per transaction over the last sample", |e| e.host_cpu_us_per_trx.map(|v| v / 1e6)),
    ("server_context_switches_per_transaction", "The server's context switches per transaction over the last sample", Efficiency::server_cs_per_trx),
    ("host_context_switches_per_transaction", "The server host's context switches per transaction over the last sample", |e| e.host_cs_per_trx),
    ("disk_read_bytes_per_transaction", "Bytes read from the data's disk per transaction over the last sample", |e| e.read_kb_per_trx.map(|v| v * 1024.0)),
    ("disk_written_bytes_per_transaction", "Bytes written to the data's disk per transaction over the last sample", |e| e.write_kb_per_trx.map(|v| v * 1024.0)),
    ("fsyncs_per_transaction", "The server's fsyncs per transaction over the last sample", |e| e.fsyncs_per_commit),
];

impl Metrics {
    fn new(info: &RunInfo) -> Metrics {
        let labels = [(Cow::Borrowed("label"), Cow::Owned(info.label.clone()))];
        let mut registry = Registry::with_prefix_and_labels("fairbench", labels.into_iter());
        let m = Metrics {
            registry: Registry::default(),
            transactions: Counter::default(),
            queries: Counter::default(),
            errors: Counter::default(),
            reconnects: Counter::default(),
            tps: FGauge::default(),
            qps: FGauge::default(),
            latency: Family::default(),
            cpu: FGauge::default(),
            threads: Gauge::default(),
            intervals: Counter::default(),
            hardware: HARDWARE.iter().map(|(name, _, _)| (*name, Family::default())).collect(),
        };
        registry.register(
            "run",
            "The run being measured",
            Info::new(vec![("workload".to_string(), info.workload.clone()), ("engine".to_string(), info.engine.clone()), ("transport".to_string(), info.transport.clone())]),
        );
        registry.register("transactions", "Transactions (events) completed", m.transactions.clone());
        registry.register("queries", "Queries run", m.queries.clone());
        registry.register("errors", "Errors ignored (the event was retried)", m.errors.clone());
        registry.register("reconnects", "Connections re-established", m.reconnects.clone());
        registry.register("intervals", "Report intervals measured", m.intervals.clone());
        registry.register("tps", "Transactions per second over the last interval", m.tps.clone());
        registry.register("qps", "Queries per second over the last interval", m.qps.clone());
        registry.register_with_unit("latency", "Latency percentile over the last interval", Unit::Seconds, m.latency.clone());
        registry.register("client_cpu_cores", "fairbench's CPU over the last interval, in cores (with an embedded engine: client and engine)", m.cpu.clone());
        registry.register("threads", "Clients of the current load level", m.threads.clone());
        for ((name, help, _), (_, family)) in HARDWARE.iter().zip(&m.hardware) {
            registry.register(*name, *help, family.clone());
        }
        Metrics { registry, ..m }
    }

    fn observe(&self, iv: &Interval) {
        let w = &iv.w;
        let secs = iv.secs.max(1e-9);
        self.transactions.inc_by(w.events);
        self.queries.inc_by(w.reads + w.writes + w.other);
        self.errors.inc_by(w.errors);
        self.reconnects.inc_by(w.reconnects);
        self.intervals.inc();
        self.tps.set(w.events as f64 / secs);
        self.qps.set((w.reads + w.writes + w.other) as f64 / secs);
        // A gauge per percentile: `quantile` is a summary's label, which
        // Prometheus' checker refuses on a gauge.
        for (q, p) in [("50", 50.0), ("95", 95.0), ("99", 99.0)] {
            self.latency.get_or_create(&vec![("percentile".to_string(), q.to_string())]).set(w.pct_ms(p) / 1000.0);
        }
        self.cpu.set((iv.cpu_user_s + iv.cpu_sys_s) / secs);
        self.threads.set(iv.threads as i64);
    }
}

#[derive(Default)]
struct Points {
    /// One JSON object per interval, in order.
    json: Vec<String>,
    level: usize,
    done: bool,
}

/// What the sink publishes and the HTTP side reads.
pub struct Live {
    info: RunInfo,
    metrics: Metrics,
    points: Mutex<Points>,
    arrived: Condvar,
}

impl Live {
    pub fn new(info: &RunInfo) -> Arc<Live> {
        Arc::new(Live { info: info.clone(), metrics: Metrics::new(info), points: Mutex::new(Points::default()), arrived: Condvar::new() })
    }

    pub fn sink(self: &Arc<Self>) -> Box<dyn Sink> {
        Box::new(LiveSink(self.clone()))
    }

    /// A sample of the server's and host's counters: its figures per
    /// transaction, the transactions in its window taken at the last
    /// interval's rate.
    pub fn observe_sample(&self, server: &crate::env::Server, row: &crate::env::SampleRow) {
        let (tps, qps) = (self.metrics.tps.get(), self.metrics.qps.get());
        if row.seq == 0 || row.dt <= 0.0 || tps <= 0.0 {
            return;
        }
        let w = Window { secs: row.dt, deltas: &row.sample.deltas, disk: &row.sample.disk, statements: &row.sample.statements, transactions: tps * row.dt, queries: qps * row.dt };
        let e = of_window(&w, &Whose::of(Some(server)));
        for ((_, _, figure), (_, family)) in HARDWARE.iter().zip(&self.metrics.hardware) {
            match figure(&e) {
                Some(v) => {
                    family.get_or_create(&vec![]).set(v);
                }
                None => {
                    family.clear();
                }
            }
        }
    }

    /// The OpenMetrics text.
    pub fn metrics_text(&self) -> String {
        let mut s = String::new();
        let _ = encode(&mut s, &self.metrics.registry);
        s
    }

    pub fn handle(self: &Arc<Self>, req: &Request) -> Reply {
        match req.path.as_str() {
            "/" => Reply::html(self.page()),
            "/events" => {
                let from = req.param("from").and_then(|v| v.parse().ok()).unwrap_or(0);
                let me = self.clone();
                Reply::Stream(Box::new(move |s| me.stream(s, from)))
            }
            "/metrics" => self.metrics_reply(req),
            _ => Reply::not_found(),
        }
    }

    /// The metrics endpoint alone (`--metrics-addr`).
    pub fn handle_metrics(&self, req: &Request) -> Reply {
        match req.path.as_str() {
            "/" | "/metrics" => self.metrics_reply(req),
            _ => Reply::not_found(),
        }
    }

    /// OpenMetrics to a scraper that asks for it (Prometheus does), the
    /// classic text format 0.0.4 to everything else (promtool, curl).
    fn metrics_reply(&self, req: &Request) -> Reply {
        if req.accept.contains("application/openmetrics-text") {
            Reply::Page { status: 200, content_type: "application/openmetrics-text; version=1.0.0; charset=utf-8", body: self.metrics_text().into_bytes() }
        } else {
            Reply::Page { status: 200, content_type: "text/plain; version=0.0.4; charset=utf-8", body: classic(&self.metrics_text()).into_bytes() }
        }
    }

    fn publish(&self, iv: &Interval) {
        self.metrics.observe(iv);
        let w = &iv.w;
        let secs = iv.secs.max(1e-9);
        let Ok(mut p) = self.points.lock() else { return };
        let point = json!({
            "level": p.level, "threads": iv.threads, "t": iv.t, "warmup": iv.warmup,
            "tps": w.events as f64 / secs, "qps": (w.reads + w.writes + w.other) as f64 / secs,
            "p95": w.pct_ms(95.0), "p99": w.pct_ms(99.0),
            "errors": w.errors as f64 / secs, "reconnects": w.reconnects as f64 / secs,
            "cpu": (iv.cpu_user_s + iv.cpu_sys_s) / secs,
        });
        p.json.push(point.to_string());
        self.arrived.notify_all();
    }

    /// Sends the points from `from` on, then each new one as it arrives,
    /// until the run ends or the viewer goes away.
    fn stream(&self, s: &mut TcpStream, mut from: usize) {
        loop {
            let (batch, done) = {
                let Ok(mut p) = self.points.lock() else { return };
                while p.json.len() <= from && !p.done {
                    let (g, timeout) = match self.arrived.wait_timeout(p, Duration::from_secs(15)) {
                        Ok(r) => r,
                        Err(_) => return,
                    };
                    p = g;
                    if timeout.timed_out() {
                        break;
                    }
                }
                (p.json.get(from..).map(|v| v.to_vec()).unwrap_or_default(), p.done)
            };
            let mut out = String::new();
            for j in &batch {
                out.push_str("data: ");
                out.push_str(j);
                out.push_str("\n\n");
            }
            from += batch.len();
            if batch.is_empty() && !done {
                // Keeps proxies from closing an idle stream.
                out.push_str(": waiting\n\n");
            }
            if done {
                out.push_str("event: end\ndata: {}\n\n");
            }
            if s.write_all(out.as_bytes()).and_then(|()| s.flush()).is_err() || done {
                return;
            }
        }
    }

    fn page(&self) -> String {
        let p = self.points.lock().map(|p| p.json.clone()).unwrap_or_default();
        // JSON inside a script element: "<" escaped so no value can close it.
        let init = format!("[{}]", p.join(",")).replace('<', "\\u003c");
        let title = format!("fairbench live: {}", self.info.label);
        LIVE_PAGE
            .replace("{{TITLE}}", &esc(&title))
            .replace("{{SUB}}", &esc(&format!("{} on {} ({}, {})", self.info.workload, self.info.target, self.info.engine, self.info.transport)))
            .replace("{{N}}", &p.len().to_string())
            .replace("{{INIT}}", &init)
    }
}

// `--live` and `--metrics-addr` are bound before the first level, so a
// taken port stops the run before it starts. Both publish one state through
// one sink: the first of them opened makes it.

/// The state both publish, and its sink when this one made it.
fn shared(s: &super::sinks::Setup, shared: &mut super::sinks::Shared) -> (Arc<Live>, Option<Box<dyn Sink>>) {
    match &shared.live {
        Some(l) => (l.clone(), None),
        None => {
            let l = Live::new(s.info);
            shared.live = Some(l.clone());
            let sink = l.sink();
            (l, Some(sink))
        }
    }
}

/// On with `--live`.
pub fn page_on(s: &super::sinks::Setup) -> bool {
    s.live.is_some()
}

/// `--live ADDR`: the page and its event stream.
pub fn page_open(s: &mut super::sinks::Setup, shared: &mut super::sinks::Shared) -> crate::error::Result<Option<Box<dyn Sink>>> {
    let (state, sink) = self::shared(s, shared);
    if let Some(a) = s.live {
        let bound = super::http::serve("live", a, Arc::new(move |r: &Request| state.handle(r)))?;
        if !s.format.json() {
            println!("Live view: http://{bound}/");
        }
    }
    Ok(sink)
}

/// On with `--metrics-addr`.
pub fn metrics_on(s: &super::sinks::Setup) -> bool {
    s.metrics.is_some()
}

/// `--metrics-addr ADDR`: OpenMetrics alone.
pub fn metrics_open(s: &mut super::sinks::Setup, shared: &mut super::sinks::Shared) -> crate::error::Result<Option<Box<dyn Sink>>> {
    let (state, sink) = self::shared(s, shared);
    if let Some(a) = s.metrics {
        let bound = super::http::serve("metrics-addr", a, Arc::new(move |r: &Request| state.handle_metrics(r)))?;
        if !s.format.json() {
            println!("OpenMetrics: http://{bound}/metrics");
        }
    }
    Ok(sink)
}

struct LiveSink(Arc<Live>);

impl Sink for LiveSink {
    fn start(&mut self, _threads: usize) {
        if let Ok(mut p) = self.0.points.lock() {
            if !p.json.is_empty() {
                p.level += 1;
            }
        }
    }
    fn interval(&mut self, iv: &Interval, _rate_mode: bool) {
        self.0.publish(iv);
    }
    fn summary(&mut self, _r: &LevelResult, _info: &RunInfo) {}
}

impl Drop for LiveSink {
    fn drop(&mut self) {
        if let Ok(mut p) = self.0.points.lock() {
            p.done = true;
        }
        self.0.arrived.notify_all();
    }
}

const LIVE_PAGE: &str = r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>{{TITLE}}</title>
<style>
body{margin:0;background:#f5f7fa;color:#1d2733;font:15px/1.5 system-ui,-apple-system,'Segoe UI','DejaVu Sans',sans-serif}
main{max-width:1120px;margin:0 auto;padding:24px 20px}
h1{font-size:22px;margin:0}.sub{color:#5b6673;margin:0 0 14px}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:12px}
svg{width:100%;height:auto;background:#fff;border:1px solid #e3e7ec;border-radius:8px}
#status{font-weight:600}
</style></head><body><main>
<h1>{{TITLE}}</h1><p class="sub">{{SUB}} · <span id="status">running</span> · <span id="now"></span></p>
<div class="grid" id="charts" data-initial="{{N}}"></div>
</main>
<script type="application/json" id="init">{{INIT}}</script>
<script>
(function(){
var NS='http://www.w3.org/2000/svg',W=760,H=260,L=60,R=20,T=40,B=30,COL=['#4269d0','#ef8a18'];
var defs=[['live-tps','Transactions per second',[['TPS','tps']]],['live-qps','Queries per second',[['QPS','qps']]],['live-latency','Latency, ms',[['p95','p95'],['p99','p99']]],['live-errors','Errors and reconnects per second',[['errors/s','errors'],['reconnects/s','reconnects']]],['live-cpu','CPU, cores',[['cores','cpu']]]];
var pts=JSON.parse(document.getElementById('init').textContent),charts=[];
function el(n,a,p){var e=document.createElementNS(NS,n);for(var k in a)e.setAttribute(k,a[k]);if(p)p.appendChild(e);return e}
defs.forEach(function(d){var s=el('svg',{'class':'chart','data-chart':d[0],viewBox:'0 0 '+W+' '+H,'font-size':'12','font-family':'system-ui,sans-serif'});
 el('text',{x:L,y:18,'font-size':'14','font-weight':'600',fill:'#1d2733'},s).textContent=d[1];
 var ymax=el('text',{x:L-6,y:T+4,'text-anchor':'end',fill:'#5b6673'},s),xmax=el('text',{x:W-R,y:H-10,'text-anchor':'end',fill:'#5b6673'},s);
 el('text',{x:L-6,y:H-B+4,'text-anchor':'end',fill:'#5b6673'},s).textContent='0';
 el('line',{x1:L,x2:W-R,y1:H-B,y2:H-B,stroke:'#8a95a3'},s);
 var warm=el('rect',{x:L,y:T,width:0,height:H-T-B,fill:'#9aa3ad','fill-opacity':'0.16'},s);
 var lines=d[2].map(function(x,i){var g=el('g',{'class':'series','data-name':x[0]},s);var lx=L+i*110;el('line',{x1:lx,x2:lx+16,y1:30,y2:30,stroke:COL[i],'stroke-width':'2.5'},s);el('text',{x:lx+20,y:34,fill:'#1d2733'},s).textContent=x[0];
  return {key:x[1],pl:el('polyline',{fill:'none',stroke:COL[i],'stroke-width':'1.8','data-n':'0',points:''},g)}});
 document.getElementById('charts').appendChild(s);charts.push({lines:lines,ymax:ymax,xmax:xmax,warm:warm})});
function draw(){if(!pts.length)return;var lv=pts[pts.length-1].level,cur=pts.filter(function(p){return p.level===lv});
 var t1=Math.max.apply(null,cur.map(function(p){return p.t})),t0=0,wend=0;cur.forEach(function(p){if(p.warmup)wend=p.t});
 var sx=function(t){return L+(t-t0)/Math.max(t1-t0,1)*(W-L-R)};
 document.getElementById('now').textContent=cur[0].threads+' threads, '+Math.round(t1)+' s';
 charts.forEach(function(c){var m=0;c.lines.forEach(function(l){cur.forEach(function(p){m=Math.max(m,p[l.key])})});m=m>0?m*1.1:1;
  c.ymax.textContent=m>=100?Math.round(m):m.toFixed(2);c.xmax.textContent=Math.round(t1)+' s';c.warm.setAttribute('width',Math.max(0,sx(wend)-L));
  c.lines.forEach(function(l){l.pl.setAttribute('points',cur.map(function(p){return sx(p.t).toFixed(1)+','+(H-B-p[l.key]/m*(H-T-B)).toFixed(1)}).join(' '));l.pl.setAttribute('data-n',cur.length)})})}
draw();
var es=new EventSource('events?from='+pts.length);
es.onmessage=function(e){pts.push(JSON.parse(e.data));draw()};
es.addEventListener('end',function(){document.getElementById('status').textContent='finished';es.close()});
})();
</script></body></html>
"#;

/// OpenMetrics text as Prometheus' classic text format: no `# EOF` or
/// `# UNIT`, an `info` family as a gauge named `..._info`, and a counter's
/// HELP and TYPE under its sample's `_total` name, as the classic format
/// (and `promtool check metrics`) wants them.
pub fn classic(open: &str) -> String {
    let mut out = String::with_capacity(open.len());
    let mut kinds: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for l in open.lines() {
        if let Some(rest) = l.strip_prefix("# TYPE ") {
            if let Some((name, kind)) = rest.split_once(' ') {
                kinds.insert(name.to_string(), kind.to_string());
            }
        }
    }
    let renamed = |name: &str| -> String {
        match kinds.get(name).map(String::as_str) {
            Some("info") => format!("{name}_info"),
            Some("counter") if !name.ends_with("_total") => format!("{name}_total"),
            _ => name.to_string(),
        }
    };
    for l in open.lines() {
        if l == "# EOF" || l.starts_with("# UNIT ") {
            continue;
        }
        if let Some(rest) = l.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap_or((rest, "untyped"));
            let kind = match kind {
                "info" | "stateset" => "gauge",
                "gaugehistogram" => "histogram",
                "unknown" => "untyped",
                k => k,
            };
            out.push_str(&format!("# TYPE {} {kind}\n", renamed(name)));
        } else if let Some(rest) = l.strip_prefix("# HELP ") {
            let (name, help) = rest.split_once(' ').unwrap_or((rest, ""));
            out.push_str(&format!("# HELP {} {help}\n", renamed(name)));
        } else if l.split(['{', ' ']).next().is_some_and(|n| n.ends_with("_created")) {
            // OpenMetrics' creation timestamps have no place in the classic format.
            continue;
        } else {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}
