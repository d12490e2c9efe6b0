//! Deliberate defects for the broken-CLI corpus (`benchmark/harness/cli/bad/`).
//!
//! Each launcher there sets `DEMOCLI_DEFECT` to one name; the binary then differs from
//! the reference CLI in exactly that one behavior, so a conformance kit can be shown
//! to catch it. Unset, democli is the reference CLI.

use crate::error::CliError;
use crate::spec::{Flag, Kind};

/// Environment variable that selects a defect.
pub const DEFECT_ENV: &str = "DEMOCLI_DEFECT";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defect {
    /// `deployments list` (single envelope) sleeps forever.
    HangOnList,
    /// `deployments list` (single envelope) pads its first item with 64 MiB of
    /// notes: an envelope over any sane capture cap.
    HugeEnvelope,
    /// `deployments list` reads stdin to EOF whenever stdin is not a terminal.
    ReadsStdin,
    /// JSON only with an explicit `--format json`; a pipe gets plain text.
    JsonNeedsFormatFlag,
    /// Single envelopes lack the `warnings` key.
    EnvelopeMissingWarnings,
    /// Input errors exit 2 but their envelope says `meta.exit_code` 1.
    EnvelopeExitCodeMismatch,
    /// Input errors exit 64 (sysexits EX_USAGE), envelope included.
    UsageErrorExit64,
    /// JSON envelopes are syntax-highlighted whether or not stdout is a terminal.
    AnsiWhenPiped,
    /// Error lines on stderr are colored even when piped or with NO_COLOR set.
    StderrColorIgnoresNoColor,
    /// `--help` prints its text on stdout even when stdout is a pipe.
    HelpOnStdout,
    /// An unknown flag exits 1 (GENERAL_ERROR) instead of 2.
    UnknownFlagExit1,
    /// A `--dry-run` preview exits 1 although it previewed.
    DryRunExitsNonzero,
    /// `deployments delete` deletes without `--yes`.
    DeletesUnconfirmed,
    /// `deployments delete` without `--yes` prompts and reads the answer from stdin.
    PromptsBeforeDelete,
    /// The manifest's commands lack `required_scopes`.
    ManifestMissingScopes,
    /// The manifest declares exit 130 retryable although its side effects are partial.
    ManifestRetryablePartial,
    /// A global option is only recognised before the command path.
    GlobalFlagBeforeCommandOnly,
    /// A flag given twice with different values: the last one wins.
    DuplicateFlagLastWins,
    /// Options after the first positional are swallowed as ignored positionals.
    OptionAfterPositionalIgnored,
    /// Streams end without their `_summary` line.
    StreamNoSummary,
    /// Stream items skip `_seq` 3.
    StreamSeqGap,
    /// Streams are buffered and written all at once at the end.
    StreamBuffered,
    /// SIGINT ends a stream with exit 130 but no cancellation line.
    SigintNoCancelLine,
    /// SIGINT ends a stream with a cancellation line, but exit code 1.
    SigintExit1,
    /// `--dry-run` rewrites the data file (bumping its revision) instead of only reading it.
    DryRunWrites,
    /// The manifest declares `deployments delete` as `safe`.
    DeleteDeclaredSafe,
    /// `deployments list` pipes its output through `$PAGER` when it is set.
    ListPipesThroughPager,
    /// With stdout a terminal, `deployments list` pipes its output through `less`
    /// from `PATH`, never reading `$PAGER` (as cargo-nextest does).
    ListPipesThroughLess,
    /// Invalid input opens `$EDITOR` (on a file to fix the call in) before the error.
    EditorOnInvalidInput,
    /// `deployments list` calls `xdg-open` on the dashboard URL when there is no display.
    BrowserOnRead,
    /// Color on a terminal even with NO_COLOR set.
    ColorOnTerminalDespiteNoColor,
    /// `--help` creates `$XDG_CONFIG_HOME/democli`.
    HelpCreatesConfig,
    /// The bare command shows the root help but exits 1.
    BareExits1,
    /// Invalid input writes `$XDG_CACHE_HOME/democli/last-args` before reporting the error.
    InvalidWritesCache,
    /// An unknown command exits 1 (GENERAL_ERROR) instead of 2.
    UnknownCommandExit1,
    /// Under a German `LC_ALL`/`LANG`, `deployments list` writes version numbers
    /// with the locale's decimal comma.
    LocaleDecimalComma,
    /// `deployments list` leaves a helper process, outside its process group, holding
    /// stdout for two seconds after democli exits.
    HelperHoldsStdout,
    /// Error envelopes lack `error.retryable`.
    ErrorWithoutRetryable,
    /// The manifest omits exit 130 from `deployments list`, which a SIGINT returns.
    ManifestOmitsExit130,
    /// SIGTERM ends a stream with exit 1 and no cancellation line.
    SigtermExit1NoCancelLine,
    /// A closed stdout (EPIPE) panics instead of ending quietly.
    BrokenPipePanics,
    /// Every stream item line is a full envelope (`"ok": true, "error": null`), as the
    /// spec's Python framework writes them; a cancellation still ends on the
    /// CANCELLED envelope. The `ok`/`error` pair makes the first item look terminal.
    StreamEnvelopeLines,
    /// The bare command with stdin not a terminal starts a `democli>` read loop
    /// first, which ends only at EOF.
    BareStartsRepl,
    /// Help text on stderr ends its lines in CRLF, as a Windows-minded formatter does.
    HelpInCrlf,
    /// Envelopes report an older `meta.tool_version` than `--version` prints.
    StaleToolVersion,
    /// JSON mode comes from `isatty` alone: a terminal gets the table even under `CI`
    /// or `NO_COLOR` (colour still honours them).
    TableOnTerminalInCi,
    /// With `COLUMNS` set, `deployments list` wraps each string of `data` to its table
    /// column's share of that width, as it does the cells of its table.
    WrapsDataAtColumns,
    /// `meta.pagination.returned` of a `deployments list` page holds the total, not the
    /// page's item count.
    PaginationReturnedTotal,
    /// Debug lines on stderr whenever the generic, unprefixed `DEBUG` variable is set.
    DebugEnvOnStderr,
    /// The manifest's `output_schema` for `deployments list` says `object`; its `data` is
    /// an array.
    OutputSchemaSaysObject,
    /// The manifest declares the secret `DEMOCLI_TOKEN`. Without it or a login file, a data
    /// command whose stdin is an open, silent pipe waits for a pasted device code (exit 8
    /// at EOF); a closed stdin or a terminal goes on anonymously.
    WaitsForDeviceCode,
    /// Without `DEMOCLI_TOKEN` or a login, a data command whose stdin is an open,
    /// silent pipe exits 1 with a usage error in prose on stderr and nothing on
    /// stdout: a failure for a cause that is not authentication, which
    /// `headless_auth` must not fail (the missing envelope is `json_envelope`'s,
    /// and no probe's own run shows it).
    ProseUsageErrorHeadless,
    /// `deployments list ENV` takes any text and keeps the deployments whose env contains
    /// it: `../staging` is looked up, not rejected, and gives an empty list.
    EnvSubstringMatch,
    /// Under `DEMOCLI_MAX_OUTPUT_BYTES` items are dropped until the envelope fits, but
    /// `meta` does not say so: no `truncated`, hint, `returned_count` or `total_count`.
    TruncatesSilently,
    /// `releases` ignores a given `--timeout` once a proxy is set: it waits on the
    /// proxy until it answers or a signal ends democli (without the flag, its default
    /// timeout still ends the wait).
    TimeoutIgnoredBehindProxy,
    /// `releases` has no default timeout: without `--timeout` it waits on the proxy
    /// until it answers or a signal ends democli.
    NoDefaultNetworkTimeout,
    /// Every command past parsing prints an update notice for a newer democli on
    /// stderr, whether or not `CI` is set.
    UpdateNoticeInCi,
    /// With `DEMOCLI_DEBUG` set, debug lines on stderr list every secret-like variable
    /// with its value, unredacted.
    DebugLeaksSecrets,
    /// A usage error's message names the `DEMOCLI_TOKEN` it would have used.
    ErrorEchoesToken,
    /// Positional values are logged through `sh -c`, so shell metacharacters in
    /// them run (the value is still checked afterwards).
    PositionalThroughShell,
    /// `deployments validate` reads stdin without its declared cap and accepts an
    /// oversized payload.
    StdinUnbounded,
    /// `releases` lists and accepts `--api-key KEY` for the demo registry, and names
    /// no variable or file that could carry the key instead.
    ApiKeyFlagOnly,
}

impl Defect {
    pub const ALL: [(&'static str, Defect); 62] = [
        ("hang-on-list", Defect::HangOnList),
        ("reads-stdin", Defect::ReadsStdin),
        ("json-needs-format-flag", Defect::JsonNeedsFormatFlag),
        ("envelope-missing-warnings", Defect::EnvelopeMissingWarnings),
        (
            "envelope-exit-code-mismatch",
            Defect::EnvelopeExitCodeMismatch,
        ),
        ("usage-error-exit-64", Defect::UsageErrorExit64),
        ("ansi-when-piped", Defect::AnsiWhenPiped),
        (
            "stderr-color-ignores-no-color",
            Defect::StderrColorIgnoresNoColor,
        ),
        ("help-on-stdout", Defect::HelpOnStdout),
        ("unknown-flag-exit-1", Defect::UnknownFlagExit1),
        ("dry-run-exits-nonzero", Defect::DryRunExitsNonzero),
        ("deletes-unconfirmed", Defect::DeletesUnconfirmed),
        ("prompts-before-delete", Defect::PromptsBeforeDelete),
        ("manifest-missing-scopes", Defect::ManifestMissingScopes),
        (
            "manifest-retryable-partial",
            Defect::ManifestRetryablePartial,
        ),
        (
            "global-flag-before-command-only",
            Defect::GlobalFlagBeforeCommandOnly,
        ),
        ("duplicate-flag-last-wins", Defect::DuplicateFlagLastWins),
        (
            "option-after-positional-ignored",
            Defect::OptionAfterPositionalIgnored,
        ),
        ("stream-no-summary", Defect::StreamNoSummary),
        ("stream-seq-gap", Defect::StreamSeqGap),
        ("stream-buffered", Defect::StreamBuffered),
        ("sigint-no-cancel-line", Defect::SigintNoCancelLine),
        ("sigint-exit-1", Defect::SigintExit1),
        ("dry-run-writes", Defect::DryRunWrites),
        ("delete-declared-safe", Defect::DeleteDeclaredSafe),
        ("list-pipes-through-pager", Defect::ListPipesThroughPager),
        ("list-pipes-through-less", Defect::ListPipesThroughLess),
        ("editor-on-invalid-input", Defect::EditorOnInvalidInput),
        ("browser-on-read", Defect::BrowserOnRead),
        (
            "color-on-terminal-despite-no-color",
            Defect::ColorOnTerminalDespiteNoColor,
        ),
        ("help-creates-config", Defect::HelpCreatesConfig),
        ("bare-exits-1", Defect::BareExits1),
        ("invalid-writes-cache", Defect::InvalidWritesCache),
        ("unknown-command-exit-1", Defect::UnknownCommandExit1),
        ("locale-decimal-comma", Defect::LocaleDecimalComma),
        ("helper-holds-stdout", Defect::HelperHoldsStdout),
        ("error-without-retryable", Defect::ErrorWithoutRetryable),
        ("manifest-omits-exit-130", Defect::ManifestOmitsExit130),
        (
            "sigterm-exit-1-no-cancel-line",
            Defect::SigtermExit1NoCancelLine,
        ),
        ("broken-pipe-panics", Defect::BrokenPipePanics),
        ("stream-envelope-lines", Defect::StreamEnvelopeLines),
        ("bare-starts-repl", Defect::BareStartsRepl),
        ("help-in-crlf", Defect::HelpInCrlf),
        ("stale-tool-version", Defect::StaleToolVersion),
        ("table-on-terminal-in-ci", Defect::TableOnTerminalInCi),
        ("wraps-data-at-columns", Defect::WrapsDataAtColumns),
        ("pagination-returned-total", Defect::PaginationReturnedTotal),
        ("debug-env-on-stderr", Defect::DebugEnvOnStderr),
        ("output-schema-says-object", Defect::OutputSchemaSaysObject),
        ("waits-for-device-code", Defect::WaitsForDeviceCode),
        (
            "prose-usage-error-headless",
            Defect::ProseUsageErrorHeadless,
        ),
        ("env-substring-match", Defect::EnvSubstringMatch),
        ("truncates-silently", Defect::TruncatesSilently),
        ("huge-envelope", Defect::HugeEnvelope),
        (
            "timeout-ignored-behind-proxy",
            Defect::TimeoutIgnoredBehindProxy,
        ),
        (
            "no-default-network-timeout",
            Defect::NoDefaultNetworkTimeout,
        ),
        ("update-notice-in-ci", Defect::UpdateNoticeInCi),
        ("debug-leaks-secrets", Defect::DebugLeaksSecrets),
        ("error-echoes-token", Defect::ErrorEchoesToken),
        ("positional-through-shell", Defect::PositionalThroughShell),
        ("stdin-unbounded", Defect::StdinUnbounded),
        ("api-key-flag-only", Defect::ApiKeyFlagOnly),
    ];

    pub fn from_name(name: &str) -> Option<Defect> {
        Self::ALL
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, defect)| *defect)
    }
}

/// The flag the api-key-flag-only defect adds to `releases`: a secret on the
/// command line, where process listings and shell history show it (REQ-C-016).
pub static API_KEY_FLAG: Flag = Flag {
    name: "api-key",
    short: None,
    kind: Kind::Text,
    required: false,
    default: None,
    pattern: None,
    value_name: "KEY",
    description: "API key for the demo registry registry.democli.invalid",
};

/// The key of the command the api-key-flag-only defect adds `--api-key` to.
pub const API_KEY_COMMAND: &str = "releases";

/// The defect switch of this process: at most one defect is on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Faults(Option<Defect>);

impl Faults {
    /// Read `DEMOCLI_DEFECT`; unset or empty means the reference behavior.
    pub fn from_env() -> Result<Faults, CliError> {
        let Some(raw) = std::env::var_os(DEFECT_ENV) else {
            return Ok(Faults(None));
        };
        let name = raw.to_string_lossy();
        if name.is_empty() {
            return Ok(Faults(None));
        }
        match Defect::from_name(&name) {
            Some(defect) => Ok(Faults(Some(defect))),
            None => Err(CliError::usage(
                "INVALID_DEFECT",
                format!("{DEFECT_ENV}={name} names no known defect"),
            )
            .fix(format!("Unset {DEFECT_ENV}; it is a test-only switch"))
            .context(serde_json::json!({
                "variable": DEFECT_ENV,
                "value": name,
                "known": Self::names(),
            }))),
        }
    }

    pub fn on(self, defect: Defect) -> bool {
        self.0 == Some(defect)
    }

    fn names() -> Vec<&'static str> {
        Defect::ALL.iter().map(|(name, _)| *name).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        for (name, defect) in Defect::ALL {
            assert_eq!(Defect::from_name(name), Some(defect));
        }
        let mut names = Faults::names();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Defect::ALL.len());
    }
}
