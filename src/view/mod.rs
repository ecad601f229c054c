//! What people look at after a run: the renderings of stored runs
//! (`format`, the registry: text, JSON, markdown, JUnit, and the formats
//! with a module of their own here: the self-contained HTML report with
//! charts drawn by `live::chart`, its PNG renderings, the CSV export), and
//! the read-only store browser. These read the store, the audit and
//! `compare`, so they sit above them; what a run shows while it runs is
//! `live`'s.

pub mod browse;
pub mod csv;
pub mod format;
pub mod html;
pub mod png;
pub mod server_time;
pub mod steps;
pub mod sweep;
