//! What people look at after a run: the renderings of stored runs
//! (`format`, the registry, a file per format: text, JSON, markdown, JUnit,
//! CSV, HTML and PNG), the self-contained HTML report's page (`html`, its
//! charts drawn by `live::chart`), the pages of a sweep, of steps and of the
//! server's time, and the read-only store browser. These read the store, the audit and
//! `compare`, so they sit above them; what a run shows while it runs is
//! `live`'s.

pub mod browse;
pub mod capacity;
pub mod format;
pub mod html;
pub mod server_time;
pub mod steps;
pub mod sweep;
