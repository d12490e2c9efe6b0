//! `conform check --tools FILE`: several tools in one call, one command line per
//! row. Each tool gets its own profile, inferred as `conform check -- TOOL` infers
//! one, and its own result; every tool's runs are made in the one pool, and the
//! envelope lists a result per tool as `conform run DIR` lists one per profile.
//! Each tool is inferred and run hermetically, as `conform check -- TOOL` is, from
//! its own scratch directory, with its own credentials unset.
//! `--partition` splits the (tool, check) pairs as it splits (profile, check) ones.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::check::{infer_tool, scratch_dir, HermeticTool, ToolSettings};
use super::output::{emit, report_error};
use super::run::{execute, prepare, write_sarif_of_nothing_run, Extra, How, RunRequest};
use super::Output;
use crate::envelope::{ErrorDetail, ExitStatus};
use crate::init::Failure;
use crate::profile::Violation;

/// What `conform check --tools` was asked to do.
#[derive(Debug, Clone)]
pub struct ToolsRequest {
    /// One command line per row; blank lines and `#` comments are skipped.
    pub file: PathBuf,
    /// Each run's limit while a profile is inferred, and its `timeout_seconds`.
    pub timeout_seconds: u64,
    /// Run the destructive probes too.
    pub allow_destructive: bool,
    /// `--network inherit`: runs reach the network the machine gives them, and
    /// commands whose names say they mutate are left out.
    pub inherit_network: bool,
    /// How to run and report, as `conform run`; its `profiles` are ignored.
    pub run: RunRequest,
}

/// A tool of the file: its row and its words.
struct Row {
    line: usize,
    tool: Vec<String>,
}

/// `conform check --tools`: read the rows, infer each tool's profile, run them all
/// in one pool, report as `conform run` does for several profiles.
pub fn check_tools(request: &ToolsRequest, out: &Output) -> ExitStatus {
    let (output, selection, mut config) = match prepare(&request.run, out) {
        Ok(prepared) => prepared,
        Err(status) => return status,
    };
    let bad_file = |message: String| {
        let fix = "Write one command line per row (a tool and its leading arguments, quoted as a shell quotes them); # starts a comment";
        nothing_ran(request, &message, fix);
        let detail = ErrorDetail::invalid_input("INVALID_TOOLS_FILE", message, fix);
        report_error(
            ExitStatus::InvalidInput,
            detail,
            Value::Null,
            out.json,
            out.started,
        )
    };
    let rows = match std::fs::read_to_string(&request.file)
        .map_err(|e| format!("cannot read --tools {}: {e}", request.file.display()))
        .and_then(|text| rows(&text, &request.file))
    {
        Ok(rows) if rows.is_empty() => {
            return bad_file(format!("--tools {} names no tool", request.file.display()))
        }
        Ok(rows) => rows,
        Err(message) => return bad_file(message),
    };
    // Every tool's runs are made from a directory of its own in here.
    let scratch = match scratch_dir("tools") {
        Ok(dir) => dir,
        Err(failure) => return failed(None, failure, request, out),
    };
    let inferred = match infer_all(&rows, request, scratch.path()) {
        Ok(inferred) => inferred,
        Err((row, failure)) => return failed(Some(row), failure, request, out),
    };
    let mut warnings = Vec::new();
    let mut described = Vec::new();
    let mut text = String::new();
    for (row, tool) in rows.iter().zip(&inferred) {
        let name = row.tool.join(" ");
        for warning in &tool.inferred.generated.warnings {
            eprintln!("conform check: warning: {name}: {}", warning.message);
            warnings.push(json!({ "tool": name, "warning": warning }));
        }
        let mut meta = tool.meta();
        if let Some(meta) = meta.as_object_mut() {
            meta.insert("tool".into(), json!(row.tool));
            meta.insert("line".into(), json!(row.line));
        }
        described.push(meta);
        text.push_str(&format!("{name} (line {}): ", row.line));
        text.push_str(&tool.summary());
    }
    if !out.json && !request.run.stream && emit(&text) != ExitStatus::Success {
        return ExitStatus::GeneralError;
    }
    config.hermetic = inferred.iter().map(|tool| tool.hermetic.clone()).collect();
    let mut how = How::new(output, &selection, &config, out);
    how.extra = Some(Extra {
        meta: vec![("inferred", json!(described))],
        warnings,
    });
    let loaded: Vec<_> = inferred.iter().map(|tool| &tool.inferred.loaded).collect();
    let status = execute(&request.run, &loaded, &how);
    drop(scratch);
    status
}

/// Inferences in progress at once per job slot.
const INFERENCES_PER_JOB: usize = 4;

/// Every tool's profile, inferred side by side (a few per job slot) as
/// `conform check -- TOOL` infers it, each under `scratch/row-N` (N its line);
/// the first row that cannot be inferred, with why.
fn infer_all(
    rows: &[Row],
    request: &ToolsRequest,
    scratch: &Path,
) -> Result<Vec<HermeticTool>, (usize, Failure)> {
    // Inference mostly waits (help calls, trial runs that sleep or hang to their
    // limit), so several per job slot; a queue, so one slow tool holds up no other.
    let jobs = request
        .run
        .jobs
        .or_else(|| std::thread::available_parallelism().ok().map(usize::from))
        .unwrap_or(1)
        .max(1);
    let workers = (jobs * INFERENCES_PER_JOB).min(rows.len()).max(1);
    let settings = ToolSettings {
        timeout_seconds: request.timeout_seconds,
        allow_destructive: request.allow_destructive,
        inherit_network: request.inherit_network,
        cancel: &request.run.cancel,
        budget: None,
        progress: None,
    };
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<Result<HermeticTool, Failure>>> =
        (0..rows.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let (settings, next) = (&settings, &next);
                scope.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(row) = rows.get(index) else {
                            return done;
                        };
                        let dir = scratch.join(format!("row-{}", row.line));
                        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            infer_tool(&row.tool, None, settings, &dir)
                        }))
                        .unwrap_or_else(|_| Err(panicked()));
                        done.push((index, result));
                    }
                })
            })
            .collect();
        for handle in handles {
            // A worker's panics are caught per tool above.
            for (index, result) in handle.join().unwrap_or_default() {
                results[index] = Some(result);
            }
        }
    });
    let mut inferred = Vec::with_capacity(rows.len());
    for (row, result) in rows.iter().zip(results) {
        let result = result.unwrap_or_else(|| Err(panicked()));
        inferred.push(result.map_err(|failure| (row.line, failure))?);
    }
    Ok(inferred)
}

/// Inferring a tool's profile panicked (caught per tool, so the others go on).
fn panicked() -> Failure {
    Failure::tool(
        "INFERENCE_PANICKED",
        "inferring the tool's profile panicked",
        "please report this to conform's maintainers",
    )
}

/// A tool's profile could not be inferred (or no scratch directory made): nothing
/// runs, and the error names the row when there is one.
fn failed(
    line: Option<usize>,
    mut failure: Failure,
    request: &ToolsRequest,
    out: &Output,
) -> ExitStatus {
    if let Some(status) = request.run.cancel.exit_status() {
        failure.status = status;
    }
    for warning in &failure.warnings {
        eprintln!("conform check: warning: {}", warning.message);
    }
    if let Some(line) = line {
        failure.message = format!(
            "--tools {}:{line}: {}",
            request.file.display(),
            failure.message
        );
    }
    let status = failure.status;
    nothing_ran(request, &failure.message, &failure.fix);
    let detail = super::failure_detail(failure);
    if !out.json {
        eprintln!("conform: {}", detail.message);
        eprintln!("fix: {}", detail.fix_required.as_deref().unwrap_or(""));
        return status;
    }
    report_error(status, detail, Value::Null, out.json, out.started)
}

/// Nothing ran: the --sarif file asked for says why, located at the tools file (the
/// message names the row), as `conform check -- TOOL` locates it at the tool.
fn nothing_ran(request: &ToolsRequest, message: &str, fix: &str) {
    let reason = Violation::new("", message, fix);
    let file = request.file.display().to_string();
    write_sarif_of_nothing_run(&request.run, &[(file, vec![reason])]);
}

/// The rows of a tools file: one command line each, split into words as a POSIX
/// shell splits them (quotes, backslashes); blank lines and comments skipped.
fn rows(text: &str, file: &Path) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let words = split_words(line)
            .map_err(|why| format!("--tools {}:{}: {why}", file.display(), n + 1))?;
        if !words.is_empty() {
            rows.push(Row {
                line: n + 1,
                tool: words,
            });
        }
    }
    Ok(rows)
}

/// `line` split into words as a shell splits a simple command: whitespace between
/// words, `'...'` literal, `"..."` with `\"`, `\\`, `\$` and `` \` `` escaped, a
/// backslash outside quotes escaping the next character, and `#` at the start of a
/// word beginning a comment. Nothing is expanded.
pub(crate) fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(done) = word.take() {
                    words.push(done);
                }
            }
            '#' if word.is_none() => break,
            '\'' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => current.push(c),
                        None => return Err("a single quote is not closed".into()),
                    }
                }
            }
            '"' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e @ ('"' | '\\' | '$' | '`')) => current.push(e),
                            Some(other) => {
                                current.push('\\');
                                current.push(other);
                            }
                            None => return Err("a double quote is not closed".into()),
                        },
                        Some(c) => current.push(c),
                        None => return Err("a double quote is not closed".into()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(e) => word.get_or_insert_with(String::new).push(e),
                None => return Err("the line ends in a backslash".into()),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(done) = word {
        words.push(done);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::split_words;

    fn words(line: &str) -> Vec<String> {
        split_words(line).unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    #[test]
    fn words_are_split_as_a_shell_splits_them() {
        assert_eq!(
            words("  ./tool  --flag value "),
            ["./tool", "--flag", "value"]
        );
        assert_eq!(
            words("tool 'two words' \"a \\\"b\\\"\""),
            ["tool", "two words", "a \"b\""]
        );
        assert_eq!(words(r"tool a\ b ''"), ["tool", "a b", ""]);
        assert_eq!(words("tool x # a comment"), ["tool", "x"]);
        assert_eq!(words("tool a#b"), ["tool", "a#b"]);
        assert!(words("# only a comment").is_empty());
        assert!(words("").is_empty());
    }

    #[test]
    fn an_open_quote_is_an_error() {
        assert_eq!(
            split_words("tool 'open"),
            Err("a single quote is not closed".into())
        );
        assert_eq!(
            split_words("tool \"open"),
            Err("a double quote is not closed".into())
        );
        assert_eq!(
            split_words("tool \\"),
            Err("the line ends in a backslash".into())
        );
    }
}
