//! `headless_auth`: a read probe run as an agent runs it, with no terminal, no
//! display, stdin a pipe nobody writes and the manifest's secret and token variables
//! unset, ends without opening a browser and without waiting for a pasted code; a
//! failure is an error envelope, and an auth failure (4 or 8) names a variable to
//! set (REQ-C-021, REQ-F-063).

use std::fmt::Write as _;

use serde_json::Value;

use super::evidence::{quoted, sentinel_call};
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::exec::OPENERS;
use crate::manifest;
use crate::plan::RunKind;
use crate::profile::ProbeKind;

pub(super) const HEADLESS_AUTH: CheckSpec = CheckSpec {
    id: CheckId::HeadlessAuth,
    name: "headless_auth",
    title: "Run headless, a read probe opens no browser and waits for no login; exit 4 or 8 names a variable to set",
    level: 1,
    failure_modes: &[45, 53, 10],
    requirements: &["REQ-C-021", "REQ-F-063"],
    extension: true,
    reads: &[RunKind::Headless, RunKind::Closed, RunKind::Manifest],
    judge: Judge::Alone(judge),
};

/// The `error` fields an agent reads for what to do next: a variable to set is
/// named in one of them.
const ERROR_FIELDS: [&str; 5] = ["message", "fix_required", "suggestion", "hint", "context"];

/// Bytes of stderr quoted for a run that waited: enough to show the prompt.
const SHOWN: usize = 160;

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::HeadlessAuth);
    if !ctx.profile.profile.has_probe(ProbeKind::Read) {
        outcome.skip("the profile has no read probe to run headless");
        return outcome;
    }
    // The runs that showed how the tool behaves without credentials: something was
    // unset for them, they did not simply exit 0, or a manifest declared what they
    // need (nothing, which their exit 0 bears out).
    let declared = ctx.manifest_as_read().is_some();
    let mut telling = 0;
    let mut exited_0: Vec<String> = Vec::new();
    // Runs that failed or waited for a cause other than authentication: another
    // check's subject (a usage error, a missing file, stdin read by design).
    let mut not_auth: Vec<String> = Vec::new();
    for run in ctx.runs_of(&[RunKind::Headless]) {
        let unset = unset_names(ctx, &run);
        let code = run.record.exit_code();
        if !declared && unset.is_empty() && code == Some(0) && !run.record.timed_out {
            exited_0.push(probe_name(ctx, &run));
        } else {
            telling += 1;
        }
        let shown = show_unset(&unset);
        let browsers = browser_calls(&run);
        let name = probe_name(ctx, &run);
        let urls = browsers.join(" ");
        if !browsers.is_empty() && !auth_flow(&name, &urls, run.record.timed_out) {
            // A page the command opens for itself (`docs`): no login is the cause,
            // so it is `browser_not_launched`'s alone (§64), not this check's.
            not_auth.push(format!("{name} (opened a browser, no login)"));
            continue;
        }
        if !browsers.is_empty() {
            outcome.fail_observed(
                &run,
                format!(
                    "launched a browser with {shown}: the kit's sentinel was called as \
                     {}; no one is there to log in, so never open a browser without a \
                     terminal (REQ-C-021)",
                    browsers.join(", then ")
                ),
            );
            continue;
        }
        if run.record.timed_out && run.record.error.is_none() {
            // A wait is this check's only when what the tool printed asks for a
            // login or a code; a silent wait on stdin is the hang checks'.
            match auth_words(&output_text(&run)) {
                Some(words) => {
                    outcome.completed(&run);
                    if let Some(last) = outcome.failures.last_mut() {
                        let _ = write!(
                            last.detail,
                            "; with {shown} and stdin open it kept waiting, as a login \
                             waiting for a pasted device code does (it printed {words}); \
                             {}. Without a terminal, fail at once with exit 4 or 8 naming \
                             the variable to set (REQ-C-021)",
                            stderr_start(&run)
                        );
                    }
                }
                None => not_auth.push(format!(
                    "{} (waited, naming no login)",
                    probe_name(ctx, &run)
                )),
            }
            continue;
        }
        if run.record.error.is_some() || code == Some(0) {
            outcome.completed(&run);
            continue;
        }
        match ctx.error_object(&run) {
            Ok(error) => {
                outcome.runs_checked += 1;
                if matches!(code, Some(4 | 8)) && !unset.is_empty() && !names_one(error, &unset) {
                    let code = error.get("code").and_then(Value::as_str).unwrap_or("?");
                    outcome.fail(
                        &run,
                        format!(
                            "{} with {shown}, but error {code} names none of them in error.{}; \
                             an agent without credentials needs the variable to set \
                             (REQ-C-021, REQ-F-063)",
                            run.describe_exit(),
                            ERROR_FIELDS.join(", error.")
                        ),
                    );
                }
            }
            Err(_) => {
                // No envelope: the missing envelope is json_envelope's finding. This
                // check fails the run only when authentication is what it failed on
                // and nothing it printed names a variable to set.
                let text = output_text(&run);
                let cause = if matches!(code, Some(4 | 8)) {
                    Some("its exit code is an auth failure's".to_string())
                } else {
                    auth_words(&text).map(|words| format!("it said {words}"))
                };
                let Some(cause) = cause else {
                    not_auth.push(format!(
                        "{} ({})",
                        probe_name(ctx, &run),
                        run.describe_exit()
                    ));
                    continue;
                };
                outcome.runs_checked += 1;
                if names_a_variable(&text, &unset) {
                    continue;
                }
                outcome.fail(
                    &run,
                    format!(
                        "{} with {shown}: it failed on authentication ({cause}) with no \
                         error envelope, and nothing it printed names a variable to set; an \
                         agent without credentials needs the variable to set (REQ-C-021, \
                         REQ-F-063)",
                        run.describe_exit()
                    ),
                );
            }
        }
    }
    if outcome.failures.is_empty() {
        if telling == 0 && !exited_0.is_empty() {
            outcome.skip(format!(
                "no read probe needed auth: the headless runs of {} exited 0, and no manifest says which secret or token variables they need, so none showed how the tool fails without credentials",
                exited_0.join(", ")
            ));
        } else if outcome.runs_checked == 0 && !not_auth.is_empty() {
            outcome.skip(format!(
                "no headless run showed how the tool fails without credentials: {} failed or waited for another cause, which other checks judge",
                not_auth.join(", ")
            ));
        }
    }
    outcome
}

/// Words in a command's name that say it authenticates.
const AUTH_COMMAND_WORDS: &[&str] = &[
    "login",
    "logout",
    "auth",
    "authenticate",
    "authorize",
    "signin",
    "sign-in",
    "oauth",
    "sso",
    "token",
];

/// Words in a URL that say it is a login, an authorization or a device page.
const AUTH_URL_WORDS: &[&str] = &[
    "login",
    "authorize",
    "oauth",
    "device",
    "signin",
    "sign-in",
    "sso",
    "auth",
];

/// Whether a browser opened by `command` at `url` is an authentication flow: the
/// command authenticates by its name, the URL is a login, authorize or device
/// page, or the run then waited (for a callback or a code). Opening a browser is
/// §64's in any command; it is this check's (and §10's, §45's) only in such a flow.
pub(crate) fn auth_flow(command: &str, url: &str, waited: bool) -> bool {
    let named = command
        .split([' ', ':'])
        .any(|word| AUTH_COMMAND_WORDS.contains(&word.to_ascii_lowercase().as_str()));
    let lower = url.to_ascii_lowercase();
    named || waited || AUTH_URL_WORDS.iter().any(|w| lower.contains(w))
}

/// The probe's name of a run made from a probe, else the run's label.
fn probe_name(ctx: &Context<'_>, run: &Judged<'_>) -> String {
    let probe = run.planned.role.probe_index();
    let probe = probe.and_then(|p| ctx.profile.profile.probes.get(p));
    probe.map_or_else(|| run.planned.label.clone(), |p| p.name.clone())
}

/// Lines of output read for an error's cause: the first and last few of stderr and
/// of stdout, where a tool says why it failed (a usage text's command list in the
/// middle, which may name `login`, is not its error).
const CAUSE_LINES: usize = 4;

/// What a run printed that can say why it failed, lowercase.
fn output_text(run: &Judged<'_>) -> String {
    let mut text = String::new();
    for bytes in [&run.record.stderr.bytes, &run.record.stdout.bytes] {
        let whole = String::from_utf8_lossy(bytes);
        let lines: Vec<&str> = whole
            .lines()
            .filter(|line| !line.trim().is_empty() && !is_usage_line(line))
            .collect();
        let head = lines.len().min(CAUSE_LINES);
        let tail = lines.len().saturating_sub(CAUSE_LINES).max(head);
        for line in lines[..head].iter().chain(&lines[tail..]) {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// A line of a usage text printed with an error: `Usage: ...`, or an indented
/// entry of a command or option list (`  login   Log in`), which names what the
/// tool can do, not why it failed.
fn is_usage_line(line: &str) -> bool {
    let trimmed = line.trim_start();
    if trimmed.to_lowercase().starts_with("usage:") {
        return true;
    }
    trimmed.len() < line.len()
        && trimmed
            .split_once(char::is_whitespace)
            .is_some_and(|(_, rest)| rest.starts_with(' ') || trimmed.starts_with('-'))
}

/// Phrases that say authentication is what failed or is awaited: first those that
/// say a login is missing or refused ([`AUTH_STATE_PHRASES`]), then the things a
/// login involves.
const AUTH_PHRASES: [&str; 22] = [
    "not logged in",
    "log in",
    "login",
    "logged out",
    "sign in",
    "signed in",
    "authenticat",
    "unauthori",
    "credential",
    "api key",
    "api-key",
    "api_key",
    "apikey",
    "access key",
    "secret key",
    "password",
    "token",
    "device code",
    "verification code",
    "one-time code",
    "paste the code",
    "browser",
];

/// The phrases of [`AUTH_PHRASES`] that say a login is missing or refused, as
/// opposed to naming a thing (`create token`, `--password`) that a failure may
/// mention for another cause.
const AUTH_STATE_PHRASES: usize = 9;

/// Words of a failure to reach a host: the cause a message names when it says
/// `failed to create token: ... connection refused`.
const NETWORK_FAILURE: [&str; 8] = [
    "connection refused",
    "econnrefused",
    "dial tcp",
    "no such host",
    "could not resolve",
    "name resolution",
    "enotfound",
    "network is unreachable",
];

/// The first phrase of [`AUTH_PHRASES`] in `text`, quoted, when it names
/// authentication (`unexpected token` is a parser's word, not a credential's).
/// Where the text says a host could not be reached, only the phrases that say a
/// login is missing count: the rest name what the command was doing.
fn auth_words(text: &str) -> Option<String> {
    let text = text.to_lowercase().replace("unexpected token", "");
    let phrases = if NETWORK_FAILURE.iter().any(|words| text.contains(words)) {
        &AUTH_PHRASES[..AUTH_STATE_PHRASES]
    } else {
        &AUTH_PHRASES[..]
    };
    // A phrase starts a word: `changelog index` does not say "log in".
    let starts_word = |phrase: &str| {
        text.match_indices(phrase).any(|(at, _)| {
            !text[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric())
        })
    };
    phrases
        .iter()
        .find(|phrase| starts_word(phrase))
        .map(|phrase| quoted(phrase))
}

/// Whether `text` names one of `unset`, or, with nothing unset, any variable that
/// reads as a credential's (`ACME_API_KEY`, `GITHUB_TOKEN`).
fn names_a_variable(text: &str, unset: &[String]) -> bool {
    if !unset.is_empty() {
        return unset.iter().any(|name| names_word(text, name));
    }
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|word| {
            word.contains('_')
                && word.len() >= 4
                && word.starts_with(|c: char| c.is_ascii_uppercase())
                && !word.contains(|c: char| c.is_ascii_lowercase())
                && ["TOKEN", "KEY", "SECRET", "PASSWORD", "CREDENTIAL", "AUTH"]
                    .iter()
                    .any(|part| word.contains(part))
        })
}

/// The variables the headless run of `run`'s probe unset: the root
/// `secret_env_vars` and its command's secret and token variables. Read from the
/// manifest run as the planner read it when it made the run (leniently: whether
/// the manifest is valid is `manifest_valid`'s), so these are exactly the names
/// that were unset.
fn unset_names(ctx: &Context<'_>, run: &Judged<'_>) -> Vec<String> {
    let Some(manifest) = ctx.manifest_as_read() else {
        return Vec::new();
    };
    let Some(probe) = run
        .planned
        .role
        .probe_index()
        .and_then(|p| ctx.profile.profile.probes.get(p))
    else {
        return Vec::new();
    };
    let command = manifest::command_for(manifest, &probe.argv).map(|(_, entry)| entry);
    manifest::secret_names(manifest, command)
}

/// `A, B unset`, or why nothing was.
fn show_unset(unset: &[String]) -> String {
    if unset.is_empty() {
        "nothing unset (no manifest secret or token variable for it)".to_string()
    } else {
        format!("{} unset", unset.join(", "))
    }
}

/// The browser and opener sentinel calls of a run, each as its name and quoted
/// arguments.
fn browser_calls(run: &Judged<'_>) -> Vec<String> {
    let Some(report) = &run.record.sandbox else {
        return Vec::new();
    };
    report
        .sentinel_calls
        .iter()
        .filter(|call| call.name == "BROWSER" || OPENERS.contains(&call.name.as_str()))
        .map(sentinel_call)
        .collect()
}

/// Whether one of the agent-facing `error` fields names one of `names` as a word
/// (`DEMOCLI_TOKEN` is not named by `DEMOCLI_TOKEN_FILE`).
fn names_one(error: &Value, names: &[String]) -> bool {
    ERROR_FIELDS.iter().any(|field| {
        let text = match error.get(*field) {
            None | Some(Value::Null) => return false,
            Some(Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
        };
        names.iter().any(|name| names_word(&text, name))
    })
}

/// Whether `name` occurs in `text` with no name character either side.
fn names_word(text: &str, name: &str) -> bool {
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(is_name_char) && !after.is_some_and(is_name_char)
    })
}

/// `stderr starts "Paste the code: "`, or that it is empty.
fn stderr_start(run: &Judged<'_>) -> String {
    let bytes = &run.record.stderr.bytes;
    if bytes.is_empty() {
        return "stderr is empty".to_string();
    }
    let start = String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN)]);
    format!("stderr starts {}", quoted(&start))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_passed, judged, judged_with, write};
    use crate::checks::Status;
    use crate::exec::{Exit, SandboxReport, SentinelCall};

    /// A profile with a manifest, whose `list` command declares a token variable.
    const WITH_MANIFEST: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "manifest": ["manifest"],
        "probes": [ { "name": "list", "argv": ["list"], "kind": "read" } ]
    }"#;

    const MANIFEST: &str = r#"{"ok":true,"data":{"secret_env_vars":["T_API_KEY"],"commands":{"list":{"token_env_vars":["T_TOKEN"]}}},"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0,"schema_version":"1.0"}}"#;

    fn unauthenticated(hint: &str) -> String {
        format!(
            r#"{{"ok":false,"data":null,"error":{{"code":"UNAUTHENTICATED","message":"not logged in","retryable":false,"hint":{}}},"warnings":[],"meta":{{"exit_code":8,"duration_ms":0,"schema_version":"1.0"}}}}"#,
            quoted(hint)
        )
    }

    /// `headless_auth` over [`WITH_MANIFEST`], the headless run made as `fill` says.
    fn headless(fill: impl Fn(&mut crate::exec::RunRecord)) -> Outcome {
        judged_with(
            WITH_MANIFEST,
            CheckId::HeadlessAuth,
            |run, record| match run.role.kind {
                RunKind::Manifest => write(record, MANIFEST),
                RunKind::Headless => {
                    record.sandbox = Some(SandboxReport::default());
                    fill(record);
                }
                _ => {}
            },
        )
    }

    #[test]
    fn exit_8_naming_an_unset_token_variable_passes() {
        let outcome = headless(|record| {
            record.exit = Exit::Code(8);
            write(
                record,
                &unauthenticated("set T_TOKEN, or run: t auth login"),
            );
        });
        assert_passed(&outcome, 1);
        // Success passes too: nothing was needed.
        assert_passed(&headless(|_| {}), 1);
        // Any other failure with an error envelope.
        let outcome = headless(|record| {
            record.exit = Exit::Code(12);
            write(record, &unauthenticated("offline"));
        });
        assert_passed(&outcome, 1);
    }

    #[test]
    fn exit_8_naming_no_unset_variable_fails_with_the_names() {
        // T_TOKEN_FILE is another variable, not T_TOKEN.
        let outcome = headless(|record| {
            record.exit = Exit::Code(8);
            write(record, &unauthenticated("set T_TOKEN_FILE"));
        });
        assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
        let detail = &outcome.failures[0].detail;
        assert_eq!(
            detail,
            "exited 8 with T_API_KEY, T_TOKEN unset, but error UNAUTHENTICATED names none \
             of them in error.message, error.fix_required, error.suggestion, error.hint, \
             error.context; an agent without credentials needs the variable to set \
             (REQ-C-021, REQ-F-063)"
        );
    }

    #[test]
    fn a_wait_for_a_pasted_code_fails_naming_the_timeout_and_the_unset_names() {
        let outcome = headless(|record| {
            record.timed_out = true;
            record.exit = Exit::Unknown;
            record.stderr.bytes = b"Open https://example.test/device and paste the code: ".to_vec();
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(detail.contains("no exit within the 5s limit"), "{detail}");
        assert!(
            detail.contains("with T_API_KEY, T_TOKEN unset and stdin open it kept waiting"),
            "{detail}"
        );
        assert!(detail.contains("paste the code"), "{detail}");
    }

    #[test]
    fn a_browser_sentinel_call_fails_naming_its_argv() {
        let outcome = headless(|record| {
            record.sandbox = Some(SandboxReport {
                sentinel_calls: vec![SentinelCall {
                    name: "xdg-open".into(),
                    argv: vec!["https://example.test/login".into()],
                }],
                ..SandboxReport::default()
            });
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains(
                r#"launched a browser with T_API_KEY, T_TOKEN unset: the kit's sentinel was called as xdg-open "https://example.test/login""#
            ),
            "{detail}"
        );
    }

    #[test]
    fn a_page_a_read_command_opens_is_no_login_and_not_this_checks() {
        let outcome = headless(|record| {
            record.sandbox = Some(SandboxReport {
                sentinel_calls: vec![SentinelCall {
                    name: "xdg-open".into(),
                    argv: vec!["https://example.test/dashboard".into()],
                }],
                ..SandboxReport::default()
            });
        });
        assert_ne!(outcome.status(), Status::Fail, "{:?}", outcome.failures);
        assert!(auth_flow("auth login", "https://example.test/", false));
        assert!(auth_flow(
            "docs",
            "https://example.test/device?code=1",
            false
        ));
        assert!(auth_flow("docs", "https://example.test/docs", true));
        assert!(!auth_flow("docs", "https://example.test/docs", false));
    }

    #[test]
    fn a_failure_without_an_error_envelope_fails_with_its_exit_code() {
        let outcome = headless(|record| {
            record.exit = Exit::Code(4);
            record.stderr.bytes = b"error: no TTY\n".to_vec();
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains(
                "exited 4 with T_API_KEY, T_TOKEN unset: it failed on authentication (its exit code is an auth failure's) with no error envelope"
            ),
            "{detail}"
        );
    }

    #[test]
    fn without_a_manifest_nothing_is_unset_and_an_exit_8_needs_no_name() {
        // The skips profile has no manifest: an exit 8 with an envelope passes.
        let outcome = judged(CheckId::HeadlessAuth, |run, record| {
            if run.role.kind == RunKind::Headless {
                record.exit = Exit::Code(8);
                write(record, &unauthenticated("log in first"));
            }
        });
        assert_passed(&outcome, 1);
        // Without an envelope it still fails, saying nothing was unset.
        let outcome = judged(CheckId::HeadlessAuth, |run, record| {
            if run.role.kind == RunKind::Headless {
                record.exit = Exit::Code(8);
            }
        });
        assert_eq!(outcome.status(), Status::Fail);
        assert!(outcome.failures[0].detail.starts_with(
            "exited 8 with nothing unset (no manifest secret or token variable for it): it failed on authentication"
        ));
    }

    #[test]
    fn a_failure_for_another_cause_is_not_this_checks_even_without_an_envelope() {
        // A usage error, a missing file, a refused connection: prose, no envelope.
        for (code, stderr) in [
            (2, "error: a release slug is required\n\nUsage: t [COMMAND]\n  login  Log in\n  list   List\n"),
            (1, "No `pyproject.toml` found in /tmp/x\n"),
            (1, "error: connection to localhost:8080 refused\n"),
            (1, "SyntaxError: Unexpected token } in JSON at position 3\n"),
            (1, "changelog index is stale\n"),
        ] {
            let outcome = judged(CheckId::HeadlessAuth, |run, record| {
                if run.role.kind == RunKind::Headless {
                    record.exit = Exit::Code(code);
                    record.stderr.bytes = stderr.as_bytes().to_vec();
                }
            });
            assert_eq!(outcome.status(), Status::Skip, "{stderr}: {outcome:#?}");
            assert_eq!(
                outcome.skipped_reason.as_deref(),
                Some(format!("no headless run showed how the tool fails without credentials: list (exited {code}) failed or waited for another cause, which other checks judge").as_str()),
            );
        }
    }

    #[test]
    fn prose_that_says_login_fails_unless_it_names_a_variable() {
        let outcome = judged(CheckId::HeadlessAuth, |run, record| {
            if run.role.kind == RunKind::Headless {
                record.exit = Exit::Code(1);
                record.stderr.bytes = b"Error: Token missing. Run `t token new` first.\n".to_vec();
            }
        });
        assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
        assert_eq!(
            outcome.failures[0].detail,
            "exited 1 with nothing unset (no manifest secret or token variable for it): it \
             failed on authentication (it said \"token\") with no error envelope, and \
             nothing it printed names a variable to set; an agent without credentials needs \
             the variable to set (REQ-C-021, REQ-F-063)"
        );
        // Naming the variable to set is what an agent needs; the envelope is
        // json_envelope's to ask for.
        let outcome = judged(CheckId::HeadlessAuth, |run, record| {
            if run.role.kind == RunKind::Headless {
                record.exit = Exit::Code(1);
                record.stderr.bytes =
                    b"Error: not logged in; set T_API_KEY or run t login\n".to_vec();
            }
        });
        assert_passed(&outcome, 1);
    }

    #[test]
    fn a_silent_wait_is_the_hang_checks_and_a_wait_naming_a_login_is_this_checks() {
        let outcome = headless(|record| {
            record.timed_out = true;
            record.exit = Exit::Unknown;
        });
        assert_eq!(outcome.status(), Status::Skip, "{outcome:#?}");
        assert!(outcome
            .skipped_reason
            .as_deref()
            .is_some_and(|why| why.contains("list (waited, naming no login)")));
        let outcome = headless(|record| {
            record.timed_out = true;
            record.exit = Exit::Unknown;
            record.stdout.bytes = b"? Log in with your browser? (Y/n) ".to_vec();
        });
        assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
        assert!(outcome.failures[0]
            .detail
            .contains("(it printed \"log in\")"));
    }

    #[test]
    fn a_profile_without_a_read_probe_skips() {
        const NO_READ: &str = r#"{
            "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
            "probes": [ { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" } ]
        }"#;
        let outcome = judged_with(NO_READ, CheckId::HeadlessAuth, |_, _| {});
        assert_eq!(outcome.status(), Status::Skip);
        assert_eq!(
            outcome.skipped_reason.as_deref(),
            Some("the profile has no read probe to run headless")
        );
    }

    #[test]
    fn runs_that_exit_0_with_nothing_unset_show_nothing_and_skip_naming_them() {
        // The skips profile has no manifest: its `list` exits 0 with nothing to unset.
        let outcome = judged(CheckId::HeadlessAuth, |_, _| {});
        assert_eq!(outcome.status(), Status::Skip);
        assert_eq!(
            outcome.skipped_reason.as_deref(),
            Some("no read probe needed auth: the headless runs of list exited 0, and no manifest says which secret or token variables they need, so none showed how the tool fails without credentials")
        );
        // With the manifest's variables unset, an exit 0 bears out what it declares.
        assert_passed(&headless(|_| {}), 1);
    }

    #[test]
    fn names_are_matched_as_words() {
        assert!(names_word("set T_TOKEN.", "T_TOKEN"));
        assert!(names_word("T_TOKEN", "T_TOKEN"));
        assert!(!names_word("set T_TOKEN_FILE", "T_TOKEN"));
        assert!(!names_word("MY_T_TOKEN", "T_TOKEN"));
        let error = serde_json::json!({"code": "X", "context": {"env": ["T_TOKEN"]}});
        assert!(names_one(&error, &["T_TOKEN".to_string()]));
    }

    #[test]
    fn a_host_not_reached_is_the_cause_even_when_the_command_names_a_token() {
        // kubectl's `create token NAME` with no cluster.
        let refused = "error: failed to create token: Post \"http://localhost:8080/api/v1/\
            namespaces/default/serviceaccounts/x/token\": dial tcp 127.0.0.1:8080: \
            connect: connection refused";
        assert_eq!(auth_words(refused), None);
        assert_eq!(
            auth_words("error: not logged in: dial tcp api.example:443: connection refused"),
            Some(quoted("not logged in"))
        );
        assert_eq!(
            auth_words("error: the token has expired"),
            Some(quoted("token"))
        );
    }
}
