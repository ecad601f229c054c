//! What people look at after a run: the self-contained HTML report (charts
//! drawn by `report::chart`), its PNG renderings, the CSV export, and the
//! read-only store browser. These read the store, the audit and `compare`,
//! so they sit above them; the run's own outputs stay in `report`.

pub mod browse;
pub mod csv;
pub mod html;
pub mod png;
