//! The tool's own version, as `--version (isolated)` prints it: what the envelopes'
//! `meta.tool_version` must equal, and what an update notice names a version other
//! than.

use serde_json::Value;

use crate::checks::{Context, Judged};
use crate::plan::{KitRun, RunKind, RunRole, Subject};

/// A shown version without its quotes and any leading `v`.
pub(crate) fn without_v(shown: &str) -> &str {
    let bare = shown
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(shown);
    bare.strip_prefix('v').unwrap_or(bare)
}

/// The version `--version (isolated)` gives, with where it was read: its envelope's
/// `data.version` or `meta.tool_version`, else the last word of its one line, any
/// leading `v` dropped. `None` when it did not exit 0 or gave none.
pub(crate) fn printed_version(ctx: &Context<'_>) -> Option<(String, String)> {
    let run = ctx.run(RunRole {
        kind: RunKind::KitIsolated,
        subject: Subject::Kit(KitRun::Version),
    })?;
    if !run.finished() || run.record.exit_code() != Some(0) {
        return None;
    }
    version_of(ctx, &run)
}

fn version_of(ctx: &Context<'_>, run: &Judged<'_>) -> Option<(String, String)> {
    let label = &run.planned.label;
    if let Ok(envelope) = ctx.envelope(run) {
        return enveloped_version(envelope, label);
    }
    let text = std::str::from_utf8(&run.record.stdout.bytes).ok()?;
    if text.trim_start().starts_with('{') {
        // JSON that is not a valid envelope (json_envelope judges that) still
        // names its version; JSON that does not parse names none.
        let document: Value = serde_json::from_str(text.trim()).ok()?;
        return enveloped_version(&document, label);
    }
    let mut lines = text.lines().filter(|line| !line.trim().is_empty());
    let (Some(line), None) = (lines.next(), lines.next()) else {
        return None; // not one line: no version to read
    };
    let word = without_v(line.split_whitespace().last()?);
    // A last word without a digit ("tool version unknown") is no version.
    word.bytes()
        .any(|b| b.is_ascii_digit())
        .then(|| (word.to_string(), label.clone()))
}

/// `data.version`, else `meta.tool_version`, of a `--version` envelope.
fn enveloped_version(envelope: &Value, label: &str) -> Option<(String, String)> {
    [
        ("/data/version", "data.version"),
        ("/meta/tool_version", "meta.tool_version"),
    ]
    .into_iter()
    .find_map(|(pointer, field)| {
        let version = envelope.pointer(pointer).and_then(Value::as_str)?;
        Some((
            without_v(version).to_string(),
            format!("the {field} of {label}"),
        ))
    })
}
