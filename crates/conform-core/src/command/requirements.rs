//! The requirement map: every requirement of the CLI Agent Spec, with the checks of
//! the catalog that judge it, or why none does. `conform checks --requirements`
//! prints it, and `docs/requirements.md` is that output (a test keeps them equal).
//!
//! IDs, titles and priorities are the spec's (its `requirements/*.md` pages); which
//! check judges what comes from the catalog itself (each check's `requirements`),
//! so a new check moves its rows with no edit here. The reasons are conform's.

use serde_json::{json, Value};

use crate::checks::CATALOG;

/// Where the list comes from.
pub(crate) const SPEC: &str = "cli-agent-spec/cli-agent-spec at 6e163a8 (its 158 requirement pages), and REQ-F-079, which a later revision added and argument_order cites";

/// Why no check judges a requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Why {
    /// What it asks is a declaration only the tool's manifest holds.
    Manifest,
    /// Judging it needs an input or a kind of command the profile cannot name.
    Profile,
    /// Nothing a run shows from outside the process tells.
    Inside,
    /// A check for it is specified in the catalog and not built yet.
    Planned,
    /// A run shows it, and no check reads it yet.
    Open,
}

impl Why {
    fn code(self) -> &'static str {
        match self {
            Why::Manifest => "needs_manifest",
            Why::Profile => "needs_profile_field",
            Why::Inside => "not_observable",
            Why::Planned => "planned",
            Why::Open => "no_check_yet",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Why::Manifest => "needs the manifest",
            Why::Profile => "needs a profile field",
            Why::Inside => "cannot be seen from outside",
            Why::Planned => "planned",
            Why::Open => "no check yet",
        }
    }
}

/// One requirement of the spec.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Requirement {
    pub id: &'static str,
    pub priority: &'static str,
    pub title: &'static str,
    /// Why no check judges it; unused once one does.
    pub unjudged: Option<(Why, &'static str)>,
}

/// Every requirement, by ID.
pub(crate) const REQUIREMENTS: &[Requirement] = &[
    Requirement { id: "REQ-C-001", priority: "P0", title: "Command Declares Exit Codes", unjudged: None },
    Requirement { id: "REQ-C-002", priority: "P0", title: "Command Declares Danger Level", unjudged: None },
    Requirement { id: "REQ-C-003", priority: "P0", title: "Mutating Commands Declare effect Field", unjudged: Some((Why::Manifest, "a field of mutating commands; manifest_valid checks its shape, and no check reads it: mutating commands run only as conform check's check-only probes, none of them twice")) },
    Requirement { id: "REQ-C-004", priority: "P0", title: "Destructive Commands Must Support --dry-run", unjudged: None },
    Requirement { id: "REQ-C-005", priority: "P0", title: "Interactive Commands Must Support --yes / --non-interactive", unjudged: None },
    Requirement { id: "REQ-C-006", priority: "P0", title: "All Args Validated in Phase 1", unjudged: None },
    Requirement { id: "REQ-C-007", priority: "P1", title: "Mutating Commands Accept --idempotency-key", unjudged: Some((Why::Profile, "needs a mutating command run twice with one key; no probe kind runs mutating commands")) },
    Requirement { id: "REQ-C-008", priority: "P1", title: "Multi-Step Commands Emit Step Manifest", unjudged: Some((Why::Profile, "needs a multi-step command to run; no probe kind marks one")) },
    Requirement { id: "REQ-C-009", priority: "P1", title: "Multi-Step Commands Report completed/failed/skipped", unjudged: Some((Why::Profile, "needs a multi-step command run into a partial failure; no probe kind marks one")) },
    Requirement { id: "REQ-C-010", priority: "P2", title: "Background-Process Commands Declare Metadata", unjudged: Some((Why::Manifest, "a declaration in the manifest; manifest_valid checks its shape, no check its truth (spawns_background_process, cleanup_command)")) },
    Requirement { id: "REQ-C-011", priority: "P3", title: "Commands Declare Filesystem Side Effects", unjudged: Some((Why::Manifest, "a declaration in the manifest; manifest_valid checks its shape, no check its truth (filesystem_side_effects)")) },
    Requirement { id: "REQ-C-012", priority: "P0", title: "Commands with Network I/O Support --timeout", unjudged: None },
    Requirement { id: "REQ-C-013", priority: "P0", title: "Error Responses Include Code and Message", unjudged: None },
    Requirement { id: "REQ-C-014", priority: "P1", title: "Error Responses Include retryable and retry_after_ms", unjudged: None },
    Requirement { id: "REQ-C-015", priority: "P1", title: "Commands Declare Input and Output Schema", unjudged: None },
    Requirement { id: "REQ-C-016", priority: "P1", title: "Secrets Accepted Only via Env Var or File", unjudged: None },
    Requirement { id: "REQ-C-017", priority: "P1", title: "Commands Register cleanup() Hook", unjudged: Some((Why::Inside, "a framework hook; it shows only when a mutation is interrupted, which probes never do")) },
    Requirement { id: "REQ-C-018", priority: "P3", title: "Commands Declare Platform Requirements", unjudged: Some((Why::Manifest, "a declaration in the manifest; manifest_valid checks its shape, no check its truth (platform, required_tools)")) },
    Requirement { id: "REQ-C-019", priority: "P1", title: "Subprocess-Invoking Commands Declare Argument Schema", unjudged: Some((Why::Manifest, "a declaration in the manifest; manifest_valid checks its shape, no check its truth (subprocess)")) },
    Requirement { id: "REQ-C-020", priority: "P1", title: "Resource ID Fields Declare Validation Pattern", unjudged: Some((Why::Manifest, "a declaration in the manifest; manifest_valid checks its shape, no check its truth (validation patterns)")) },
    Requirement { id: "REQ-C-021", priority: "P0", title: "Auth Commands Declare Headless Mode Support", unjudged: None },
    Requirement { id: "REQ-C-022", priority: "P0", title: "Async Commands Declare Job Descriptor Schema", unjudged: Some((Why::Manifest, "a declaration in the manifest; manifest_valid checks its shape, no check its truth (async, job_descriptor_schema)")) },
    Requirement { id: "REQ-C-023", priority: "P1", title: "Editor-Requiring Commands Declare Non-Interactive Alternative", unjudged: Some((Why::Manifest, "a declaration in the manifest; manifest_valid checks its shape, no check its truth (requires_editor, non_interactive_alternatives); editor_not_invoked judges the behaviour")) },
    Requirement { id: "REQ-C-024", priority: "P1", title: "GUI-Launching Commands Declare Headless Behavior", unjudged: Some((Why::Manifest, "a declaration in the manifest; manifest_valid checks its shape, no check its truth (gui_operations, headless_behavior); browser_not_launched judges the behaviour")) },
    Requirement { id: "REQ-C-025", priority: "P0", title: "Config-Writing Commands Declare Write Scope", unjudged: Some((Why::Manifest, "a declaration in the manifest; manifest_valid checks its shape, no check its truth (config_write_scope)")) },
    Requirement { id: "REQ-C-026", priority: "P1", title: "Commands Declare Conditional Argument Dependencies", unjudged: Some((Why::Manifest, "a declaration in the manifest; manifest_valid checks its shape, no check its truth (requires)")) },
    Requirement { id: "REQ-C-027", priority: "P1", title: "Commands Declare Option Placement Convention", unjudged: Some((Why::Manifest, "a declaration in the manifest; manifest_valid checks its shape, no check its truth (option_placement); argument_order judges placement itself")) },
    Requirement { id: "REQ-C-028", priority: "P1", title: "ALREADY_EXISTS Response Pattern", unjudged: Some((Why::Profile, "needs a create command run twice; no probe kind runs mutating commands")) },
    Requirement { id: "REQ-C-029", priority: "P0", title: "Command Declares Required Scopes", unjudged: Some((Why::Manifest, "a declaration in the manifest; manifest_valid checks its shape, no check its truth (required_scopes)")) },
    Requirement { id: "REQ-C-030", priority: "P1", title: "Error Responses Include Executable fix_command", unjudged: Some((Why::Open, "error envelopes are seen in every run; no check reads fix_command yet")) },
    Requirement { id: "REQ-F-001", priority: "P0", title: "Standard Exit Code Table", unjudged: None },
    Requirement { id: "REQ-F-002", priority: "P0", title: "Exit Code 2 Reserved for Validation Failures", unjudged: None },
    Requirement { id: "REQ-F-003", priority: "P0", title: "JSON Output Mode Auto-Activation", unjudged: None },
    Requirement { id: "REQ-F-004", priority: "P0", title: "Consistent JSON Response Envelope", unjudged: None },
    Requirement { id: "REQ-F-005", priority: "P0", title: "Locale-Invariant Serialization", unjudged: None },
    Requirement { id: "REQ-F-006", priority: "P0", title: "Stdout/Stderr Stream Enforcement", unjudged: None },
    Requirement { id: "REQ-F-007", priority: "P0", title: "ANSI/Color Code Suppression", unjudged: None },
    Requirement { id: "REQ-F-008", priority: "P0", title: "NO_COLOR and CI Environment Detection", unjudged: None },
    Requirement { id: "REQ-F-009", priority: "P0", title: "Non-Interactive Mode Auto-Detection", unjudged: None },
    Requirement { id: "REQ-F-010", priority: "P0", title: "Pager Suppression", unjudged: None },
    Requirement { id: "REQ-F-011", priority: "P0", title: "Default Timeout Per Command", unjudged: None },
    Requirement { id: "REQ-F-012", priority: "P0", title: "Timeout Exit Code and JSON Error", unjudged: None },
    Requirement { id: "REQ-F-013", priority: "P0", title: "SIGTERM Handler Installation", unjudged: None },
    Requirement { id: "REQ-F-014", priority: "P0", title: "SIGPIPE Handler Installation", unjudged: None },
    Requirement { id: "REQ-F-015", priority: "P0", title: "Validate-Before-Execute Phase Order", unjudged: None },
    Requirement { id: "REQ-F-016", priority: "P1", title: "UTF-8 Sanitization Before Serialization", unjudged: Some((Why::Profile, "needs input carrying invalid UTF-8 that reaches the output; no probe kind supplies it")) },
    Requirement { id: "REQ-F-017", priority: "P1", title: "Binary Field Base64 Encoding", unjudged: Some((Why::Profile, "needs a command that returns binary data; no probe kind marks one")) },
    Requirement { id: "REQ-F-018", priority: "P0", title: "Pagination Metadata on List Commands", unjudged: None },
    Requirement { id: "REQ-F-019", priority: "P0", title: "Default Output Limit", unjudged: None },
    Requirement { id: "REQ-F-020", priority: "P2", title: "Stable Array Sorting in JSON Output", unjudged: Some((Why::Profile, "needs data whose source order varies between runs; a profile cannot arrange it")) },
    Requirement { id: "REQ-F-021", priority: "P1", title: "Data/Meta Separation in Response Envelope", unjudged: Some((Why::Inside, "which values are volatile only the tool knows; json_envelope checks the envelope's shape")) },
    Requirement { id: "REQ-F-022", priority: "P1", title: "Schema Version in Every Response", unjudged: None },
    Requirement { id: "REQ-F-023", priority: "P1", title: "Tool Version in Every Response", unjudged: None },
    Requirement { id: "REQ-F-024", priority: "P2", title: "Request ID and Trace ID in Every Response", unjudged: Some((Why::Open, "meta.request_id and meta.trace_id are seen in every envelope; no check reads them yet")) },
    Requirement { id: "REQ-F-025", priority: "P2", title: "TOOL_TRACE_ID Environment Variable Propagation", unjudged: Some((Why::Open, "a run could set the trace variable and read it back from meta; no check does yet")) },
    Requirement { id: "REQ-F-026", priority: "P2", title: "Append-Only Audit Log", unjudged: Some((Why::Inside, "a log the tool keeps; where it lives and what it holds is the tool's own")) },
    Requirement { id: "REQ-F-027", priority: "P2", title: "CWD in Response Meta", unjudged: Some((Why::Open, "meta.cwd is seen in every envelope; no check reads it yet")) },
    Requirement { id: "REQ-F-028", priority: "P1", title: "Config Source Tracking in Response Meta", unjudged: Some((Why::Profile, "needs a config file in place for the run to track; a profile cannot supply one")) },
    Requirement { id: "REQ-F-029", priority: "P1", title: "Auto-Update Suppression in Non-Interactive Mode", unjudged: None },
    Requirement { id: "REQ-F-030", priority: "P2", title: "Child Process Session Tracking", unjudged: None },
    Requirement { id: "REQ-F-031", priority: "P2", title: "SIGTERM Forwarding to Tracked Children", unjudged: Some((Why::Profile, "needs a command that starts children; no probe kind marks one")) },
    Requirement { id: "REQ-F-032", priority: "P2", title: "Session-Scoped Temp Directory", unjudged: Some((Why::Inside, "where the tool puts its files inside TMPDIR is its own")) },
    Requirement { id: "REQ-F-033", priority: "P2", title: "Lock Acquisition with Timeout and retry_after_ms", unjudged: Some((Why::Profile, "needs two runs contending for one lock; a profile cannot arrange it")) },
    Requirement { id: "REQ-F-034", priority: "P1", title: "Secret Field Auto-Redaction in Logs", unjudged: None },
    Requirement { id: "REQ-F-035", priority: "P1", title: "External Data Trust Tagging", unjudged: Some((Why::Profile, "needs a command that returns third-party content; no probe kind marks one")) },
    Requirement { id: "REQ-F-036", priority: "P1", title: "HTTP Client Proxy Environment Variable Compliance", unjudged: Some((Why::Open, "the black-hole proxy shows whether a run honours the proxy variables; no check judges it yet")) },
    Requirement { id: "REQ-F-037", priority: "P1", title: "Network Error Context Block", unjudged: Some((Why::Manifest, "needs the manifest's has_network_io to provoke a network error")) },
    Requirement { id: "REQ-F-038", priority: "P2", title: "Verbosity Auto-Quiet in Non-TTY Context", unjudged: Some((Why::Open, "what a piped run writes to stderr is seen; no check judges its volume yet")) },
    Requirement { id: "REQ-F-039", priority: "P1", title: "Duration Tracking in Response Meta", unjudged: Some((Why::Open, "meta.duration_ms is seen in every envelope; json_envelope checks only the published shape")) },
    Requirement { id: "REQ-F-040", priority: "P2", title: "Absolute Path Output Enforcement", unjudged: Some((Why::Profile, "needs a command that outputs paths; no probe kind marks one")) },
    Requirement { id: "REQ-F-041", priority: "P2", title: "Process CWD Immutability", unjudged: Some((Why::Inside, "the process's own working directory cannot be seen from outside")) },
    Requirement { id: "REQ-F-042", priority: "P3", title: "Log Rotation in Framework Logger", unjudged: Some((Why::Inside, "log rotation happens inside the tool's own files over time")) },
    Requirement { id: "REQ-F-043", priority: "P2", title: "Temp File Session-Scoped Auto-Cleanup", unjudged: Some((Why::Open, "the isolated runs' TMPDIR shows what is left; only invalid probes are judged on it yet")) },
    Requirement { id: "REQ-F-044", priority: "P0", title: "Shell Argument Escaping Enforcement", unjudged: None },
    Requirement { id: "REQ-F-045", priority: "P0", title: "Agent Hallucination Input Pattern Rejection", unjudged: None },
    Requirement { id: "REQ-F-046", priority: "P0", title: "Pager Environment Variable Suppression", unjudged: None },
    Requirement { id: "REQ-F-047", priority: "P0", title: "REPL Mode Prohibition in Non-TTY Context", unjudged: None },
    Requirement { id: "REQ-F-048", priority: "P0", title: "Help Output Routing to Stderr in Non-TTY Mode", unjudged: None },
    Requirement { id: "REQ-F-049", priority: "P1", title: "Async Command Handler Enforcement", unjudged: Some((Why::Inside, "a rule on the framework's handler code")) },
    Requirement { id: "REQ-F-050", priority: "P1", title: "Update Notifier Side-Channel Suppression", unjudged: None },
    Requirement { id: "REQ-F-051", priority: "P0", title: "Debug and Trace Mode Secret Redaction", unjudged: None },
    Requirement { id: "REQ-F-052", priority: "P0", title: "Response Size Hard Cap with Truncation Indicator", unjudged: None },
    Requirement { id: "REQ-F-053", priority: "P0", title: "Stdout Unbuffering in Non-TTY Mode", unjudged: Some((Why::Open, "stream_sigint fails a buffered stream as a side effect; no check claims the requirement")) },
    Requirement { id: "REQ-F-054", priority: "P0", title: "Stdin Payload Size Cap with --input-file Fallback", unjudged: None },
    Requirement { id: "REQ-F-055", priority: "P0", title: "$EDITOR and $VISUAL No-Op in Non-TTY Mode", unjudged: None },
    Requirement { id: "REQ-F-056", priority: "P0", title: "Terminal Width Wrapping Disabled in JSON Mode", unjudged: None },
    Requirement { id: "REQ-F-057", priority: "P0", title: "Headless Environment Detection and GUI Suppression", unjudged: None },
    Requirement { id: "REQ-F-058", priority: "P1", title: "High-Entropy Field Masking", unjudged: Some((Why::Profile, "needs a command that returns a secret-like value; no probe kind marks one")) },
    Requirement { id: "REQ-F-059", priority: "P1", title: "JSON5 Input Normalization", unjudged: Some((Why::Profile, "needs a command that takes JSON input; no probe kind supplies it")) },
    Requirement { id: "REQ-F-060", priority: "P1", title: "Third-Party Stdout Interception", unjudged: Some((Why::Inside, "a library printing to stdout shows only on the code paths that load it")) },
    Requirement { id: "REQ-F-061", priority: "P1", title: "Symlink Loop Detection in Traversal Utilities", unjudged: Some((Why::Profile, "needs a traversal command pointed at a symlink loop; a profile cannot arrange it")) },
    Requirement { id: "REQ-F-062", priority: "P0", title: "Glob Expansion and Word-Splitting Prevention", unjudged: Some((Why::Profile, "needs a command that takes a path with glob characters; no probe kind marks one")) },
    Requirement { id: "REQ-F-063", priority: "P1", title: "Credential Expiry Structured Error", unjudged: None },
    Requirement { id: "REQ-F-064", priority: "P1", title: "Output Truncation Detection and Warning", unjudged: Some((Why::Profile, "needs a command whose output a downstream limit cuts; a profile cannot arrange it")) },
    Requirement { id: "REQ-F-065", priority: "P0", title: "Pipeline Exit Code Propagation", unjudged: Some((Why::Profile, "needs a command that runs a pipeline of its own; no probe kind marks one")) },
    Requirement { id: "REQ-F-066", priority: "P1", title: "Subprocess Locale Normalization", unjudged: Some((Why::Profile, "needs a command that parses a subprocess's output; no probe kind marks one")) },
    Requirement { id: "REQ-F-067", priority: "P1", title: "Interspersed Option Parsing", unjudged: None },
    Requirement { id: "REQ-F-068", priority: "P0", title: "Help and Version Flag Purity", unjudged: None },
    Requirement { id: "REQ-F-069", priority: "P0", title: "SIGINT Handler Installation", unjudged: None },
    Requirement { id: "REQ-F-070", priority: "P1", title: "Atomic Write via Rename", unjudged: Some((Why::Inside, "a torn write shows only when a crash interrupts it")) },
    Requirement { id: "REQ-F-071", priority: "P1", title: "File Descriptor Leak Prevention", unjudged: None },
    Requirement { id: "REQ-F-072", priority: "P1", title: "LF Line Ending Enforcement", unjudged: None },
    Requirement { id: "REQ-F-073", priority: "P1", title: "Environment Variable Namespace Prefix", unjudged: None },
    Requirement { id: "REQ-F-074", priority: "P1", title: "JSON Null/Absent/Empty Convention", unjudged: Some((Why::Manifest, "which fields may be null, absent or empty is the manifest's output_schema to say")) },
    Requirement { id: "REQ-F-075", priority: "P1", title: "Subcommand Additive Stability", unjudged: Some((Why::Inside, "needs two versions of the tool to compare")) },
    Requirement { id: "REQ-F-076", priority: "P1", title: "First-Run Init Isolation", unjudged: Some((Why::Planned, "deferred in the catalog: two runs in one kept sandbox per read probe")) },
    Requirement { id: "REQ-F-077", priority: "P2", title: "Telemetry Non-Blocking", unjudged: None },
    Requirement { id: "REQ-F-078", priority: "P2", title: "Retry Count in Response Meta", unjudged: Some((Why::Profile, "needs a command that retries against a failing service; a profile cannot arrange it")) },
    Requirement { id: "REQ-F-079", priority: "P1", title: "Global Option Scope", unjudged: None },
    Requirement { id: "REQ-O-001", priority: "P0", title: "--output Format Flag", unjudged: Some((Why::Manifest, "only the manifest names the format flag; argument_order moves the profile's global_flag but judges placement")) },
    Requirement { id: "REQ-O-002", priority: "P2", title: "--fields Selector", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-003", priority: "P0", title: "--limit and --cursor Pagination Flags", unjudged: None },
    Requirement { id: "REQ-O-004", priority: "P2", title: "--output jsonl / --stream Flag", unjudged: None },
    Requirement { id: "REQ-O-005", priority: "P3", title: "--output id Extraction Mode", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-006", priority: "P3", title: "Stdin as ID Source (-)", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-007", priority: "P3", title: "--stable-output Flag", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-008", priority: "P1", title: "--quiet / --verbose / --debug Verbosity Flags", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-009", priority: "P1", title: "--validate-only Flag", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-010", priority: "P2", title: "--resume-from Flag for Multi-Step Commands", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-011", priority: "P2", title: "--rollback-on-failure Flag", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-012", priority: "P2", title: "--heartbeat-interval Flag", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-013", priority: "P1", title: "--schema / --output-schema Flag", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-014", priority: "P2", title: "--schema-version Compatibility Flag", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-015", priority: "P1", title: "--show-config Flag", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-016", priority: "P1", title: "--no-config Flag", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-017", priority: "P2", title: "--cwd / --root Flag", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-018", priority: "P3", title: "--no-cache and --cache-ttl Flags", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-019", priority: "P2", title: "--proxy and --no-proxy Flags", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-020", priority: "P1", title: "--no-update-check Flag", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-021", priority: "P0", title: "--confirm-destructive Flag", unjudged: None },
    Requirement { id: "REQ-O-022", priority: "P1", title: "--secret-from-env / --secret-from-file Flags", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-023", priority: "P3", title: "--no-injection-protection Flag", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-024", priority: "P1", title: "--context / --config Override Flag", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-025", priority: "P3", title: "--warnings-as-errors Flag", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-026", priority: "P1", title: "tool doctor Built-In Command", unjudged: Some((Why::Manifest, "an opt-in built-in command: only the manifest says whether the tool has it, and no check runs it yet")) },
    Requirement { id: "REQ-O-027", priority: "P2", title: "tool cleanup Built-In Command", unjudged: Some((Why::Manifest, "an opt-in built-in command: only the manifest says whether the tool has it, and no check runs it yet")) },
    Requirement { id: "REQ-O-028", priority: "P2", title: "tool status Built-In Command", unjudged: Some((Why::Manifest, "an opt-in built-in command: only the manifest says whether the tool has it, and no check runs it yet")) },
    Requirement { id: "REQ-O-029", priority: "P2", title: "tool changelog Built-In Command", unjudged: Some((Why::Manifest, "an opt-in built-in command: only the manifest says whether the tool has it, and no check runs it yet")) },
    Requirement { id: "REQ-O-030", priority: "P2", title: "tool audit-log Built-In Command", unjudged: Some((Why::Manifest, "an opt-in built-in command: only the manifest says whether the tool has it, and no check runs it yet")) },
    Requirement { id: "REQ-O-031", priority: "P1", title: "Dependency Version Matrix Declaration", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-032", priority: "P1", title: "--raw-payload Flag for Mutating Commands", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-033", priority: "P0", title: "--headless and --token-env-var Flags for Auth Commands", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-034", priority: "P2", title: "tool generate-skills Built-In Command", unjudged: Some((Why::Manifest, "an opt-in built-in command: only the manifest says whether the tool has it, and no check runs it yet")) },
    Requirement { id: "REQ-O-035", priority: "P2", title: "tool mcp-validate Built-In Command", unjudged: Some((Why::Manifest, "an opt-in built-in command: only the manifest says whether the tool has it, and no check runs it yet")) },
    Requirement { id: "REQ-O-036", priority: "P1", title: "--instance-id Flag for Agent State Namespacing", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-037", priority: "P2", title: "--unmask Flag for High-Entropy Fields", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-038", priority: "P1", title: "--heartbeat-ms Flag for Long-Running Commands", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-039", priority: "P1", title: "--input-file Flag for Stdin Commands", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-040", priority: "P1", title: "--no-follow-symlinks Flag for Traversal Commands", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-041", priority: "P1", title: "tool manifest Built-In Command", unjudged: None },
    Requirement { id: "REQ-O-042", priority: "P2", title: "Output Format Environment Variable Default", unjudged: None },
    Requirement { id: "REQ-O-043", priority: "P1", title: "AGENTS.md Required Content", unjudged: Some((Why::Inside, "a document in the tool's repository, not something the tool does")) },
    Requirement { id: "REQ-O-044", priority: "P1", title: "Non-Interactive Install Command Documentation", unjudged: Some((Why::Inside, "documentation, not something the tool does")) },
    Requirement { id: "REQ-O-045", priority: "P1", title: "Integration Artifact Version Declaration", unjudged: Some((Why::Inside, "integration artifacts shipped beside the tool, not something it does")) },
    Requirement { id: "REQ-O-046", priority: "P2", title: "AGENTS.md CI Validation", unjudged: Some((Why::Inside, "the tool's own CI, not something the tool does")) },
    Requirement { id: "REQ-O-047", priority: "P0", title: "tool check-permissions Built-In Command", unjudged: Some((Why::Manifest, "an opt-in built-in command: only the manifest says whether the tool has it, and no check runs it yet")) },
    Requirement { id: "REQ-O-048", priority: "P0", title: "Destructive Commands Default to Dry-Run Mode", unjudged: Some((Why::Manifest, "needs the manifest's safe_default and confirm_flag to know the default; destructive probes always run with their dry-run flag")) },
    Requirement { id: "REQ-O-049", priority: "P2", title: "LLM Token Budget Flags", unjudged: Some((Why::Manifest, "an opt-in flag: only the manifest says whether the tool offers it, and no check reads it yet")) },
    Requirement { id: "REQ-O-050", priority: "P2", title: "tool exec Built-In Command", unjudged: Some((Why::Manifest, "an opt-in built-in command: only the manifest says whether the tool has it, and no check runs it yet")) },
];

/// The checks that judge `id`, in catalog order.
pub(crate) fn judged_by(id: &str) -> Vec<&'static str> {
    CATALOG
        .iter()
        .filter(|spec| spec.requirements.contains(&id))
        .map(|spec| spec.name)
        .collect()
}

/// How many requirements a check judges, and how many there are.
pub(crate) fn counts() -> (usize, usize) {
    let judged = REQUIREMENTS
        .iter()
        .filter(|r| !judged_by(r.id).is_empty())
        .count();
    (judged, REQUIREMENTS.len())
}

/// The sentence that opens the map, also quoted in the README.
pub(crate) fn headline() -> String {
    let (judged, total) = counts();
    format!("conform judges {judged} of the spec's {total} requirements.")
}

/// The map as the envelope's `data`.
pub(crate) fn to_json() -> Value {
    let (judged, total) = counts();
    let rows: Vec<Value> = REQUIREMENTS
        .iter()
        .map(|r| {
            let checks = judged_by(r.id);
            let why = match (checks.is_empty(), r.unjudged) {
                (true, Some((why, reason))) => json!({ "kind": why.code(), "reason": reason }),
                _ => Value::Null,
            };
            json!({
                "id": r.id,
                "priority": r.priority,
                "title": r.title,
                "checks": checks,
                "unjudged": why,
            })
        })
        .collect();
    json!({
        "spec": SPEC,
        "judged": judged,
        "total": total,
        "requirements": rows,
    })
}

/// The map as a Markdown table, after its headline: what `docs/requirements.md`
/// holds below its title.
pub(crate) fn to_markdown() -> String {
    let mut text = format!(
        "{}\n\nSource: {SPEC}.\n\n| requirement | priority | title | judged by |\n|---|---|---|---|\n",
        headline()
    );
    for r in REQUIREMENTS {
        let checks = judged_by(r.id);
        let judged = if checks.is_empty() {
            match r.unjudged {
                Some((why, reason)) => format!("none: {} ({})", why.label(), reason),
                None => "none".to_string(),
            }
        } else {
            checks
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        text.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            r.id,
            r.priority,
            r.title.replace('|', "\\|"),
            judged.replace('|', "\\|")
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_requirement_a_check_cites_is_listed() {
        for spec in CATALOG {
            for id in spec.requirements {
                assert!(
                    REQUIREMENTS.iter().any(|r| r.id == *id),
                    "{} cites {id}, which the map does not list",
                    spec.name
                );
            }
        }
    }

    #[test]
    fn every_requirement_is_judged_or_says_why_not() {
        for r in REQUIREMENTS {
            assert!(
                !judged_by(r.id).is_empty() || r.unjudged.is_some(),
                "{} has no check and no reason",
                r.id
            );
        }
    }

    #[test]
    fn ids_are_unique_well_formed_and_in_order() {
        let ids: Vec<&str> = REQUIREMENTS.iter().map(|r| r.id).collect();
        let mut sorted = ids.clone();
        sorted.sort_by_key(|id| (id.as_bytes()[4], id[6..].parse::<u32>().unwrap_or(0)));
        sorted.dedup();
        assert_eq!(ids, sorted);
        for r in REQUIREMENTS {
            assert!(r.id.len() == 9 && r.id.starts_with("REQ-"), "{}", r.id);
            assert!(["P0", "P1", "P2", "P3"].contains(&r.priority), "{}", r.id);
        }
        assert_eq!(ids.len(), 159);
    }
}
