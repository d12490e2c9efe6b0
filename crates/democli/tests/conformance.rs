//! democli asserts its own conformance in `cargo test`, through conform's library,
//! the way any Rust CLI can (docs/library.md).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use conform_core::{Suite, SuiteError};

fn profile(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../conformance/profiles")
        .join(name)
}

fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// A profile of democli's, run with this build's democli.
fn democli_suite(name: &str) -> Suite {
    Suite::load(profile(name))
        .expect("the profile loads")
        .program(env!("CARGO_BIN_EXE_democli"))
}

#[test]
fn democli_passes_its_profile_through_the_library() {
    let report = democli_suite("democli.json").run().expect("the suite runs");
    report.assert_pass();
    report.assert_level(3);
    assert!(report.failed_checks().is_empty());
    // The seed has no probe that writes 2048 bytes or goes to the network.
    assert_eq!(
        report.skipped_checks(),
        ["output_size_cap", "timeout_flag", "network_timeout"],
        "{report}"
    );
    // The same document the reference kit writes.
    let result = report.result();
    assert_eq!(result["tool"], "democli");
    assert_eq!(result["levels"]["level_3"], "pass");
    assert_eq!(result["summary"]["failed"], 0);
}

/// The second profile exercises every check: a network command, a list big enough
/// for the output cap, a positional to corrupt, ... so none may be skipped.
#[test]
fn democli_passes_every_check_of_the_full_profile_and_skips_none() {
    let report = democli_suite("democli-full.json")
        .run()
        .expect("the suite runs");
    report.assert_pass();
    report.assert_level(3);
    assert!(report.skipped_checks().is_empty(), "{report}");
}

#[test]
fn a_broken_cli_panics_with_the_failing_check_and_its_evidence() {
    // Its launcher runs this build's democli with the defect switched on.
    let report = Suite::load(profile("bad/ansi-when-piped.json"))
        .expect("the profile loads")
        .only(["stdout_no_ansi", "no_hang_stdin_closed"])
        .run()
        .expect("the suite runs");
    assert!(!report.passed());
    assert_eq!(report.failed_checks(), ["stdout_no_ansi"]);
    let message = panic_text(
        catch_unwind(AssertUnwindSafe(|| report.assert_pass())).expect_err("assert_pass panics"),
    );
    assert!(
        message.contains("1 conformance check failed: stdout_no_ansi"),
        "{message}"
    );
    // The text report follows: the check, the probe's argv, the evidence.
    assert!(message.contains("ANSI escape sequence"), "{message}");
    assert!(message.contains("deployments list"), "{message}");
    assert!(!message.contains("\u{1b}["), "no raw escapes: {message}");
}

#[test]
fn only_the_selected_checks_are_judged_and_a_skip_is_never_a_pass() {
    let report = democli_suite("democli.json")
        .only(["help_off_stdout"])
        .run()
        .expect("the suite runs");
    report.assert_pass();
    assert_eq!(report.result()["summary"]["passed"], 1);
    // Level 1 has other checks, left out: not certified.
    assert!(!report.level_passed(1));
    let message = panic_text(
        catch_unwind(AssertUnwindSafe(|| report.assert_level(1))).expect_err("not level 1"),
    );
    assert!(
        message.contains("does not reach conformance level 1"),
        "{message}"
    );
}

#[test]
fn a_cancelled_suite_judges_nothing_and_leaves_other_suites_alone() {
    let suite = democli_suite("democli.json").only(["reference"]);
    let other = suite.clone().only(["extension"]);
    // A clone shares nothing with its original but the settings: its own cancel.
    let cancelled = democli_suite("democli.json");
    cancelled.canceller().cancel();
    let (stopped, passed) = std::thread::scope(|scope| {
        let stopped = scope.spawn(|| cancelled.run().expect("runs"));
        let passed = scope.spawn(|| suite.run().expect("runs"));
        (
            stopped.join().expect("no panic"),
            passed.join().expect("no panic"),
        )
    });
    assert!(!stopped.passed());
    assert!(stopped.result().is_null());
    let message = panic_text(
        catch_unwind(AssertUnwindSafe(|| stopped.assert_pass())).expect_err("never a pass"),
    );
    assert!(message.contains("no check judged anything"), "{message}");
    passed.assert_pass();
    other.run().expect("runs").assert_pass();
}

#[test]
fn bad_input_is_an_error_that_says_what_to_fix() {
    let error = Suite::load(profile("democli.json"))
        .expect("the profile loads")
        .only(["no_such_check"])
        .run()
        .expect_err("an unknown check");
    assert!(matches!(error, SuiteError::UnknownCheck { .. }));
    assert!(error.to_string().contains("json_envelope"), "{error}");

    let error = Suite::load(profile("no-such-profile.json")).expect_err("no file");
    assert!(
        error.to_string().contains("cannot read the profile"),
        "{error}"
    );

    let error = Suite::load(profile("democli.json"))
        .expect("the profile loads")
        .program("/no/such/democli")
        .run()
        .expect_err("no program");
    let text = error.to_string();
    assert!(
        text.contains("/command/0") && text.contains("/no/such/democli"),
        "{text}"
    );
}

/// docs/library.md's form, with `?`: a test may return the suite's error.
#[test]
fn the_readme_snippet_works_with_question_marks() -> Result<(), Box<dyn std::error::Error>> {
    Suite::load(profile("democli.json"))?
        .program(env!("CARGO_BIN_EXE_democli"))
        .only(["help_off_stdout", "no_hang_stdin_closed"])
        .run()?
        .assert_pass();
    Ok(())
}

/// Busy threads that keep every CPU taken until dropped, even when a test panics.
struct Busy {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Busy {
    fn start(count: usize) -> Busy {
        use std::sync::atomic::Ordering;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let threads = (0..count)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut n: u64 = 0;
                    while !stop.load(Ordering::Relaxed) {
                        n = std::hint::black_box(n.wrapping_mul(31).wrapping_add(7));
                    }
                })
            })
            .collect();
        Busy { stop, threads }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// What a verdict is: which checks passed, failed and were skipped.
fn verdicts(name: &str) -> (Vec<&'static str>, Vec<&'static str>, bool) {
    let mut suite = Suite::load(profile(name)).expect("the profile loads");
    if name == "democli.json" {
        suite = suite.program(env!("CARGO_BIN_EXE_democli"));
    }
    let report = suite.run().expect("the suite runs");
    (
        report.failed_checks(),
        report.skipped_checks(),
        report.passed(),
    )
}

#[test]
fn verdicts_under_load_equal_the_quiet_ones() {
    // Tools whose verdicts time decides: a hang, a stream written at the end, a
    // helper holding stdout, a stream interrupted mid-way.
    let profiles = [
        "democli.json",
        "bad/hang-on-list.json",
        "bad/stream-buffered.json",
        "bad/helper-holds-stdout.json",
        "bad/sigint-no-cancel-line.json",
    ];
    let quiet: Vec<_> = profiles.iter().map(|name| verdicts(name)).collect();
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    let loaded: Vec<_> = {
        let _busy = Busy::start(cpus * 2);
        std::thread::scope(|scope| {
            let suites: Vec<_> = profiles
                .iter()
                .map(|name| scope.spawn(move || verdicts(name)))
                .collect();
            suites
                .into_iter()
                .map(|suite| suite.join().expect("a suite thread ran to its end"))
                .collect()
        })
    };
    for ((name, quiet), loaded) in profiles.iter().zip(&quiet).zip(&loaded) {
        assert_eq!(
            loaded, quiet,
            "{name}: (failed, skipped, passed) under load vs quiet"
        );
    }
    // The quiet verdicts are the expected ones, so equality proves something.
    assert!(quiet[0].2, "democli passes");
    assert_eq!(quiet[1].0.first(), Some(&"no_hang_stdin_closed"));
}
