//! One thing wrong with a profile, as validation reports it.

use crate::profile::PatchOperation;

/// One thing wrong with a profile.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    /// JSON pointer of the offending (or missing) value, `""` for the whole document.
    pub pointer: String,
    /// What is wrong, in the profile author's terms.
    pub message: String,
    /// How to fix it.
    pub fix: String,
    /// 1-based line and column of the offending value, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column, in characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The rule is conform's own: the reference kit accepts this and runs the
    /// profile. The message says so and names the row of docs/differences.md.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stricter_than_reference: bool,
    /// The fix as JSON Patch operations, when it is mechanical; empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub patch: Vec<PatchOperation>,
}

impl Violation {
    pub(crate) fn new(
        pointer: impl Into<String>,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Violation {
            pointer: pointer.into(),
            message: message.into(),
            fix: fix.into(),
            line: None,
            column: None,
            stricter_than_reference: false,
            patch: Vec::new(),
        }
    }

    /// Mark the rule as conform's own, stricter than the reference kit; `row` is the
    /// row of docs/differences.md's table of differences from the kit that states it.
    pub(crate) fn stricter_than_reference(mut self, row: &str) -> Self {
        self.stricter_than_reference = true;
        self.message.push_str(&format!(
            ". This rule is conform's own, stricter than the reference kit, which runs this profile as it is: see the table of differences from the reference kit in conform's docs/differences.md, row \"{row}\""
        ));
        self
    }

    pub(crate) fn with_patch(mut self, patch: Vec<PatchOperation>) -> Self {
        self.patch = patch;
        self
    }
}
