//! Every broken CLI under benchmark/harness/cli/bad/ fails exactly the checks its
//! expected-results file names, with the words that say why, and passes the rest.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use serde_json::Value;

use crate::support::{conform, repo_root};

fn expected(name: &str) -> Value {
    read_json(&repo_root().join(format!("conformance/profiles/bad/expected/{name}.json")))
}

/// The checks democli itself skips on the profile a broken CLI's profile copies
/// (the seed's skips the output cap and the timeout, which need probes it lacks).
fn base_skips(name: &str) -> BTreeSet<String> {
    static SKIPS: OnceLock<Vec<(Value, BTreeSet<String>)>> = OnceLock::new();
    let bases = SKIPS.get_or_init(|| {
        ["democli.json", "democli-full.json"]
            .iter()
            .map(|file| {
                let path = format!("conformance/profiles/{file}");
                let profile = without_command(&read_json(&repo_root().join(&path)));
                let run = conform(["run", path.as_str()]);
                assert_eq!(run.code(), 0, "democli fails {file}: {:#}", run.envelope);
                (profile, run.ids_with("skip").into_iter().collect())
            })
            .collect()
    });
    let mine = without_command(&read_json(
        &repo_root().join(format!("conformance/profiles/bad/{name}.json")),
    ));
    bases
        .iter()
        .find(|(profile, _)| *profile == mine)
        .map(|(_, skips)| skips.clone())
        .unwrap_or_else(|| panic!("{name}: its profile is none of democli's"))
}

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn without_command(profile: &Value) -> Value {
    let mut profile = profile.clone();
    profile["command"] = Value::Null;
    profile
}

/// How a check that a starved run left without a verdict says so.
const STARVED: &str = "the machine never gave this run the CPU it needed";

fn assert_broken(name: &str) {
    let expected = expected(name);
    let listed: BTreeSet<String> = expected["fail"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(String::from))
        .collect();
    // A fixture of a defect that belongs to no check names the checks that must not
    // fail it instead (a failure for another cause than their subject).
    let must_not_fail: BTreeSet<String> = expected["must_not_fail"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(String::from))
        .collect();
    assert!(
        !listed.is_empty() || !must_not_fail.is_empty(),
        "{name}: a broken CLI must fail something, or name what must not fail it"
    );
    let want = listed;
    let run = conform([
        "run".to_string(),
        format!("conformance/profiles/bad/{name}.json"),
    ]);
    if want.is_empty() {
        assert_eq!(run.code(), 0, "{name}: {:#}", run.envelope);
    } else {
        assert_eq!(run.code(), 4, "{name}: {:#}", run.envelope);
        assert_eq!(run.envelope["error"]["code"], "CONFORMANCE_CHECKS_FAILED");
    }
    let got: BTreeSet<String> = run.ids_with("fail").into_iter().collect();
    // On a machine loaded by the other tests, a run whose time decided it may be
    // starved twice: its checks then skip naming that, which is no verdict and no
    // flip. Every other expected failure must fail.
    let inconclusive: BTreeSet<String> = run
        .ids_with("skip")
        .into_iter()
        .filter(|id| {
            run.check(id)["skipped_reason"]
                .as_str()
                .is_some_and(|r| r.starts_with(STARVED))
        })
        .collect();
    let judged: BTreeSet<String> = want.difference(&inconclusive).cloned().collect();
    assert_eq!(
        got, judged,
        "{name} ({}): failing checks",
        expected["defect"]
    );
    // The rest pass: a broken CLI differs from democli in its one defect, and skips
    // only what democli skips on the same probes.
    let skipped = run.ids_with("skip");
    // A check the defect leaves with nothing to judge (a comparison past the
    // capture cap) skips, naming why: the expected file lists it.
    let mut allowed = base_skips(name);
    allowed.extend(
        expected["skip"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(String::from)),
    );
    let unrelated_skips: Vec<&String> = skipped
        .iter()
        .filter(|id| {
            !want.contains(*id)
                && !is_dependent(id)
                && !allowed.contains(*id)
                && !inconclusive.contains(*id)
        })
        .collect();
    assert!(
        unrelated_skips.is_empty(),
        "{name}: skipped {unrelated_skips:?}"
    );
    // The findings' scores are the committed table's row, unless a starved run
    // left a check without a verdict (its mode then has no score).
    let starved_any = skipped.iter().any(|id| {
        run.check(id)["skipped_reason"]
            .as_str()
            .is_some_and(|r| r.starts_with(STARVED))
    });
    if !starved_any {
        assert_eq!(
            Some(crate::findings::low_scores(&run.envelope["meta"]["findings"])),
            crate::findings::committed_row(name),
            "{name}: its findings' scores moved from the committed table; review them and rewrite it with CONFORM_BLESS=1 cargo test findings::every_broken_cli"
        );
    }
    for (check, words) in expected["message_contains"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(check, _)| got.contains(*check))
    {
        let details = run.details(check);
        for words in phrases(name, check, words) {
            assert!(
                details.contains(words),
                "{name}: {check} should say {words:?}, said:\n{details}"
            );
        }
    }
}

/// A `message_contains` entry: one phrase, or several that must all appear (a detail
/// names several things, and numbers that vary between runs sit between them).
fn phrases<'a>(name: &str, check: &str, words: &'a Value) -> Vec<&'a str> {
    let phrases: Option<Vec<&str>> = match words {
        Value::String(phrase) => Some(vec![phrase.as_str()]),
        Value::Array(list) => list.iter().map(Value::as_str).collect(),
        _ => None,
    };
    match phrases {
        Some(phrases) if !phrases.is_empty() && phrases.iter().all(|p| !p.is_empty()) => phrases,
        _ => panic!("{name}: message_contains.{check} must be a phrase or a list of phrases"),
    }
}

/// Extension checks that skip when the check or run they build on failed: a valid
/// manifest, a preview, a read probe's baseline run (the terminal, locale, CI,
/// narrow, headless, generic-variable and debug runs are not made after it hung), an
/// envelope to read `meta` from or to compare `data` with.
fn is_dependent(id: &str) -> bool {
    matches!(
        id,
        "profile_consistency"
            | "dry_run_stable"
            | "tty_no_color"
            | "exit_codes_declared"
            | "locale_invariant"
            | "meta_versions"
            | "output_schema_valid"
            | "ci_terminal_json"
            | "width_invariant"
            | "headless_auth"
            | "generic_env_ignored"
            | "pagination_contract"
            | "debug_no_secret_leak"
            | "stdin_payload_bounded"
    )
}

macro_rules! broken {
    ($($test:ident => $name:literal,)*) => {
        $(
            #[test]
            fn $test() {
                assert_broken($name);
            }
        )*

        #[test]
        fn every_broken_cli_has_a_test() {
            let tested: BTreeSet<&str> = [$($name),*].into_iter().collect();
            let dir = repo_root().join("benchmark/harness/cli/bad");
            let present: BTreeSet<String> = std::fs::read_dir(&dir)
                .expect("bad CLI directory")
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            let present: BTreeSet<&str> = present.iter().map(String::as_str).collect();
            assert_eq!(present, tested, "every broken CLI needs a test, and every test a CLI");
        }
    };
}

broken! {
    ansi_when_piped => "ansi-when-piped",
    prose_usage_error_headless => "prose-usage-error-headless",
    bare_exits_1 => "bare-exits-1",
    browser_on_read => "browser-on-read",
    color_on_terminal_despite_no_color => "color-on-terminal-despite-no-color",
    editor_on_invalid_input => "editor-on-invalid-input",
    help_creates_config => "help-creates-config",
    invalid_writes_cache => "invalid-writes-cache",
    list_pipes_through_pager => "list-pipes-through-pager",
    list_pipes_through_less => "list-pipes-through-less",
    delete_declared_safe => "delete-declared-safe",
    deletes_unconfirmed => "deletes-unconfirmed",
    dry_run_exits_nonzero => "dry-run-exits-nonzero",
    dry_run_writes => "dry-run-writes",
    duplicate_flag_last_wins => "duplicate-flag-last-wins",
    envelope_exit_code_mismatch => "envelope-exit-code-mismatch",
    envelope_missing_warnings => "envelope-missing-warnings",
    global_flag_before_command_only => "global-flag-before-command-only",
    hang_on_list => "hang-on-list",
    help_on_stdout => "help-on-stdout",
    json_needs_format_flag => "json-needs-format-flag",
    manifest_missing_scopes => "manifest-missing-scopes",
    manifest_retryable_partial => "manifest-retryable-partial",
    option_after_positional_ignored => "option-after-positional-ignored",
    prompts_before_delete => "prompts-before-delete",
    reads_stdin => "reads-stdin",
    sigint_exit_1 => "sigint-exit-1",
    sigint_no_cancel_line => "sigint-no-cancel-line",
    stderr_color_ignores_no_color => "stderr-color-ignores-no-color",
    stream_buffered => "stream-buffered",
    stream_no_summary => "stream-no-summary",
    stream_seq_gap => "stream-seq-gap",
    unknown_flag_exit_1 => "unknown-flag-exit-1",
    usage_error_exit_64 => "usage-error-exit-64",
    unknown_command_exit_1 => "unknown-command-exit-1",
    locale_decimal_comma => "locale-decimal-comma",
    helper_holds_stdout => "helper-holds-stdout",
    error_without_retryable => "error-without-retryable",
    manifest_omits_exit_130 => "manifest-omits-exit-130",
    sigterm_exit_1_no_cancel_line => "sigterm-exit-1-no-cancel-line",
    broken_pipe_panics => "broken-pipe-panics",
    stream_envelope_lines => "stream-envelope-lines",
    bare_starts_repl => "bare-starts-repl",
    help_in_crlf => "help-in-crlf",
    stale_tool_version => "stale-tool-version",
    table_on_terminal_in_ci => "table-on-terminal-in-ci",
    wraps_data_at_columns => "wraps-data-at-columns",
    pagination_returned_total => "pagination-returned-total",
    debug_env_on_stderr => "debug-env-on-stderr",
    output_schema_says_object => "output-schema-says-object",
    waits_for_device_code => "waits-for-device-code",
    env_substring_match => "env-substring-match",
    truncates_silently => "truncates-silently",
    timeout_ignored_behind_proxy => "timeout-ignored-behind-proxy",
    huge_envelope => "huge-envelope",
    no_default_network_timeout => "no-default-network-timeout",
    update_notice_in_ci => "update-notice-in-ci",
    debug_leaks_secrets => "debug-leaks-secrets",
    error_echoes_token => "error-echoes-token",
    positional_through_shell => "positional-through-shell",
    stdin_unbounded => "stdin-unbounded",
    api_key_flag_only => "api-key-flag-only",
}
