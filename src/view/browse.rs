//! `fairbench results serve`: the results store in a browser, read-only:
//! the list of runs, the report of one run or sweep, and of several runs
//! compared. Each request reads the store afresh, so new runs show up.

use super::html::{self, ReportRun};
use crate::live::chart::esc;
use crate::live::http::{Reply, Request};
use crate::model::record::RunRecord;
use std::fmt::Write;
use std::path::{Path, PathBuf};

pub fn handle(store: &Path, req: &Request, reproduce: html::Reproduce) -> Reply {
    match req.path.as_str() {
        "/" => match crate::store::load_all(store) {
            Ok(rs) => Reply::html(list_page(store, &rs)),
            Err(e) => error_page(&e.to_string()),
        },
        "/report" | "/compare" => {
            let refs: Vec<String> = req.param("runs").unwrap_or("").split([',', ' ']).filter(|s| !s.is_empty()).map(str::to_string).collect();
            if refs.is_empty() {
                return error_page("name runs to report, e.g. /report?runs=3 or /compare?runs=3,4");
            }
            match crate::store::load_for_report(store, &refs) {
                Ok(v) => {
                    let runs: Vec<ReportRun> = v.into_iter().map(|(rec, hists)| ReportRun { command: reproduce(&rec), rec, hists }).collect();
                    Reply::html(html::build(&runs, &crate::units::now_rfc3339()).html)
                }
                Err(e) => error_page(&e.to_string()),
            }
        }
        _ => Reply::not_found(),
    }
}

fn error_page(msg: &str) -> Reply {
    let body = format!("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>fairbench</title></head><body style=\"font-family:system-ui,sans-serif;margin:2em\"><p>{}</p><p><a href=\"/\">All runs</a></p></body></html>", esc(msg));
    Reply::Page { status: 400, content_type: "text/html; charset=utf-8", body: body.into_bytes() }
}

fn list_page(store: &Path, rs: &[RunRecord]) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>fairbench results</title><style>\
body{{margin:0;background:#f5f7fa;color:#1d2733;font:15px/1.5 system-ui,-apple-system,'Segoe UI','DejaVu Sans',sans-serif}}main{{max-width:1120px;margin:0 auto;padding:24px 20px}}\
table{{border-collapse:collapse;width:100%;background:#fff}}th,td{{padding:6px 10px;border-bottom:1px solid #e3e7ec;text-align:left}}th{{color:#5b6673}}td.n{{text-align:right}}\
a{{color:#4269d0}}form{{margin:14px 0}}input[type=text]{{padding:4px 8px}}</style></head><body><main><h1>fairbench results</h1><p>{} · {} runs</p>\
<form action=\"compare\"><label>Compare runs (the first is the baseline): <input type=\"text\" name=\"runs\" placeholder=\"3,4\"></label> <button>Report</button></form>\
<table class=\"runs\"><tr><th>run</th><th>started</th><th>status</th><th>engine</th><th>threads</th><th class=n>TPS</th><th>label</th><th>tag</th></tr>",
        esc(&store.display().to_string()),
        rs.len()
    );
    for r in rs.iter().rev() {
        let threads: Vec<String> = r.levels.iter().map(|l| l.threads.to_string()).collect();
        let tps: Vec<String> = r.levels.iter().map(|l| format!("{:.1}", l.tps)).collect();
        let _ = write!(
            o,
            "<tr><td><a href=\"report?runs={}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=n>{}</td><td><code>{}</code></td><td>{}</td></tr>",
            r.id,
            r.id,
            esc(&r.started_at),
            esc(&r.status),
            esc(&r.engine),
            threads.join(","),
            tps.join(", "),
            esc(&r.label),
            esc(&r.tag)
        );
    }
    o.push_str("</table></main></body></html>");
    o
}

/// Serves the store until the process is stopped.
pub fn serve(store: PathBuf, addr: std::net::SocketAddr, reproduce: html::Reproduce) -> crate::error::Result<()> {
    // Fails now on a missing store rather than on the first request.
    crate::store::open(&store, false)?;
    let s = store.clone();
    let bound = crate::live::http::serve("addr", addr, std::sync::Arc::new(move |r: &Request| handle(&s, r, reproduce)))?;
    println!("Serving {} at http://{bound}/ (read-only; Ctrl-C stops)", store.display());
    while !crate::model::interrupted() {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    Err(crate::error::Error::Interrupted)
}
