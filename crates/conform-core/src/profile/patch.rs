//! A violation's fix as JSON Patch (RFC 6902) operations, for the fixes that are
//! mechanical: a tool that generated the profile can apply them instead of reading
//! the prose.

use serde_json::Value;

/// One JSON Patch (RFC 6902) operation on the profile document.
///
/// Two violations with one cause carry the same operations, so one violation's
/// operations are its whole fix. Applied together, the distinct operations of every
/// violation of a profile, each once and in the order the violations are listed,
/// give a profile without those violations. An operation replaces or removes a
/// whole value, never an array element by index, so no operation shifts another's
/// target.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum PatchOperation {
    /// Set the value at `path`.
    Replace {
        /// JSON pointer of the value.
        path: String,
        /// Its new value.
        value: Value,
    },
    /// Remove the member at `path`.
    Remove {
        /// JSON pointer of the member.
        path: String,
    },
}
