//! `conform init`: generate a profile, then print it, preview it or write it; or,
//! with `--vscode`, give the editor the profile schema.

mod vscode;

use std::path::Path;

use serde_json::{json, Value};

use super::output::{elapsed_ms, emit, emit_json, finish, report_error};
use super::Output;
use crate::envelope::{envelope, ExitStatus};
use crate::init::Request;

/// `conform init`: generate a profile, then print it, preview it or write it. The
/// warnings (skipped commands and why) go to the envelope and to stderr.
pub fn init(request: &Request, out: &Output) -> ExitStatus {
    let json_output = out.json;
    let started = out.started;
    let outcome = crate::init::execute(request);
    let warnings = match &outcome {
        Ok(outcome) => &outcome.warnings,
        Err(failure) => &failure.warnings,
    };
    for warning in warnings {
        eprintln!("conform init: warning: {}", warning.message);
    }
    let warnings = json!(warnings);
    match outcome {
        Ok(outcome) if json_output => {
            let mut document =
                envelope(ExitStatus::Success, outcome.data, None, elapsed_ms(started));
            document["warnings"] = warnings;
            // Exploration's runs were at the black hole: how they were kept there.
            if let Some(meta) = document.get_mut("meta").and_then(Value::as_object_mut) {
                crate::exec::isolation().insert_meta(meta);
            }
            emit_json(&document)
        }
        Ok(outcome) => emit(&outcome.text),
        Err(mut failure) => {
            // The engine knows it was cancelled, the session by what.
            if let Some(status) = request.cancel.exit_status() {
                failure.status = status;
            }
            let status = failure.status;
            let detail = super::failure_detail(failure);
            if !json_output {
                eprintln!("conform: {}", detail.message);
                if let Some(fix) = &detail.fix_required {
                    eprintln!("fix: {fix}");
                }
                return status;
            }
            let mut document = envelope(status, Value::Null, Some(detail), elapsed_ms(started));
            document["warnings"] = warnings;
            finish(status, emit_json(&document))
        }
    }
}

/// `conform init --vscode`: write the profile schema into the workspace rooted at
/// `root` and map conformance-profile.json to it in `.vscode/settings.json`, keeping
/// that file's other keys; refuse a settings file that is not plain JSON.
pub fn init_vscode(root: &Path, dry_run: bool, out: &Output) -> ExitStatus {
    match vscode::write(root, dry_run) {
        Ok(written) if out.json => emit_json(&envelope(
            ExitStatus::Success,
            written.data(),
            None,
            elapsed_ms(out.started),
        )),
        Ok(written) => emit(&written.text()),
        Err(failure) => {
            let (status, detail) = *failure;
            if !out.json {
                if let Some(fix) = &detail.fix_required {
                    eprintln!("conform: {}\nfix: {fix}", detail.message);
                    return status;
                }
            }
            report_error(status, detail, Value::Null, out.json, out.started)
        }
    }
}
