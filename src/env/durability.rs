//! Durability, normalised across engines: what a commit guarantees, read
//! from a server's settings by its engine. The audit compares it between
//! runs; the environment text and `compare` show it.

pub use crate::db::engines::{DurClass, Durability};

use super::Server;

pub fn durability(s: &Server) -> Durability {
    match crate::db::engines::named(&s.engine) {
        Some(e) => e.durability(s),
        None => Durability { class: DurClass::Unknown, evidence: Vec::new(), torn_pages: None },
    }
}
