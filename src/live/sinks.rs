//! The live sinks of a run: one entry per sink in [`SINKS`], saying when it
//! is on and how it is opened, in the order the sinks are fed. The driver
//! describes the run's output options in a [`Setup`] and asks [`open`] for
//! the sinks; it builds none itself. Adding a sink is its own file (with
//! its `on` and `open`) and one line here.

use crate::error::Result;
use crate::model::{RunInfo, Sink, StartGate};
use crate::output::ConsoleFormat;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

/// What the sinks are opened from: the run and its output options.
pub struct Setup<'a> {
    pub info: &'a RunInfo,
    /// `--output`.
    pub format: ConsoleFormat,
    /// The text console prints sysbench's reports (the verbosity is 3 or more).
    pub loud: bool,
    /// `--percentile`.
    pub percentile: u32,
    /// `--report-checkpoints` names at least one time.
    pub checkpoints: bool,
    /// `--live`.
    pub live: Option<SocketAddr>,
    /// `--metrics-addr`.
    pub metrics: Option<SocketAddr>,
    /// `--hdr-log`.
    pub hdr_log: Option<&'a Path>,
    /// The start gate of a `--group`.
    pub gate: Option<Arc<dyn StartGate>>,
    /// The workload's own console, which stands in for the standard one.
    pub own_console: Option<Box<dyn Sink>>,
}

/// What the sinks opened so far share: the live page and the OpenMetrics
/// endpoint publish the same state through one sink.
#[derive(Default)]
pub struct Shared {
    pub live: Option<Arc<super::page::Live>>,
}

/// Where a sink stands among the others.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    /// Prints to the console: fed first, before anything slower.
    Printer,
    /// The console itself (a printer), whose summary the driver may split
    /// at the last checkpoint.
    Console,
    /// Everything else, fed after the store's sink.
    Other,
}

/// How a sink is opened: the sink, or None when it publishes through one
/// opened before.
pub type Open = fn(&mut Setup, &mut Shared) -> Result<Option<Box<dyn Sink>>>;

/// One live sink.
pub struct SinkSpec {
    pub name: &'static str,
    pub role: Role,
    /// Whether the run's options turn it on.
    pub on: fn(&Setup) -> bool,
    /// Opens it (a port bound, a file created: a failure stops the run
    /// before it starts).
    pub open: Open,
}

/// Every live sink, in the order they are opened and fed.
pub static SINKS: &[SinkSpec] = &[
    SinkSpec { name: "sysbench checkpoints", role: Role::Printer, on: super::sysbench::on, open: super::sysbench::open },
    SinkSpec { name: "console", role: Role::Console, on: super::console_on, open: super::console_open },
    SinkSpec { name: "live page", role: Role::Other, on: super::page::page_on, open: super::page::page_open },
    SinkSpec { name: "OpenMetrics", role: Role::Other, on: super::page::metrics_on, open: super::page::metrics_open },
    SinkSpec { name: "HDR log", role: Role::Other, on: super::hdrlog::on, open: super::hdrlog::open },
];

/// The sinks a run's options turn on.
pub struct OpenSinks {
    sinks: Vec<Box<dyn Sink>>,
    printers: usize,
    console_at: Option<usize>,
    shared: Shared,
}

/// Opens the sinks `setup` turns on, in [`SINKS`]' order.
pub fn open(mut setup: Setup) -> Result<OpenSinks> {
    let mut out = OpenSinks { sinks: Vec::new(), printers: 0, console_at: None, shared: Shared::default() };
    for o in SINKS {
        if !(o.on)(&setup) {
            continue;
        }
        let Some(sink) = (o.open)(&mut setup, &mut out.shared)? else { continue };
        if o.role == Role::Console {
            out.console_at = Some(out.sinks.len());
        }
        if o.role != Role::Other {
            out.printers = out.sinks.len() + 1;
        }
        out.sinks.push(sink);
    }
    Ok(out)
}

impl OpenSinks {
    /// The state the live page and the OpenMetrics endpoint publish, when
    /// either is on (it takes the hardware figures of each sample too).
    pub fn live(&self) -> Option<&Arc<super::page::Live>> {
        self.shared.live.as_ref()
    }

    /// Where the console is among [`OpenSinks::sinks`], when it is on.
    pub fn console_at(&self) -> Option<usize> {
        self.console_at
    }

    /// The sinks to feed, with the store's (when the run is recorded)
    /// after the printers.
    pub fn sinks(mut self, store: impl IntoIterator<Item = Box<dyn Sink>>) -> Vec<Box<dyn Sink>> {
        let at = self.printers;
        self.sinks.splice(at..at, store);
        self.sinks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The printers come first, so the store can go right after them.
    #[test]
    fn printers_come_first() {
        let first_other = SINKS.iter().position(|o| o.role == Role::Other).unwrap_or(SINKS.len());
        assert!(SINKS[first_other..].iter().all(|o| o.role == Role::Other), "a printer after another sink");
        assert_eq!(SINKS.iter().filter(|o| o.role == Role::Console).count(), 1);
    }
}
