//! README.md and docs/*.md: every command they show runs, and what they quote of a
//! run is a real run's output, so the pages cannot go stale.
//!
//! The convention for the pages' fenced blocks:
//!
//! - A ```sh block holds commands to run here. Each line that is neither blank nor a
//!   `#` comment is one command, run with `sh -c`. A page's commands run in order, in
//!   one project directory, so a command can read what an earlier one wrote.
//! - The project is a scratch directory whose `./target/release/mytool` is democli,
//!   with this repository's `conformance/` and `benchmark/` linked in, `conform` on
//!   PATH, and its own HOME.
//! - A command must exit 0, unless its trailing comment begins with `exits N`
//!   (`conform run ... --format text   # exits 4`): then it must exit N.
//! - A line that begins with `cargo ` is the set-up `.ci/run` makes (building and
//!   testing the workspace cannot run inside its own test): it must appear in
//!   `.ci/run` word for word, and is not run here.
//! - Every other fence language is text to read, not run: `yaml` for CI, `rust`,
//!   `toml`, `json`, `text` for reports and synopses. Commands that need what this
//!   machine lacks (a GitHub runner) go there, never in a ```sh block.
//!
//! A ```text block that follows a command in the README is that command's output:
//! every line of it appears, in order, in a real run's output (`...` marks lines
//! left out; times and the repository's absolute path are masked).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::{path_with_conform, repo_root, EnvRemoveAll, DEVELOPER_ENV};

/// One command of a page's ```sh blocks.
#[derive(Debug)]
struct DocCommand {
    line: String,
    expected_exit: i32,
}

/// The lines of a page's ```sh blocks, each with the exit code it must give.
fn sh_commands(page: &str) -> Vec<DocCommand> {
    let mut out = Vec::new();
    let mut in_sh = false;
    for line in page.lines() {
        match line.trim() {
            "```sh" => in_sh = true,
            "```" => in_sh = false,
            command if in_sh && !command.is_empty() && !command.starts_with('#') => {
                out.push(DocCommand {
                    line: command.to_string(),
                    expected_exit: expected_exit(command),
                })
            }
            _ => {}
        }
    }
    out
}

/// The N of a trailing `# exits N` comment, else 0.
fn expected_exit(command: &str) -> i32 {
    let Some((_, comment)) = command.split_once(" # exits ") else {
        return 0;
    };
    let digits: String = comment.chars().take_while(char::is_ascii_digit).collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("`# exits` without a number in `{command}`"))
}

/// The blocks of one fence language, each as its lines.
fn fenced_blocks<'a>(page: &'a str, language: &str) -> Vec<Vec<&'a str>> {
    let opening = format!("```{language}");
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in page.lines() {
        match current.as_mut() {
            None if line.trim() == opening => current = Some(Vec::new()),
            None => {}
            Some(_) if line.trim() == "```" => blocks.extend(current.take()),
            Some(lines) => lines.push(line),
        }
    }
    blocks
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// docs/*.md, in name order.
fn docs_pages() -> Vec<PathBuf> {
    let dir = repo_root().join("docs");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("docs/")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    pages.sort();
    pages
}

/// A project directory whose `./target/release/mytool` is democli, with the
/// repository's profiles and launchers linked in.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let release = dir.path().join("target/release");
    std::fs::create_dir_all(&release).expect("mkdir");
    std::fs::create_dir_all(dir.path().join("home")).expect("mkdir home");
    let root = repo_root().canonicalize().expect("repo root");
    let democli = root.join("benchmark/harness/cli/good/democli");
    let tool = release.join("mytool");
    std::fs::write(
        &tool,
        format!("#!/bin/sh\nexec '{}' \"$@\"\n", democli.display()),
    )
    .expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    for linked in ["conformance", "benchmark"] {
        std::os::unix::fs::symlink(root.join(linked), dir.path().join(linked)).expect("symlink");
    }
    dir
}

/// Run a page's commands in a fresh project; returns how many ran.
fn run_page(page: &Path) -> usize {
    let text = read(page);
    let ci_script = read(&repo_root().join(".ci/run"));
    let project = project();
    let home = project.path().join("home");
    let mut ran = 0;
    for command in sh_commands(&text) {
        if command.line.starts_with("cargo ") {
            assert!(
                ci_script.contains(&command.line),
                "{}: `{}` is not in .ci/run, which is what runs the set-up commands",
                page.display(),
                command.line
            );
            continue;
        }
        let output = Command::new("sh")
            .args(["-c", &command.line])
            .current_dir(project.path())
            .env("PATH", path_with_conform())
            .env_remove_all(DEVELOPER_ENV)
            .env("HOME", &home)
            .env_remove("XDG_DATA_HOME")
            .stdin(Stdio::null())
            .output()
            .expect("sh runs");
        assert_eq!(
            output.status.code(),
            Some(command.expected_exit),
            "{}: `{}` should exit {}:\n{}\n{}",
            page.display(),
            command.line,
            command.expected_exit,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        ran += 1;
    }
    ran
}

#[test]
fn every_command_of_the_readme_runs_as_written() {
    let readme = repo_root().join("README.md");
    let commands = sh_commands(&read(&readme));
    for setup in [
        "cargo build --release && target/release/conform run conformance/profiles/democli.json",
        "cargo test --workspace",
    ] {
        assert!(
            commands.iter().any(|c| c.line == setup),
            "the README's set-up lost `{setup}`"
        );
    }
    assert!(
        commands
            .iter()
            .any(|c| c.line == "conform check -- ./target/release/mytool"),
        "{commands:?}"
    );
    assert!(run_page(&readme) >= 2, "{commands:?}");
}

#[test]
fn every_command_of_the_docs_pages_runs_as_written() {
    let pages = docs_pages();
    let counts: Vec<(String, usize)> = std::thread::scope(|scope| {
        let running: Vec<_> = pages
            .iter()
            .map(|page| scope.spawn(move || (page.display().to_string(), run_page(page))))
            .collect();
        running
            .into_iter()
            .map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e))
            })
            .collect()
    });
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    assert!(total >= 15, "too few commands ran: {counts:?}");
    let with_exit = pages
        .iter()
        .flat_map(|page| sh_commands(&read(page)))
        .filter(|c| c.expected_exit != 0)
        .count();
    assert!(
        with_exit >= 1,
        "no page shows a command that fails on purpose"
    );
}

/// The summary line's `(network: ...)` becomes `(network: #)`: the page shows a
/// namespace, a machine that allows none says so instead.
fn mask_network(line: &str) -> String {
    match line.split_once(" (network: ") {
        Some((summary, _)) if summary.starts_with("Summary: ") => {
            format!("{summary} (network: #)")
        }
        _ => line.to_string(),
    }
}

/// `13 ms` and `1.1 s` become `# ms` and `# s`: a run's times differ from the page's.
fn mask_times(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts_number =
            chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_alphanumeric());
        if starts_number {
            let mut end = i;
            while end < chars.len() && (chars[end].is_ascii_digit() || chars[end] == '.') {
                end += 1;
            }
            let rest: String = chars[end..].iter().collect();
            let unit = [" ms", " s"].into_iter().find(|unit| {
                rest.strip_prefix(unit)
                    .is_some_and(|after| after.chars().next().is_none_or(|c| !c.is_alphanumeric()))
            });
            if unit.is_some() {
                out.push('#');
                i = end;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

#[test]
fn the_readme_report_excerpt_is_a_real_runs_output() {
    let readme = read(&repo_root().join("README.md"));
    let command = "conform run conformance/profiles/bad/help-on-stdout.json --format text";
    assert!(
        readme.contains(command),
        "the README no longer shows `{command}`"
    );
    let excerpt = fenced_blocks(&readme, "text")
        .into_iter()
        .find(|block| {
            block
                .iter()
                .any(|line| line.contains("help-on-stdout.json"))
        })
        .expect("the README's report excerpt");
    let root = repo_root().canonicalize().expect("repo root");
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(command.split_whitespace().skip(1))
        .current_dir(&root)
        .env_remove_all(DEVELOPER_ENV)
        // The excerpt is a developer's run: where CI and its kin are set (as in
        // `.ci/run`), conform unsets them in each run and its shell lines say so.
        .env_remove_all(&[
            "NO_COLOR",
            "CI",
            "GITHUB_ACTIONS",
            "JENKINS_URL",
            "FORCE_COLOR",
            "CLICOLOR",
            "CLICOLOR_FORCE",
            "COLUMNS",
            "LINES",
            "DEBUG",
            "VERBOSE",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("conform runs");
    assert_eq!(output.status.code(), Some(4));
    let text = String::from_utf8_lossy(&output.stdout).replace(&format!("{}/", root.display()), "");
    let real: Vec<String> = text
        .lines()
        .map(|l| mask_network(&mask_times(l.trim_end())))
        .collect();
    let mut from = 0;
    for line in excerpt.iter().filter(|line| line.trim() != "...") {
        let wanted = mask_network(&mask_times(line.trim_end()));
        match real[from..].iter().position(|l| *l == wanted) {
            Some(at) => from += at + 1,
            None => panic!(
                "the README's report line {wanted:?} is not in a real run's output (after line {from}):\n{text}"
            ),
        }
    }
}

#[test]
fn the_checks_page_has_a_row_for_every_check() {
    let page = read(&repo_root().join("docs/checks.md"));
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["checks", "--format", "json"])
        .env_remove_all(DEVELOPER_ENV)
        .output()
        .expect("conform runs");
    assert_eq!(output.status.code(), Some(0));
    let catalog: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the catalog's envelope");
    let checks = catalog["data"]["checks"]
        .as_array()
        .expect("the catalog's checks");
    for check in checks {
        let id = check["id"].as_str().expect("an id");
        assert!(
            page.contains(&format!("| `{id}` |")),
            "docs/checks.md has no row for {id}"
        );
    }
    let readme = read(&repo_root().join("README.md"));
    let all = format!("all {} checks", checks.len());
    assert!(readme.contains(&all), "the README should say {all:?}");
}

#[test]
fn the_readme_links_every_docs_page() {
    let readme = read(&repo_root().join("README.md"));
    for page in docs_pages() {
        let name = page.file_name().and_then(|n| n.to_str()).expect("a name");
        assert!(
            readme.contains(&format!("(docs/{name})")),
            "the README does not link docs/{name}"
        );
    }
    assert!(
        readme.contains("[Differences from the reference kit](docs/differences.md)"),
        "validation errors send users to the README's differences from the reference kit"
    );
    let install = "cargo install --path ";
    let at = readme
        .find(install)
        .expect("the README says how to install conform");
    let path: String = readme[at + install.len()..]
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '`')
        .collect();
    let manifest = read(&repo_root().join(&path).join("Cargo.toml"));
    assert!(
        manifest.contains("name = \"conform\""),
        "`{install}{path}` installs no conform binary"
    );
}

#[test]
fn the_broken_cli_table_keeps_its_markers() {
    let page = read(&repo_root().join("docs/zero-config.md"));
    let begin = page.find("<!-- broken-clis:begin -->");
    let end = page.find("<!-- broken-clis:end -->");
    assert!(
        matches!((begin, end), (Some(b), Some(e)) if b < e),
        "docs/zero-config.md lost its broken-clis markers"
    );
}
