//! `conform check --tools FILE`: democli and five broken CLIs in one call, each
//! with its own inferred profile and result, written as one HTML scorecard; the
//! same tools split over three shards and merged give the same result.

use std::path::Path;

use serde_json::Value;

use crate::support::conform;

/// democli's launcher and five broken CLIs, as rows of a tools file (with a
/// comment, a blank line and quoting, as people write them).
const TOOLS: &str = "# democli and five broken CLIs
benchmark/harness/cli/good/democli
benchmark/harness/cli/bad/ansi-when-piped
benchmark/harness/cli/bad/unknown-command-exit-1   # exits 1 for a made-up command

'benchmark/harness/cli/bad/envelope-missing-warnings'
\"benchmark/harness/cli/bad/usage-error-exit-64\"
benchmark/harness/cli/bad/wraps-data-at-columns
";

fn tools_file(dir: &Path) -> String {
    let path = dir.join("tools.txt");
    std::fs::write(&path, TOOLS).expect("tools file written");
    path.to_str().expect("utf-8 path").to_string()
}

fn path_arg(path: &Path) -> String {
    path.to_str().expect("utf-8 path").to_string()
}

#[test]
fn check_tools_writes_one_scorecard_of_every_tool() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tools = tools_file(dir.path());
    let html_path = dir.path().join("scorecard.html");
    let run = conform(["check", "--tools", &tools, "--html", &path_arg(&html_path)]);
    assert_eq!(
        run.code(),
        4,
        "the broken CLIs fail checks: {:#}",
        run.envelope
    );
    let results = run.envelope["data"]["results"]
        .as_array()
        .unwrap_or_else(|| panic!("a result per tool: {:#}", run.envelope));
    let tools_seen: Vec<&str> = results.iter().filter_map(|r| r["tool"].as_str()).collect();
    assert_eq!(
        tools_seen,
        [
            "democli",
            "ansi-when-piped",
            "unknown-command-exit-1",
            "envelope-missing-warnings",
            "usage-error-exit-64",
            "wraps-data-at-columns"
        ]
    );
    let status = |tool: usize, id: &str| -> String {
        results[tool]["checks"]
            .as_array()
            .and_then(|checks| checks.iter().find(|c| c["id"] == id))
            .and_then(|c| c["status"].as_str())
            .unwrap_or("absent")
            .to_string()
    };
    assert_eq!(
        results[0]["summary"]["failed"], 0,
        "democli passes: {:#}",
        results[0]
    );
    assert_eq!(status(1, "stdout_no_ansi"), "fail");
    assert_eq!(status(2, "unknown_command_exit_2"), "fail");
    assert_eq!(status(3, "json_envelope"), "fail");
    assert_eq!(status(4, "exit_code_contract"), "fail");
    assert_eq!(status(5, "width_invariant"), "fail");
    // Each tool's inferred profile, with the row it came from.
    let inferred = run.envelope["meta"]["inferred"]
        .as_array()
        .expect("meta.inferred per tool");
    let lines: Vec<u64> = inferred.iter().filter_map(|i| i["line"].as_u64()).collect();
    assert_eq!(lines, [2, 3, 4, 6, 7, 8]);
    assert_eq!(
        inferred[3]["tool"][0],
        "benchmark/harness/cli/bad/envelope-missing-warnings"
    );

    let html = std::fs::read_to_string(&html_path).expect("the scorecard");
    assert_eq!(
        html.matches("<tr><th class=\"name\" title=").count(),
        6,
        "a row per tool"
    );
    assert!(html.contains("6 tools by"), "{}", &html[..600]);
    assert!(html.contains("<a class=\"fail\" href=\"#r1-stdout_no_ansi\""));
    assert!(html.contains("<article class=\"fail\" id=\"r1-stdout_no_ansi\">"));
    assert!(
        html.contains("benchmark/harness/cli/bad/ansi-when-piped deployments list &lt;/dev/null"),
        "the shell line of a failing run"
    );
    assert!(
        !html.contains('\u{1b}'),
        "the tool's escape bytes are made visible"
    );
    screenshot(&html_path);
}

/// With Debian's chromium installed, the page in a real headless browser: the
/// screenshot goes next to the test binary's output (`docs/scorecard.png` is one).
fn screenshot(html: &Path) {
    let Some(chromium) = ["chromium", "chromium-browser"].into_iter().find(|name| {
        std::process::Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }) else {
        eprintln!("no chromium on PATH: the scorecard is not rendered in a browser");
        return;
    };
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scorecard.png");
    let _ = std::fs::remove_file(&out);
    let status = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            &format!("--screenshot={}", out.display()),
            "--window-size=1600,1000",
        ])
        .arg(format!("file://{}", html.display()))
        .stderr(std::process::Stdio::null())
        .status()
        .expect("chromium runs");
    assert!(status.success(), "chromium: {status}");
    let png = std::fs::read(&out).expect("the screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    assert!(
        png.len() > 20_000,
        "the page drew something: {} bytes",
        png.len()
    );
    eprintln!("the scorecard in a browser: {}", out.display());
}

#[test]
fn many_tool_shards_merge_into_the_whole_check() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tools = tools_file(dir.path());
    let whole = conform(["check", "--tools", &tools]);
    let shards: Vec<String> = (1..=3)
        .map(|k| {
            let path = dir.path().join(format!("shard{k}.json"));
            let spec = format!("{k}/3");
            let shard = conform([
                "check",
                "--tools",
                &tools,
                "--partition",
                &spec,
                "--json-report",
                &path_arg(&path),
            ]);
            assert!(
                matches!(shard.code(), 0 | 4),
                "shard {k}: {:#}",
                shard.envelope
            );
            path_arg(&path)
        })
        .collect();
    let merged = conform(std::iter::once("merge".to_string()).chain(shards));
    assert_eq!(merged.code(), whole.code(), "{:#}", merged.envelope);
    let verdicts = |envelope: &Value| -> Vec<(String, String, String)> {
        envelope["data"]["results"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|r| {
                let tool = r["tool"].as_str().unwrap_or("").to_string();
                r["checks"].as_array().into_iter().flatten().map(move |c| {
                    (
                        tool.clone(),
                        c["id"].as_str().unwrap_or("").to_string(),
                        c["status"].as_str().unwrap_or("").to_string(),
                    )
                })
            })
            .collect()
    };
    assert_eq!(verdicts(&merged.envelope), verdicts(&whole.envelope));
    assert_eq!(
        merged.envelope["data"]["results"].as_array().map(Vec::len),
        Some(6)
    );
    let levels = |envelope: &Value| -> Vec<Value> {
        envelope["data"]["results"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| r["levels"].clone())
            .collect()
    };
    assert_eq!(levels(&merged.envelope), levels(&whole.envelope));
}

#[test]
fn a_bad_tools_file_is_an_input_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = [
        (
            "open.txt",
            "benchmark/harness/cli/good/democli 'open\n",
            ":1: a single quote is not closed",
        ),
        ("empty.txt", "# nothing\n\n", "names no tool"),
    ];
    for (name, text, expected) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("written");
        let run = conform(["check", "--tools", &path_arg(&path)]);
        assert_eq!(run.code(), 2, "{name}: {:#}", run.envelope);
        assert_eq!(
            run.envelope["error"]["code"], "INVALID_TOOLS_FILE",
            "{name}"
        );
        let message = run.envelope["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains(expected), "{name}: {message}");
    }
    let absent = dir.path().join("absent.txt");
    let run = conform(["check", "--tools", &path_arg(&absent)]);
    assert_eq!(run.code(), 2);
    assert!(run.envelope["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("cannot read --tools")));
    // A row whose tool cannot be inferred names its line; nothing runs.
    let path = dir.path().join("missing-tool.txt");
    std::fs::write(
        &path,
        "benchmark/harness/cli/good/democli\n./no-such-tool\n",
    )
    .expect("written");
    let run = conform(["check", "--tools", &path_arg(&path)]);
    assert_ne!(run.code(), 0, "{:#}", run.envelope);
    let message = run.envelope["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("missing-tool.txt:2:"), "{message}");
}
