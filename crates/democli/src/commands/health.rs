//! `democli health`: can democli read its data file?

use serde_json::{json, Map};

use super::{Outcome, Reply};
use crate::error::Failure;
use crate::output::TOOL_VERSION;
use crate::store::{self, Store};

pub fn run() -> Result<Outcome, Failure> {
    let store = Store::load(&store::home()?)?;
    let path = store.path.display().to_string();
    let data = json!({
        "status": "ok",
        "version": TOOL_VERSION,
        "store": {
            "path": path,
            "exists": store.exists,
            "revision": store.data.revision,
            "deployments": store.data.deployments.len(),
            "events": store.data.events.len(),
        },
    });
    let plain = format!(
        "ok  democli {TOOL_VERSION}\nstore  {path}{}\n{} deployments, {} events, revision {}\n",
        if store.exists {
            ""
        } else {
            " (not yet written: built-in seed)"
        },
        store.data.deployments.len(),
        store.data.events.len(),
        store.data.revision,
    );
    Ok(Outcome::Reply(Box::new(Reply {
        data,
        meta: Map::new(),
        plain,
        committed: false,
        ..Reply::default()
    })))
}
