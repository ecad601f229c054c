//! Sharded schemas around prepare and run. The workload says how its
//! tables shard ([`Dataset::sharding`]); the target's engine refuses what
//! it cannot route before anything changes, and applies the rest before
//! the workload's prepare creates and loads the tables. Engines that do
//! not shard answer neither, and nothing is printed.

use crate::db::{Conn, ConnConfig};
use crate::error::{Error, Result};
use crate::workload::Dataset;
use std::sync::Arc;

/// A usage error, nothing changed, when the target's engine cannot
/// spread the workload's tables over its shards as declared.
pub async fn refuse<W: Dataset>(w: &W, cfg: &Arc<ConnConfig>) -> Result<()> {
    let plan = w.sharding();
    let mut c = Conn::admin(cfg).await?;
    // The engine is known once a connection has opened.
    let why = match cfg.engine().sharded() {
        Some(s) => s.refuse_sharded(&mut c, &plan).await,
        None => None,
    };
    c.close().await;
    why.map_or(Ok(()), |why| Err(Error::Usage(why)))
}

/// After the workload's cleanup dropped its tables: the engine forgets
/// how they were spread.
pub async fn after_cleanup<W: Dataset>(w: &W, cfg: &Arc<ConnConfig>, quiet: bool) -> Result<()> {
    let plan = w.sharding();
    let mut c = Conn::admin(cfg).await?;
    let mut notes = Vec::new();
    if let Some(s) = cfg.engine().sharded() {
        s.unshard_tables(&mut c, &plan, &mut notes).await;
    }
    c.close().await;
    if !quiet {
        for n in notes {
            println!("Note: {n}");
        }
    }
    Ok(())
}

/// Before the workload's prepare: refuses what cannot be sharded, then
/// has the engine apply the rest, and says what it applied.
pub async fn before_prepare<W: Dataset>(w: &W, cfg: &Arc<ConnConfig>, quiet: bool) -> Result<()> {
    let plan = w.sharding();
    let mut c = Conn::admin(cfg).await?;
    let Some(engine) = cfg.engine().sharded() else {
        c.close().await;
        return Ok(());
    };
    if let Some(why) = engine.refuse_sharded(&mut c, &plan).await {
        c.close().await;
        return Err(Error::Usage(why));
    }
    let mut notes = Vec::new();
    let applied = engine.shard_tables(&mut c, &plan, &mut notes).await;
    c.close().await;
    let applied = applied?;
    if !quiet {
        for n in notes {
            println!("Note: {n}");
        }
        if let Some(text) = applied {
            println!("Sharding applied: {text}");
        }
    }
    Ok(())
}
