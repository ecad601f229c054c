//! TPC-C output: the standard sysbench-style lines plus New-Orders per
//! minute per interval, then tpmC, NOPM, efficiency, the mix achieved and
//! per-transaction figures; or tpcc-mysql's interval lines and final block
//! (`--format tpcc-mysql`, times in milliseconds).

use super::{RunShared, Tpcc, CEILING_PER_WAREHOUSE, KINDS};
use crate::model::{Interval, LevelResult, RunInfo, Sink, Stop};
use crate::output::StandardOutput;
use crate::stats::{pct_ms, KindWindow};
use serde_json::{json, Value};
use std::io::Write;
use std::sync::Arc;

/// TPC-C's minimum shares (clause 5.2.3), in the order of KINDS.
const MIN_PCT: [f64; 5] = [0.0, 43.0, 4.0, 4.0, 4.0];
/// 90th-percentile response-time limits in ms (clause 5.2.5.3).
const LIMIT_MS: [f64; 5] = [5000.0, 5000.0, 5000.0, 80_000.0, 20_000.0];
const TITLES: [&str; 5] = ["New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level"];

pub struct TpccSink {
    json: bool,
    mysql_format: bool,
    percentile: u32,
    threads: usize,
    shared: Arc<RunShared>,
    warehouses: u64,
    spec: bool,
    time_scale: f64,
    shape: super::shape::Shape,
    measured_s: f64,
    /// The standard console lines TPC-C's build on.
    standard: &'static dyn StandardOutput,
}

impl TpccSink {
    pub fn new(t: &Tpcc, json: bool, percentile: u32, standard: &'static dyn StandardOutput) -> TpccSink {
        TpccSink {
            json,
            mysql_format: t.args.format == super::options::Console::TpccMysql,
            percentile,
            threads: 0,
            shared: t.shared.clone(),
            warehouses: t.warehouses as u64 * t.datasets as u64,
            spec: t.spec,
            time_scale: t.args.time_scale,
            shape: t.args.tpcc_shape,
            measured_s: 0.0,
            standard,
        }
    }
}

/// Statements sent per transaction, BEGIN and COMMIT included: what a shape changes (28.7
/// per-item against 14.6 for go-tpc's, on the server's counters).
fn statements_per_transaction(w: &crate::stats::Window) -> Option<f64> {
    (w.events > 0).then(|| (w.reads + w.writes + w.other) as f64 / w.events as f64)
}

fn kind(w: &crate::stats::Window, k: usize) -> Option<&KindWindow> {
    w.kinds.get(k)
}

fn committed_new_orders(w: &crate::stats::Window) -> u64 {
    kind(w, 0).map(|k| k.events - k.rollbacks).unwrap_or(0)
}

/// New-Orders completed, the 1% rolled back through an unused item
/// included: they are part of the workload as clause 2.4.1.4 defines it,
/// and tpcc-mysql and go-tpc count them in tpmC too.
fn completed_new_orders(w: &crate::stats::Window) -> u64 {
    kind(w, 0).map(|k| k.events).unwrap_or(0)
}

/// How far below its share a kind may fall only because runs end with
/// decks half dealt: each client's unfinished deck can lack at most all of
/// the kind's cards in one deck. In percentage points of `total` events.
fn deck_tolerance_pct(min_pct: f64, clients: usize, total: u64) -> f64 {
    if total == 0 {
        return 0.0;
    }
    min_pct * clients as f64 / total as f64 * 100.0
}

fn max_ms(k: Option<&KindWindow>) -> f64 {
    k.filter(|k| !k.lat.is_empty()).map(|k| k.lat.max() as f64 / 1000.0).unwrap_or(0.0)
}

/// Events of a kind within the response-time limit.
fn in_limit(k: &KindWindow, limit_ms: f64) -> u64 {
    if k.lat.is_empty() {
        return 0;
    }
    k.lat.count_between(0, (limit_ms * 1000.0) as u64)
}

/// What the summary adds for TPC-C, as text lines and a JSON object.
pub struct Figures {
    pub tpmc: f64,
    pub nopm: Option<f64>,
    pub efficiency: Option<f64>,
    pub json: Value,
}

impl TpccSink {
    /// Whether a kind's achieved share meets the TPC-C minimum, allowing
    /// for the decks the clients had not finished when the run ended.
    fn mix_ok(&self, pct: f64, i: usize, total: u64) -> bool {
        pct + deck_tolerance_pct(MIN_PCT[i], self.threads, total) + 1e-9 >= MIN_PCT[i]
    }

    fn figures(&self, r: &LevelResult) -> Figures {
        let t = &r.total;
        let secs = r.elapsed_s.max(1e-9);
        let tpmc = completed_new_orders(t) as f64 * 60.0 / secs;
        let committed_pm = committed_new_orders(t) as f64 * 60.0 / secs;
        let nopm = {
            let n = self.shared.nopm.lock().unwrap();
            match (n.before, n.after) {
                (Some(a), Some(b)) => Some((b - a) as f64 * 60.0 / secs),
                _ => None,
            }
        };
        let ceiling = CEILING_PER_WAREHOUSE * self.warehouses as f64 / self.time_scale;
        let efficiency = if self.spec { Some(tpmc * 100.0 / ceiling) } else { None };
        let total: u64 = t.kinds.iter().map(|k| k.events).sum();
        let mut per = Vec::new();
        for (i, name) in KINDS.iter().enumerate() {
            let k = kind(t, i);
            let ev = k.map(|k| k.events).unwrap_or(0);
            let pct = if total > 0 { ev as f64 * 100.0 / total as f64 } else { 0.0 };
            let h = k.map(|k| &k.lat);
            let lat = |q: f64| h.map(|h| pct_ms(h, q)).unwrap_or(0.0);
            let tol = deck_tolerance_pct(MIN_PCT[i], self.threads, total);
            per.push(json!({
                "name": name,
                "count": ev,
                "rollbacks": k.map(|k| k.rollbacks).unwrap_or(0),
                "retries": k.map(|k| k.retries).unwrap_or(0),
                "mix_pct": pct,
                "mix_min_pct": MIN_PCT[i],
                "mix_ok": self.mix_ok(pct, i, total),
                "mix_tolerance_pct": tol,
                "latency_ms": {
                    "avg": h.filter(|h| !h.is_empty()).map(|h| h.mean() / 1000.0).unwrap_or(0.0),
                    "p50": lat(50.0), "p95": lat(95.0), "p99": lat(99.0), "max": max_ms(k),
                },
            }));
        }
        let json = json!({
            "name": "tpcc",
            "terminals": if self.spec { "spec" } else { "stress" },
            "shape": self.shape.name(),
            "statements_per_transaction": statements_per_transaction(t),
            "warehouses_total": self.warehouses,
            "tpmc": tpmc,
            "committed_new_orders_per_min": committed_pm,
            "nopm": nopm,
            "efficiency_pct": efficiency,
            "ceiling_tpmc": if self.spec { json!(ceiling) } else { Value::Null },
            "errors": t.errors,
            "errors_by_code": t.errors_by_code,
            "transactions": per,
        });
        Figures { tpmc, nopm, efficiency, json }
    }

    fn tpcc_text(&self, r: &LevelResult, f: &Figures) -> String {
        let mut s = String::new();
        let model = if self.spec { format!("spec (10 terminals per warehouse, keying and think times x{})", self.time_scale) } else { "stress (closed loop, no keying or think times)".to_string() };
        s.push_str(&format!("TPC-C ({model}, {} warehouse(s)):\n", self.warehouses));
        let per = statements_per_transaction(&r.total).map(|n| format!(", {n:.1} statements per transaction sent")).unwrap_or_default();
        s.push_str(&format!("    statement shape: {}{per} ({})\n", self.shape.name(), self.shape.whose()));
        s.push_str(&format!("    tpmC (New-Orders/min incl. 1% rolled back, client): {:.2}\n", f.tpmc));
        match f.nopm {
            Some(n) => s.push_str(&format!("    NOPM (committed New-Orders/min, from d_next_o_id): {n:.2}\n")),
            None => s.push_str("    NOPM: not available (the database could not be read)\n"),
        }
        if let Some(e) = f.efficiency {
            s.push_str(&format!(
                "    efficiency: {e:.2}% of {:.2} tpmC ({CEILING_PER_WAREHOUSE} per warehouse{})\n",
                CEILING_PER_WAREHOUSE * self.warehouses as f64 / self.time_scale,
                if self.time_scale != 1.0 { ", scaled by the time scale" } else { "" }
            ));
        }
        s.push_str("    transaction      count   mix%  (min)  rollbacks  retries    avg     p50     p95     p99     max (ms)\n");
        let t = &r.total;
        let total: u64 = t.kinds.iter().map(|k| k.events).sum();
        for (i, title) in TITLES.iter().enumerate() {
            let k = kind(t, i);
            let ev = k.map(|k| k.events).unwrap_or(0);
            let pct = if total > 0 { ev as f64 * 100.0 / total as f64 } else { 0.0 };
            let h = k.map(|k| &k.lat).filter(|h| !h.is_empty());
            let lat = |q: f64| h.map(|h| pct_ms(h, q)).unwrap_or(0.0);
            let ok = if self.mix_ok(pct, i, total) { "OK" } else { "NG" };
            s.push_str(&format!(
                "    {title:<13} {ev:>8} {pct:>6.2} ({:>2.0}% {ok}) {:>9} {:>8} {:>7.2} {:>7.2} {:>7.2} {:>7.2} {:>7.2}\n",
                MIN_PCT[i],
                k.map(|k| k.rollbacks).unwrap_or(0),
                k.map(|k| k.retries).unwrap_or(0),
                h.map(|h| h.mean() / 1000.0).unwrap_or(0.0),
                lat(50.0),
                lat(95.0),
                lat(99.0),
                max_ms(k)
            ));
        }
        s.push_str(&format!("    errors retried: {}\n", t.errors));
        s
    }

    fn mysql_interval(&self, iv: &Interval) -> String {
        let w = &iv.w;
        let no = kind(w, 0);
        let p = |q: f64| no.map(|k| pct_ms(&k.lat, q)).unwrap_or(0.0);
        let mut line = format!("{:4}, trx: {}, 95%: {:.3}, 99%: {:.3}, max_rt: {:.3}", iv.t.round() as i64, no.map(|k| k.events).unwrap_or(0), p(95.0), p(99.0), max_ms(no));
        for i in 1..5 {
            let k = kind(w, i);
            line.push_str(&format!(", {}|{:.3}", k.map(|k| k.events).unwrap_or(0), max_ms(k)));
        }
        line
    }

    fn mysql_final(&self, r: &LevelResult, f: &Figures) -> String {
        let t = &r.total;
        let mut s = String::from("\nSTOPPING THREADS");
        s.push_str(&".".repeat(self.threads.min(1000)));
        s.push_str("\n\n<Raw Results>\n");
        let mut rows = Vec::new();
        for (i, &limit) in LIMIT_MS.iter().enumerate() {
            let k = kind(t, i);
            let ev = k.map(|k| k.events).unwrap_or(0);
            let sc = k.map(|k| in_limit(k, limit)).unwrap_or(0);
            let rt = k.map(|k| k.retries).unwrap_or(0);
            let avg = k.filter(|k| !k.lat.is_empty()).map(|k| k.lat.mean() / 1000.0).unwrap_or(0.0);
            rows.push((sc, ev - sc, rt, avg));
            s.push_str(&format!("  [{i}] sc:{sc} lt:{}  rt:{rt}  fl:0 avg_rt: {avg:.1} ({})\n", ev - sc, limit as u64));
        }
        s.push_str(&format!(" in {} sec.\n\n<Raw Results2(sum ver.)>\n", r.elapsed_s.round() as i64));
        for (i, (sc, lt, rt, _)) in rows.iter().enumerate() {
            s.push_str(&format!("  [{i}] sc:{sc}  lt:{lt}  rt:{rt}  fl:0 \n"));
        }
        let total: u64 = t.kinds.iter().map(|k| k.events).sum();
        s.push_str("\n<Constraint Check> (all must be [OK])\n [transaction percentage]\n");
        for i in 1..5 {
            let ev = kind(t, i).map(|k| k.events).unwrap_or(0);
            let pct = if total > 0 { ev as f64 * 100.0 / total as f64 } else { 0.0 };
            s.push_str(&format!("{:>15}: {pct:.2}% (>={:4.1}%) [{}]\n", TITLES[i], MIN_PCT[i], if self.mix_ok(pct, i, total) { "OK" } else { "NG" }));
        }
        s.push_str(" [response time (at least 90% passed)]\n");
        for i in 0..5 {
            let (sc, lt, _, _) = rows[i];
            let pct = if sc + lt > 0 { sc as f64 * 100.0 / (sc + lt) as f64 } else { 100.0 };
            s.push_str(&format!("{:>15}: {pct:.2}%  [{}]\n", TITLES[i], if pct >= 90.0 { "OK" } else { "NG" }));
        }
        s.push_str(&format!("\n<TpmC>\n                 {:.3} TpmC\n", f.tpmc));
        s.push_str("(fairbench: response times are in milliseconds; late = over the TPC-C limit of 5/5/5/80/20 s; TpmC counts completed New-Orders, the 1% rolled back included; fl: 0 because failed transactions are retried until they commit;");
        match f.nopm {
            Some(n) => s.push_str(&format!(" NOPM {n:.3})\n")),
            None => s.push_str(" NOPM n/a)\n"),
        }
        s
    }
}

impl Sink for TpccSink {
    fn start(&mut self, threads: usize) {
        self.threads = threads;
        if self.json {
            return;
        }
        let mut o = std::io::stdout().lock();
        if self.mysql_format {
            let _ = writeln!(o, "***************************************\n*** ###easy### TPC-C Load Generator ***\n***************************************");
            let _ = writeln!(o, "<Parameters>\n     [warehouse]: {}\n [connection]: {threads}\n\nMEASURING START.\n", self.warehouses);
        } else {
            let _ = writeln!(o, "Threads started!\n");
        }
        let _ = o.flush();
    }

    fn interval(&mut self, iv: &Interval, rate_mode: bool) {
        let mut o = std::io::stdout().lock();
        let nopm = committed_new_orders(&iv.w) as f64 * 60.0 / iv.secs.max(1e-9);
        if self.json {
            let mut v = self.standard.interval_json(iv, self.percentile, rate_mode);
            v["new_orders_per_min"] = json!(nopm);
            let _ = writeln!(o, "{v}");
        } else if self.mysql_format {
            if !iv.warmup {
                let _ = writeln!(o, "{}", self.mysql_interval(iv));
            }
        } else {
            let _ = writeln!(o, "{} NO/min: {nopm:.2}", self.standard.interval_line(iv, self.percentile));
        }
        let _ = o.flush();
    }

    fn summary(&mut self, r: &LevelResult, info: &RunInfo) {
        self.measured_s = r.elapsed_s;
        let f = self.figures(r);
        let mut o = std::io::stdout().lock();
        if self.json {
            let mut v = self.standard.summary_json(r, info);
            v["workload"] = f.json.clone();
            let _ = writeln!(o, "{v}");
        } else if self.mysql_format {
            let _ = write!(o, "{}", self.mysql_final(r, &f));
            if let Stop::Failed(m) = &r.stop {
                let _ = writeln!(o, "Stopped: {m}");
            }
        } else {
            let _ = writeln!(o);
            let _ = write!(o, "{}", self.standard.summary_text(r, info));
            let _ = write!(o, "{}", self.tpcc_text(r, &f));
        }
        let _ = o.flush();
    }
}
