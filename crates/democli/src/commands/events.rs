//! `democli events`: streams the event log by default (`streaming_default`);
//! `--follow` keeps watching the data file until a signal ends it.

use std::time::{Duration, Instant};

use serde_json::{json, Map};

use super::{Ctx, Outcome, Reply};
use crate::error::{CliError, Failure};
use crate::output::table;
use crate::parse::Parsed;
use crate::signals;
use crate::store::{self, Event, Store};
use crate::stream::{Stream, ITEM_DELAY};

/// How often `--follow` looks at the data file.
const POLL: Duration = Duration::from_millis(250);
/// Idle time after which `--follow` writes a heartbeat line.
const HEARTBEAT: Duration = Duration::from_secs(1);

pub fn run(args: &Parsed, ctx: &Ctx) -> Result<Outcome, Failure> {
    let follow = args.switch("follow");
    let buffered = args.switch("no-stream");
    if follow && buffered {
        return Err(CliError::usage(
            "CONFLICTING_FLAGS",
            "--follow never ends, so it cannot be combined with --no-stream",
        )
        .fix("Drop one of --follow and --no-stream")
        .context(json!({ "flags": ["--follow", "--no-stream"] }))
        .into());
    }
    let home = store::home()?;
    let store = Store::load(&home)?;
    let events = store.data.events;

    if buffered {
        let rows: Vec<Vec<String>> = events
            .iter()
            .map(|e| {
                vec![
                    e.id.clone(),
                    e.occurred_at.clone(),
                    e.kind.clone(),
                    e.deployment_id.clone(),
                    e.env.clone(),
                ]
            })
            .collect();
        let plain = table(
            &["ID", "OCCURRED_AT", "TYPE", "DEPLOYMENT", "ENV"],
            &rows,
            ctx.ui.stdout_paint(),
            2,
        );
        let mut meta = Map::new();
        meta.insert(
            "pagination".into(),
            json!({
                "total": events.len(),
                "returned": events.len(),
                "truncated": false,
                "has_more": false,
                "next_cursor": null,
            }),
        );
        return Ok(Outcome::Reply(Box::new(Reply {
            data: json!(events),
            meta,
            plain,
            committed: false,
            ..Reply::default()
        })));
    }

    // Streaming by default, so the usual format rules apply: JSON lines off a
    // terminal, text lines for a person at one.
    let mut stream = Stream::new(&ctx.ui, ctx.ui.format, ctx.command.key, ctx.started);
    for event in &events {
        if let Some(signal) = signals::received() {
            return Ok(Outcome::Streamed(stream.cancel(signal)?));
        }
        stream.item(&json!(event), &line(event))?;
        if let Some(signal) = signals::pause(ITEM_DELAY) {
            return Ok(Outcome::Streamed(stream.cancel(signal)?));
        }
    }
    if !follow {
        let mut summary = Map::new();
        summary.insert("total".into(), json!(events.len()));
        return Ok(Outcome::Streamed(stream.finish(summary)?));
    }

    // Follow: the log is append-only, so new events are the ones past the count seen.
    let mut seen = events.len();
    let mut idle_since = Instant::now();
    loop {
        if let Some(signal) = signals::pause(POLL) {
            return Ok(Outcome::Streamed(stream.cancel(signal)?));
        }
        let latest = match Store::load(&home) {
            Ok(store) => store.data.events,
            Err(error) => return Ok(Outcome::Streamed(stream.fail(&error)?)),
        };
        for event in latest.iter().skip(seen) {
            stream.item(&json!(event), &line(event))?;
            idle_since = Instant::now();
        }
        seen = seen.max(latest.len());
        if idle_since.elapsed() >= HEARTBEAT {
            stream.heartbeat()?;
            idle_since = Instant::now();
        }
    }
}

fn line(event: &Event) -> String {
    format!(
        "{}  {}  {:24} {}  {}",
        event.id, event.occurred_at, event.kind, event.deployment_id, event.env
    )
}
