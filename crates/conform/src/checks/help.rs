//! `help_off_stdout`: `--help` exits 0 and keeps prose off a non-TTY stdout (empty
//! stdout or an envelope).

use super::envelope::parse;
use super::{CheckId, Context, Outcome};
use crate::plan::RunRole;

pub fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::HelpOffStdout);
    let Some(run) = ctx.run(&RunRole::Help) else {
        return outcome;
    };
    if !outcome.completed(&run) {
        return outcome;
    }
    match run.record.exit_code() {
        Some(0) => {
            let stdout = &run.record.stdout.bytes;
            if !stdout.iter().all(u8::is_ascii_whitespace) && parse(&run).is_err() {
                outcome.fail(
                    &run,
                    format!(
                        "--help wrote {} bytes of prose to stdout although it is not a terminal; route help to stderr (REQ-F-048)",
                        run.record.stdout.total_bytes
                    ),
                );
            }
        }
        code => outcome.fail(
            &run,
            format!("--help {}, expected exit 0", describe_exit(code, &run)),
        ),
    }
    outcome
}

/// "exited 1" or "was killed by SIGSEGV".
pub fn describe_exit(code: Option<i32>, run: &super::Judged<'_>) -> String {
    match (code, run.record.exit) {
        (Some(c), _) => format!("exited {c}"),
        (None, crate::exec::Exit::Signal(n)) => {
            format!("was killed by {}", super::evidence::signal_name(n))
        }
        (None, _) => "ended without an exit status".to_string(),
    }
}
