//! The typed profile, built only from a document that passed validation.

use serde::{Deserialize, Serialize};

/// A conformance profile: how to invoke a tool and which invocations are safe to probe.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Profile {
    pub schema_version: String,
    pub tool: String,
    pub command: Vec<String>,
    pub timeout_seconds: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_order: Option<ArgumentOrder>,
    pub probes: Vec<Probe>,
}

impl Profile {
    /// Whether some probe is of `kind`: what several checks need to judge anything.
    pub(crate) fn has_probe(&self, kind: ProbeKind) -> bool {
        self.probes.iter().any(|probe| probe.kind == kind)
    }
}

/// A read command and a global option to move around it (`argument_order`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ArgumentOrder {
    pub command_path: Vec<String>,
    pub local_args: Vec<String>,
    pub global_flag: String,
    pub value: String,
    pub alternate_value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positional: Option<String>,
}

/// The expected behaviour class of a probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ProbeKind {
    /// Finishes without side effects.
    Read,
    /// Refuses until confirmed; previews with `dry_run_flag`.
    Destructive,
    /// Exits 2.
    Invalid,
    /// Streams JSONL lines to one terminal line.
    Stream,
}

impl ProbeKind {
    pub(crate) const ALL: [&'static str; 4] = ["read", "destructive", "invalid", "stream"];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ProbeKind::Read => "read",
            ProbeKind::Destructive => "destructive",
            ProbeKind::Invalid => "invalid",
            ProbeKind::Stream => "stream",
        }
    }
}

/// The only signal a stream probe may send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub(crate) enum ProbeSignal {
    #[serde(rename = "INT")]
    Int,
}

/// One invocation to run.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Probe {
    pub name: String,
    pub argv: Vec<String>,
    pub kind: ProbeKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dry_run_flag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<ProbeSignal>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "whole_count"
    )]
    pub after_lines: Option<u64>,
}

/// `after_lines` as validation accepts it: a whole number, also when written `2.0`.
fn whole_count<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    let value = serde_json::Value::deserialize(deserializer)?;
    super::validate::whole_number(&value)
        .map(Some)
        .ok_or_else(|| {
            serde::de::Error::custom(format!("expected a whole number of lines, found {value}"))
        })
}

impl Probe {
    /// How a stream probe is interrupted: the signal its entry names, after
    /// `after_lines` lines of stdout. Read here once; validation requires both
    /// fields or neither.
    pub(crate) fn interrupt(&self) -> Option<(nix::sys::signal::Signal, u64)> {
        let signal = match self.signal? {
            ProbeSignal::Int => nix::sys::signal::Signal::SIGINT,
        };
        Some((signal, self.after_lines?))
    }
}
