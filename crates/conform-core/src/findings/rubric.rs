//! The spec's own scoring: each failure mode's **Evaluation** table, read from its
//! challenge page, with each row's conditions as facts conform's runs can show.
//!
//! This file is data. How a table scores a mode is `score.rs`; the rule in words,
//! mode by mode, is `docs/findings.md`.

/// The commit of cli-agent-spec/cli-agent-spec the tables below were read from.
pub(crate) const SOURCE_COMMIT: &str = "6e163a8267fcdb107bae43c7bf14fb46ac2a47f1";

/// What a run that failed a check was seen doing, by the check's subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Did {
    /// Reached its limit (or the network patience) without exiting.
    Hang,
    /// Ended its output on a question while it waited.
    Prompt,
    /// A megabyte or more of output.
    Flood,
    /// Opened a browser outside an authentication flow.
    Browser,
    /// Opened a browser in an authentication flow (a login command, a login,
    /// authorize or device URL, or a wait for a code after it).
    AuthBrowser,
    Editor,
    Pager,
    Installer,
    /// A destructive command acted without confirmation.
    Acted,
    /// A preview changed something.
    PreviewActed,
    /// A canary secret was seen in output or a loose file.
    Leaked,
    /// An injected shell command ran.
    Injected,
    /// A made-up identifier (`../P`, `P%2F`) was used as given (exit 0, or looked
    /// up: exit 5), not refused.
    UsedAsGiven,
}

/// A condition of a row, as conform can tell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fact {
    /// The check failed, on a run this mode counts.
    Failed(&'static str),
    /// Every one of these checks failed, each failing run exiting 1.
    AllExitOne(&'static [&'static str]),
    /// A run failing one of the mode's checks did this.
    Saw(Did),
    /// The check judged and passed.
    Passed(&'static str),
    /// The check recorded a note: what its runs showed without failing it (a
    /// secret flag beside its variable; a network wait ended in prose).
    Noted(&'static str),
    /// No black-box run shows it (or none conform makes): caps the score at the
    /// row below, and the finding names it.
    Unobservable(&'static str),
}

/// One failure mode's Evaluation table.
///
/// The score is the highest row whose conditions the runs showed with no lower
/// row's condition seen: a `zero` fact seen scores 0; else a `one` fact, or a
/// failure of any other check of the mode not in `two_despite`, scores 1; else a
/// failure in `two_despite` scores 2; else `needs_two` must be shown (a check in it
/// not judged leaves the mode unscored; an unobservable one too), and `needs_three`
/// makes the 3 (one not shown caps at 2).
#[derive(Debug)]
pub(crate) struct Rubric {
    pub mode: u16,
    /// The challenge page, under `challenges/` of the spec.
    pub page: &'static str,
    /// The page's conditions for 0, 1, 2 and 3, shortened.
    pub rows: [&'static str; 4],
    pub zero: &'static [Fact],
    pub one: &'static [Fact],
    /// Checks whose failure the page places below 3 but at no lower row.
    pub two_despite: &'static [&'static str],
    pub needs_two: &'static [Fact],
    pub needs_three: &'static [Fact],
    /// What another mode's table judges: a run that did only these is not this
    /// mode's finding.
    pub not_here: &'static [Did],
}

use Did::*;
use Fact::*;

/// The tables of every mode a check of conform maps to.
pub(crate) const RUBRICS: &[Rubric] = &[
    Rubric {
        mode: 1,
        page: "04-critical-output-and-parsing/01-critical-exit-codes.md",
        rows: [
            "binary 0/1 only: all failures exit 1",
            "some semantic codes, undocumented or inconsistent across commands",
            "named codes for validation, not-found, timeout, permission; consistent",
            "a declared exit code table; the code in the JSON error body; each command's codes in the manifest",
        ],
        zero: &[AllExitOne(&["unknown_command_exit_2", "invalid_input_exit_2"])],
        one: &[],
        two_despite: &[],
        needs_two: &[],
        needs_three: &[Passed("exit_codes_declared"), Passed("exit_code_contract")],
        not_here: &[],
    },
    Rubric {
        mode: 2,
        page: "04-critical-output-and-parsing/02-critical-output-format.md",
        rows: [
            "no structured output mode: tables, prose or locale-dependent text only",
            "JSON on some commands, format varies, prose mixed into stdout",
            "JSON on all commands with a consistent ok/data/error structure",
            "the full envelope, auto-activated when CI=true or stdout is not a terminal",
        ],
        zero: &[],
        one: &[],
        two_despite: &[],
        needs_two: &[],
        needs_three: &[Passed("json_envelope"), Passed("ci_terminal_json")],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 3,
        page: "04-critical-output-and-parsing/03-high-stderr-stdout.md",
        rows: [
            "progress, warnings and help text mixed into stdout with data",
            "some prose leaks to stdout (\"Done.\", help on a bad invocation)",
            "diagnostics on stderr, data only on stdout, warnings in warnings[]",
            "help on stderr when not a terminal; --quiet silences stderr; --warnings-as-errors",
        ],
        zero: &[],
        one: &[],
        two_despite: &[],
        needs_two: &[],
        needs_three: &[
            Passed("help_off_stdout"),
            Unobservable("`--quiet` silencing all stderr and `--warnings-as-errors`: no run conform makes shows them"),
        ],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 5,
        page: "04-critical-output-and-parsing/05-high-pagination.md",
        rows: [
            "lists return every result: no has_more, total or next_cursor",
            "--limit exists but no pagination metadata",
            "a pagination object with total, has_more, next_cursor; --cursor accepted",
            "a default limit of at most 100; a JSONL mode; truncated: true when output is cut",
        ],
        zero: &[],
        one: &[],
        two_despite: &["lf_line_endings", "profile_consistency", "stream_contract"],
        needs_two: &[],
        needs_three: &[
            Passed("pagination_contract"),
            Unobservable("a default limit on a list of more than 100 items: conform has no such data"),
        ],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 8,
        page: "04-critical-output-and-parsing/08-high-ansi-leakage.md",
        rows: [
            "ANSI sequences in piped output unconditionally",
            "a --no-color flag, but some sequences remain",
            "sequences stripped with NO_COLOR=1 or when not a terminal",
            "stripped without any flag; NO_COLOR, CI and TERM=dumb all respected",
        ],
        zero: &[Failed("stdout_no_ansi")],
        one: &[],
        two_despite: &["ci_terminal_json"],
        needs_two: &[],
        needs_three: &[
            Passed("stdout_no_ansi"),
            Passed("no_color_honored"),
            Passed("tty_no_color"),
        ],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 10,
        page: "02-critical-execution-and-reliability/10-critical-interactivity.md",
        rows: [
            "an interactive path (prompt, pager, editor) blocks when stdin is not a terminal",
            "--yes on some commands; a pager or editor still triggers on other paths",
            "--yes or --non-interactive on every interactive command; no pager when piped",
            "no terminal detected: every prompt suppressed without flags; PAGER, EDITOR, VISUAL no-ops",
        ],
        zero: &[Saw(Hang), Saw(Prompt), Saw(Pager), Saw(Editor), Saw(AuthBrowser)],
        one: &[],
        two_despite: &[],
        needs_two: &[],
        needs_three: &[
            Passed("no_hang_stdin_closed"),
            Passed("pager_not_invoked"),
            Passed("editor_not_invoked"),
        ],
        not_here: &[Browser, Acted, Flood],
    },
    Rubric {
        mode: 11,
        page: "02-critical-execution-and-reliability/11-critical-timeouts.md",
        rows: [
            "no timeout: commands hang on the network or a lock",
            "a --timeout flag, but text output and a non-specific exit (1)",
            "a structured TIMEOUT error with a defined exit",
            "a partial result (completed_steps, resume_token, meta.duration_ms); --heartbeat-interval",
        ],
        zero: &[Saw(Hang)],
        one: &[
            Failed("network_timeout"),
            Failed("timeout_flag"),
            Noted("network_timeout"),
        ],
        two_despite: &[],
        needs_two: &[Passed("network_timeout")],
        needs_three: &[Unobservable(
            "a partial result with completed_steps and a resume_token when the timeout fires: no run of conform's has steps to complete",
        )],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer, Flood],
    },
    Rubric {
        mode: 14,
        page: "02-critical-execution-and-reliability/14-high-arg-validation.md",
        rows: [
            "validation fails after side effects; exit 1 with a text error",
            "most arguments validated up front; the exit not told apart from a failure",
            "every argument validated first; exit 2; a structured error list",
            "every problem listed at once; a --validate-only flag",
        ],
        zero: &[Failed("invalid_input_no_side_effects")],
        one: &[],
        two_despite: &[],
        needs_two: &[],
        needs_three: &[
            Passed("invalid_input_exit_2"),
            Unobservable("every problem listed at once and `--validate-only`: each invalid probe holds one problem"),
        ],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 16,
        page: "02-critical-execution-and-reliability/16-high-signal-handling.md",
        rows: [
            "SIGTERM kills with no output; SIGPIPE prints a traceback",
            "SIGTERM handled for cleanup only, no JSON output",
            "SIGTERM emits a partial JSON result, exits 143; SIGPIPE quiet",
            "the partial result has completed_steps and resume_from; cancellable: true declared",
        ],
        zero: &[Failed("sigpipe_quiet")],
        one: &[],
        two_despite: &[],
        needs_two: &[],
        needs_three: &[
            Passed("sigterm_handled"),
            Unobservable("completed_steps and resume_from in the partial result: no run of conform's has steps to resume"),
        ],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 17,
        page: "02-critical-execution-and-reliability/17-medium-child-process-leakage.md",
        rows: [
            "children orphaned; their output reaches stdout after the parent exits",
            "a cleanup command documented, not in the output; SIGTERM not forwarded",
            "the cleanup command in the JSON output; SIGTERM forwarded to children",
            "children in a session PID file; `tool session cleanup`; spawns_background_process declared",
        ],
        zero: &[Failed("pipes_closed_on_exit")],
        one: &[],
        two_despite: &[],
        needs_two: &[],
        needs_three: &[Unobservable(
            "a session PID file and `tool session cleanup`: no run of conform's shows a tool's bookkeeping",
        )],
        not_here: &[],
    },
    Rubric {
        mode: 18,
        page: "06-high-errors-and-discoverability/18-high-error-quality.md",
        rows: [
            "errors are prose or stack traces with no machine-readable code",
            "some errors have a code; no suggestion or context",
            "every error has code, message and context; stack traces on stderr",
            "a suggestion on every recoverable error; docs_url per code; `tool errors list`",
        ],
        zero: &[],
        one: &[],
        two_despite: &[],
        needs_two: &[],
        needs_three: &[
            Passed("error_detail"),
            Unobservable("a docs_url per error code and `tool errors list`: no run of conform's asks for them"),
        ],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 19,
        page: "06-high-errors-and-discoverability/19-high-retry-hints.md",
        rows: [
            "no retryable field: transient and permanent failures look alike",
            "some errors have retryable; no retry_after_ms",
            "every error has retryable; rate limits carry retry_after_ms",
            "retry_strategy, max_retries, meta.attempt",
        ],
        zero: &[],
        one: &[],
        two_despite: &[],
        needs_two: &[],
        needs_three: &[Unobservable(
            "retry_strategy and retry_after_ms on a rate limit: conform meets no rate limit",
        )],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 21,
        page: "06-high-errors-and-discoverability/21-medium-schema-discoverability.md",
        rows: [
            "bare invocation exits non-zero, or help is prose only with no --schema",
            "bare exits 0; some structured help, no output schema",
            "`tool --schema` lists commands with parameter types, required flags, exit codes",
            "a full manifest with output_schema per command and danger_level",
        ],
        zero: &[],
        one: &[],
        two_despite: &[],
        needs_two: &[],
        needs_three: &[Passed("manifest_valid"), Passed("output_schema_valid")],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 22,
        page: "06-high-errors-and-discoverability/22-high-schema-versioning.md",
        rows: [
            "no schema_version; breaking changes silent",
            "meta.tool_version but no schema_version",
            "meta.schema_version in every response; deprecation warnings",
            "--schema-version, stability tiers, `tool changelog`",
        ],
        zero: &[],
        one: &[],
        two_despite: &[],
        needs_two: &[Passed("meta_versions")],
        needs_three: &[Unobservable(
            "`--schema-version`, stability tiers and `tool changelog`: no run of conform's asks for them",
        )],
        not_here: &[],
    },
    Rubric {
        mode: 23,
        page: "03-critical-security/23-critical-destructive-ops.md",
        rows: [
            "destructive commands act without confirmation and have no --dry-run",
            "a confirmation prompt or --yes; no --dry-run",
            "--dry-run on every destructive command; danger_level declared; an effect field",
            "confirmation enforced by the framework; audit output (operator, timestamp, reversible)",
        ],
        zero: &[Saw(Acted), Saw(PreviewActed)],
        one: &[],
        two_despite: &["profile_consistency"],
        needs_two: &[],
        needs_three: &[
            Passed("dry_run_preview"),
            Passed("destructive_refuses_unconfirmed"),
            Unobservable("audit output with operator, timestamp and reversible: conform's destructive runs stop at the confirmation"),
        ],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 24,
        page: "03-critical-security/24-critical-auth-secrets.md",
        rows: [
            "secrets accepted as arguments; errors echo them; a credential prompt hangs",
            "an environment variable exists but secret flags are still accepted",
            "secrets only from variables and files, never echoed",
            "the framework redacts *token*/*secret*/*password*/*key* everywhere; --secret-from-env/-file",
        ],
        zero: &[
            Failed("secret_flags_have_alternative"),
            Saw(Leaked),
            Saw(Hang),
            Saw(Prompt),
        ],
        one: &[Noted("secret_flags_have_alternative")],
        two_despite: &[],
        needs_two: &[Passed("secret_not_echoed")],
        needs_three: &[Unobservable(
            "redaction of every *token*/*secret*/*password*/*key* field in all output and logs: a black-box run sees only the values it planted",
        )],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 30,
        page: "05-high-environment-and-state/30-medium-filesystem-side-effects.md",
        rows: [
            "undeclared side effects; no cleanup; files accumulate",
            "--no-cache on some commands; nothing declared; no cleanup",
            "`tool status --show-side-effects`; temp paths returned",
            "filesystem_side_effects declared per command; `tool cleanup`",
        ],
        zero: &[],
        one: &[],
        two_despite: &[],
        needs_two: &[],
        needs_three: &[Unobservable(
            "side effects declared per command and `tool cleanup`: no run of conform's asks for them",
        )],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 32,
        page: "05-high-environment-and-state/32-high-self-update.md",
        rows: [
            "updates itself on invocation; the check can block the command",
            "--no-update-check exists, but the check runs by default; CI=true ignored",
            "no update with CI=true or when not a terminal; meta.update_available",
            "the update check never runs outside `tool update`",
        ],
        zero: &[Saw(Installer)],
        one: &[Failed("no_self_update")],
        two_despite: &["meta_versions"],
        needs_two: &[Passed("no_self_update")],
        needs_three: &[Unobservable(
            "no update check outside `tool update` in a terminal session: conform's runs are all CI runs",
        )],
        not_here: &[Browser, AuthBrowser, Editor, Pager],
    },
    Rubric {
        mode: 34,
        page: "01-critical-ecosystem-runtime-agent-specific/34-critical-shell-injection.md",
        rows: [
            "a shell runs agent input; path traversal accepted silently",
            "no shell mostly; no rejection of ../, %XX, ?, #",
            "no shell; path traversal refused with a structured error and suggestion",
            "../, %XX, ?, #, null bytes and \"null\" refused; agent_hardening declared",
        ],
        zero: &[Saw(Injected), Saw(UsedAsGiven)],
        one: &[],
        two_despite: &[],
        needs_two: &[Passed("hallucinated_input_rejected")],
        needs_three: &[Unobservable(
            "agent_hardening on argument declarations and null bytes refused: conform makes no run with a null byte",
        )],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 35,
        page: "01-critical-ecosystem-runtime-agent-specific/35-high-hallucination-inputs.md",
        rows: [
            "type validation only: ../, %XX and ?query accepted silently",
            "some rejection of ../; errors say \"invalid value\" with no context",
            "../ and %XX refused with a structured error holding input and suggestion",
            "the full check set; corrected_input in every rejection",
        ],
        zero: &[Saw(UsedAsGiven)],
        one: &[],
        two_despite: &[],
        needs_two: &[Passed("hallucinated_input_rejected")],
        needs_three: &[Unobservable(
            "corrected_input in every rejection and agent_hardening declared: conform reads only the exit and the envelope",
        )],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 37,
        page: "01-critical-ecosystem-runtime-agent-specific/37-critical-repl-triggering.md",
        rows: [
            "a REPL starts without a terminal and hangs",
            "a terminal check that fails silently or hangs",
            "without a terminal, exits at once with a structured error",
            "requires_interactive in --schema; a REPL guard",
        ],
        zero: &[Saw(Hang), Saw(Prompt)],
        one: &[],
        two_despite: &[],
        needs_two: &[Passed("bare_no_repl")],
        needs_three: &[Unobservable(
            "requires_interactive in the schema and a framework REPL guard: conform reads only what the bare run did",
        )],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 41,
        page: "01-critical-ecosystem-runtime-agent-specific/41-high-update-notifier.md",
        rows: [
            "an update notice on stdout breaks JSON",
            "the notice on stderr, with box drawing, every invocation",
            "suppressed with CI=true or NO_UPDATE_NOTIFIER=1",
            "only meta.update_available; rate-limited to once a week",
        ],
        zero: &[],
        one: &[],
        two_despite: &[],
        needs_two: &[Passed("no_self_update")],
        needs_three: &[Unobservable(
            "a notice rate-limited to once a week: conform's runs last minutes",
        )],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 42,
        page: "01-critical-ecosystem-runtime-agent-specific/42-critical-debug-secret-leakage.md",
        rows: [
            "debug or trace output shows secret values verbatim",
            "some redaction; errors still echo sensitive values",
            "sensitive values redacted in all trace, debug and error output",
            "--trace-safe; sensitive: true declared in the schema",
        ],
        zero: &[Saw(Leaked)],
        one: &[],
        two_despite: &[],
        needs_two: &[Passed("debug_no_secret_leak")],
        needs_three: &[Unobservable(
            "`--trace-safe` and sensitive: true in the schema: no check of conform's reads them",
        )],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 43,
        page: "01-critical-ecosystem-runtime-agent-specific/43-critical-output-size-unboundedness.md",
        rows: [
            "unbounded output; no meta.truncated; no --max-output",
            "--max-length on some commands; no meta.truncated",
            "meta.truncated and meta.total_bytes when cut; --max-output accepted",
            "a default limit per command; max_output_bytes in the schema",
        ],
        zero: &[Saw(Flood)],
        one: &[],
        two_despite: &[],
        needs_two: &[Passed("output_size_cap")],
        needs_three: &[Unobservable(
            "a default output limit on a resource larger than it: conform has no such data",
        )],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 45,
        page: "01-critical-ecosystem-runtime-agent-specific/45-critical-headless-auth.md",
        rows: [
            "a browser OAuth flow without a terminal; hangs for the redirect",
            "exits, but the error is prose; no auth_methods",
            "AUTH_REQUIRED with auth_methods, at once, without a terminal",
            "requires_auth and auth_methods in --schema; AUTH_EXPIRED apart from AUTH_REQUIRED",
        ],
        zero: &[Saw(AuthBrowser), Saw(Hang), Saw(Prompt)],
        one: &[],
        two_despite: &[],
        needs_two: &[Passed("headless_auth")],
        needs_three: &[Unobservable(
            "AUTH_EXPIRED apart from AUTH_REQUIRED: conform makes no run with expired credentials",
        )],
        not_here: &[Browser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 50,
        page: "01-critical-ecosystem-runtime-agent-specific/50-critical-stdin-deadlock.md",
        rows: [
            "blocks on a stdin read without a terminal; no error",
            "eventually fails, or an unhelpful message; no STDIN_REQUIRED",
            "exits at once with STDIN_REQUIRED and a hint",
            "stdin-reading arguments declared with stdin_fallback and non_tty_behavior",
        ],
        zero: &[Saw(Hang), Saw(Prompt)],
        one: &[],
        two_despite: &[],
        needs_two: &[Passed("no_hang_stdin_open")],
        needs_three: &[Unobservable(
            "stdin_fallback and non_tty_behavior declared: no check of conform's reads them",
        )],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 52,
        page: "01-critical-ecosystem-runtime-agent-specific/52-medium-command-tree-discovery.md",
        rows: [
            "no schema export: N+1 help calls",
            "--schema lists top-level commands only",
            "--schema returns the full tree with flags in one call",
            "the full tree with argument types and required flags, in under 500 ms",
        ],
        zero: &[],
        one: &[],
        two_despite: &[],
        needs_two: &[Passed("manifest_valid")],
        needs_three: &[Passed("profile_consistency")],
        not_here: &[],
    },
    Rubric {
        mode: 53,
        page: "01-critical-ecosystem-runtime-agent-specific/53-critical-credential-expiry.md",
        rows: [
            "expired credentials read as a permission denial",
            "\"expired\" in text only; no reauth_command",
            "CREDENTIALS_EXPIRED apart from PERMISSION_DENIED; reauth_command",
            "exit 8 on expiry apart from exit 7; reauth_env_var",
        ],
        zero: &[],
        one: &[],
        two_despite: &[],
        needs_two: &[Unobservable(
            "how expired credentials are told apart: conform makes no run with expired credentials",
        )],
        needs_three: &[],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer, Hang, Prompt],
    },
    Rubric {
        mode: 61,
        page: "01-critical-ecosystem-runtime-agent-specific/61-critical-pipe-payload-deadlock.md",
        rows: [
            "a large payload deadlocks; no --input-file; no stdin limit",
            "--input-file on some commands; no stdin limit",
            "a stdin limit: STDIN_TOO_LARGE (exit 2) with an --input-file hint",
            "stdin_input.max_bytes declared; --input-file on every stdin command",
        ],
        zero: &[Saw(Hang)],
        one: &[],
        two_despite: &[],
        needs_two: &[Passed("stdin_payload_bounded")],
        needs_three: &[Unobservable(
            "--input-file on every stdin-accepting command: no check of conform's reads it",
        )],
        not_here: &[Browser, AuthBrowser, Editor, Pager, Installer],
    },
    Rubric {
        mode: 62,
        page: "01-critical-ecosystem-runtime-agent-specific/62-critical-editor-trap.md",
        rows: [
            "$EDITOR launched without a terminal; blocked",
            "editor not launched, but the error is prose; no alternatives",
            "EDITOR_REQUIRED with alternatives, at once",
            "requires_editor declared; --content or --from-file on every editor command",
        ],
        zero: &[Saw(Editor), Saw(Hang)],
        one: &[],
        two_despite: &[],
        needs_two: &[Passed("editor_not_invoked")],
        needs_three: &[Unobservable(
            "requires_editor in the schema and a --from-file alternative: no check of conform's reads them",
        )],
        not_here: &[Browser, AuthBrowser, Pager, Installer],
    },
    Rubric {
        mode: 63,
        page: "01-critical-ecosystem-runtime-agent-specific/63-medium-column-width-corruption.md",
        rows: [
            "JSON wraps long strings at the terminal width",
            "no wrapping with --output json; prose still wraps",
            "JSON never wrapped, whatever $COLUMNS; --width=0",
            "$COLUMNS ignored in JSON mode",
        ],
        zero: &[Failed("width_invariant")],
        one: &[],
        two_despite: &[],
        needs_two: &[],
        needs_three: &[Passed("width_invariant")],
        not_here: &[],
    },
    Rubric {
        mode: 64,
        page: "01-critical-ecosystem-runtime-agent-specific/64-critical-headless-gui.md",
        rows: [
            "a GUI or browser launched without a terminal; no fallback",
            "not launched, but fails silently or with prose; no URL",
            "the URL in the JSON response instead of a browser",
            "gui_operations declared in the schema",
        ],
        zero: &[Saw(Browser), Saw(AuthBrowser)],
        one: &[],
        two_despite: &[],
        needs_two: &[Passed("browser_not_launched")],
        needs_three: &[Unobservable(
            "gui_operations and headless_behavior declared: no check of conform's reads them",
        )],
        not_here: &[Editor, Pager, Installer],
    },
    Rubric {
        mode: 69,
        page: "01-critical-ecosystem-runtime-agent-specific/69-high-argument-order-ambiguity.md",
        rows: [
            "options after a positional misparsed or rejected; nothing declared",
            "a consistent, clear rejection; no interspersed options",
            "interspersed options on most commands; global flags may fail after the command",
            "interspersed options everywhere; exceptions declared",
        ],
        zero: &[],
        one: &[],
        two_despite: &[],
        needs_two: &[],
        needs_three: &[Passed("argument_order")],
        not_here: &[],
    },
    Rubric {
        mode: 76,
        page: "04-critical-output-and-parsing/76-high-streaming-default-incompatibility.md",
        rows: [
            "JSONL by default; nothing declared; no --no-stream",
            "--no-stream gives an envelope; nothing declared",
            "streaming_default: true declared; --no-stream",
            "declared, --no-stream gives a valid envelope, --help says JSONL is the default",
        ],
        zero: &[],
        one: &[],
        two_despite: &[],
        needs_two: &[],
        needs_three: &[Passed("stream_contract"), Passed("profile_consistency")],
        not_here: &[],
    },
];

/// The table of mode `n`, when the spec's page for it has one conform reads.
pub(crate) fn of(n: u16) -> Option<&'static Rubric> {
    RUBRICS.iter().find(|r| r.mode == n)
}
