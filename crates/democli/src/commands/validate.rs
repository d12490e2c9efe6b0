//! `democli deployments validate`: one JSON object on stdin, checked and never
//! stored. stdin is read only up to its cap plus one byte: a bigger payload is
//! refused at once, so a caller writing it is never left blocked (REQ-F-054).

use std::io::{self, IsTerminal, Read};

use serde_json::{json, Map, Value};

use super::{Ctx, Outcome, Reply};
use crate::defect::Defect;
use crate::error::{CliError, Failure};
use crate::spec::VALIDATE_MAX_BYTES;

pub fn run(ctx: &Ctx) -> Result<Outcome, Failure> {
    let stdin = io::stdin();
    if stdin.is_terminal() {
        return Err(CliError::usage(
            "STDIN_REQUIRED",
            "deployments validate reads the spec from stdin, which is a terminal",
        )
        .fix("Pipe the spec in: democli deployments validate < spec.json")
        .into());
    }
    let mut bytes = Vec::new();
    let read = if ctx.ui.faults.on(Defect::StdinUnbounded) {
        stdin.lock().read_to_end(&mut bytes)
    } else {
        let cap = u64::try_from(VALIDATE_MAX_BYTES).unwrap_or(u64::MAX);
        stdin.lock().take(cap + 1).read_to_end(&mut bytes)
    };
    if let Err(error) = read {
        return Err(
            CliError::usage("STDIN_UNREADABLE", format!("cannot read stdin: {error}")).into(),
        );
    }
    if bytes.len() > VALIDATE_MAX_BYTES && !ctx.ui.faults.on(Defect::StdinUnbounded) {
        return Err(CliError::usage(
            "STDIN_TOO_LARGE",
            format!("stdin payload exceeds the {VALIDATE_MAX_BYTES}-byte limit"),
        )
        .fix("Write the spec to a file and pass a smaller one, or split it")
        .context(json!({ "limit_bytes": VALIDATE_MAX_BYTES }))
        .into());
    }
    let spec: Map<String, Value> = match serde_json::from_slice(&bytes) {
        Ok(Value::Object(spec)) => spec,
        _ => {
            return Err(
                CliError::usage("INVALID_SPEC", "stdin is not one JSON object")
                    .fix("Pipe one JSON object in")
                    .context(json!({ "received_bytes": bytes.len() }))
                    .into(),
            )
        }
    };
    let keys: Vec<&String> = spec.keys().collect();
    let plain = format!(
        "valid  {} bytes, keys: {}\n",
        bytes.len(),
        spec.keys().cloned().collect::<Vec<_>>().join(", ")
    );
    Ok(Outcome::Reply(Box::new(Reply {
        data: json!({ "valid": true, "bytes": bytes.len(), "keys": keys }),
        meta: Map::new(),
        plain,
        committed: false,
        ..Reply::default()
    })))
}
