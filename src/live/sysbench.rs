//! sysbench's own report blocks that its general options add to the text
//! output: the latency histogram (`--histogram`) and the checkpoint reports
//! (`--report-checkpoints`), as sysbench 1.0 prints them.

use super::sysbench_report;
use crate::model::{Checkpoint, Sink};
use crate::stats::sb_hist;
use hdrhistogram::Histogram;
use std::io::Write;

/// Bar width of the fullest bucket.
const BAR: usize = 40;

/// sysbench's `--histogram` block: its title, the header, one row per
/// non-empty bucket (`%12.3f |%-40.*s %lu`, the fullest bucket's bar 40
/// stars wide), and a line of one space. `h` holds microseconds.
pub fn histogram_text(h: &Histogram<u64>) -> String {
    let mut s = String::from("Latency histogram (values are in milliseconds)\n");
    let counts = sb_hist::counts(h);
    let max = counts.iter().copied().max().unwrap_or(0);
    if max > 0 {
        s.push_str("       value  ------------- distribution ------------- count\n");
        for (i, &n) in counts.iter().enumerate().filter(|(_, &n)| n > 0) {
            let width = (n as f64 * BAR as f64 / max as f64 + 0.5).floor() as usize;
            s.push_str(&format!("{:12.3} |{:<BAR$} {n}\n", sb_hist::value(i), "*".repeat(width.min(BAR))));
        }
    }
    s.push_str(" \n");
    s
}

/// A checkpoint's report: `[ Ns ] Checkpoint report:` and sysbench's block
/// over the counters since the previous checkpoint.
pub fn checkpoint_text(cp: &Checkpoint, percentile: u32) -> String {
    format!("[ {:.0}s ] Checkpoint report:\n{}", cp.t, sysbench_report(&cp.w, cp.secs, &cp.clients, percentile))
}

/// Prints the checkpoint reports on the text console, whichever sink
/// prints the rest (a workload's own output included).
pub struct Checkpoints {
    pub percentile: u32,
}

/// On with `--report-checkpoints` where the text console shows reports.
pub fn on(s: &super::sinks::Setup) -> bool {
    s.loud && s.checkpoints
}

pub fn open(s: &mut super::sinks::Setup, _: &mut super::sinks::Shared) -> crate::error::Result<Option<Box<dyn Sink>>> {
    Ok(Some(Box::new(Checkpoints { percentile: s.percentile })))
}

impl Sink for Checkpoints {
    fn checkpoint(&mut self, cp: &Checkpoint) {
        let mut o = std::io::stdout().lock();
        let _ = write!(o, "{}", checkpoint_text(cp, self.percentile));
        let _ = o.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Window;

    #[test]
    fn histogram_rows() {
        let mut w = Window::default();
        for _ in 0..4 {
            w.record(1000, 1000, false);
        }
        w.record(20, 20, false);
        let t = histogram_text(&w.lat);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "Latency histogram (values are in milliseconds)");
        assert_eq!(lines[1], "       value  ------------- distribution ------------- count");
        assert_eq!(lines[2], format!("       0.020 |{:<40} 1", "**********"));
        assert_eq!(lines[3], format!("       1.007 |{} 4", "*".repeat(40)));
        assert_eq!(lines[4], " ");
        assert_eq!(lines.len(), 5);
        // Nothing recorded: the title and the closing line only, as sysbench.
        assert_eq!(histogram_text(&Window::default().lat), "Latency histogram (values are in milliseconds)\n \n");
    }
}
