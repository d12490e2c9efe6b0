//! What the terminal checks (`tty_no_color`, `ci_terminal_json`, `width_invariant`)
//! read the same way: whether a run's output went through a pager, and which runs
//! they set aside. They judge colour and format, so a terminal run that never ended
//! (its time is not theirs to judge) or whose output a pager took (that is
//! `pager_not_invoked`'s) is not judged, and named in the skip when nothing else
//! was.

use super::super::evidence::{quoted, sentinel_call};
use super::super::Judged;
use crate::exec::PAGER_VARS;
use crate::plan::PAGER_PROGRAMS;

/// Start-up sequences a pager sends to a terminal, and what each does: `less`
/// switches to the alternate screen and sends keypad mode (`ESC[?1h ESC=`).
const PAGER_STARTS: [(&[u8], &str); 4] = [
    (b"\x1b[?1049h", "switch to the alternate screen"),
    (b"\x1b[?1047h", "switch to the alternate screen"),
    (b"\x1b[?47h", "switch to the alternate screen"),
    (b"\x1b[?1h\x1b=", "keypad mode"),
];

/// How `run` was seen to page its output, or `None`: the sentinel called by a
/// pager variable or a pager's name, a process named as a pager in the tool's group,
/// or a pager's start-up sequence on a terminal run's stdout.
pub(crate) fn pager_seen(run: &Judged<'_>) -> Option<String> {
    let mut seen = Vec::new();
    let calls: Vec<String> = run
        .record
        .sandbox
        .iter()
        .flat_map(|report| &report.sentinel_calls)
        .filter(|call| is_pager_var(&call.name) || is_pager_program(&call.name))
        .map(sentinel_call)
        .collect();
    if !calls.is_empty() {
        seen.push(format!(
            "the kit's sentinel was called as {}",
            calls.join(", then ")
        ));
    }
    // The sentinel answers to a pager's name too, and shows in the group by it.
    let sentinel_names: Vec<&str> = run
        .record
        .sandbox
        .iter()
        .flat_map(|report| &report.sentinel_calls)
        .map(|call| call.name.as_str())
        .collect();
    let own = own_name(run);
    let processes: Vec<&str> = run
        .record
        .processes_seen
        .iter()
        .map(String::as_str)
        .filter(|name| is_pager_program(name) && !sentinel_names.contains(name))
        .filter(|name| Some(*name) != own.as_deref())
        .collect();
    if !processes.is_empty() {
        seen.push(format!(
            "a process named {} ran in its process group",
            processes.join(" and ")
        ));
    }
    if !run.planned.role.kind.on_pipes() {
        if let Some((at, what)) = pager_start(&run.record.stdout.bytes) {
            seen.push(format!(
                "stdout on the terminal holds a pager's start-up sequence at byte {at} ({what})"
            ));
        }
    }
    (!seen.is_empty()).then(|| seen.join("; "))
}

fn is_pager_var(name: &str) -> bool {
    PAGER_VARS.contains(&name)
}

fn is_pager_program(name: &str) -> bool {
    PAGER_PROGRAMS.contains(&name)
}

/// The tool's own command name as `/proc` shows it (at most 15 bytes of the
/// program's file name): a tool named `more` is not its own pager.
fn own_name(run: &Judged<'_>) -> Option<String> {
    let program = run.record.argv.first()?;
    let name = std::path::Path::new(program).file_name()?.to_string_lossy();
    Some(name.chars().take(15).collect())
}

/// The first pager start-up sequence in `bytes`: where, and what it does.
fn pager_start(bytes: &[u8]) -> Option<(usize, &'static str)> {
    PAGER_STARTS
        .iter()
        .filter_map(|(sequence, what)| {
            let at = bytes
                .windows(sequence.len())
                .position(|window| window == *sequence)?;
            Some((at, *what))
        })
        .min_by_key(|(at, _)| *at)
}

/// The terminal runs a check set aside, and why, for its skip reason.
#[derive(Debug, Default)]
pub(crate) struct SetAside {
    reasons: Vec<String>,
}

impl SetAside {
    /// Whether `run` is set aside, remembering why: it hit its limit, or a pager
    /// took its output. `also` is added to a hang's reason (what the wait may have
    /// been).
    pub(crate) fn set_aside(&mut self, run: &Judged<'_>, also: &str) -> bool {
        let label = quoted(&run.planned.label);
        if run.record.error.is_none() && run.record.timed_out {
            self.reasons.push(format!(
                "{label} hit the {}s limit on the terminal, though the same call ended in \
                 time on pipes{also}; colour and format are not judged on a run that never \
                 ended",
                run.record.limit.as_secs_f64()
            ));
            return true;
        }
        if let Some(how) = pager_seen(run) {
            self.reasons.push(format!(
                "{label} paged its output ({how}), so the terminal shows the pager's \
                 bytes, not the tool's; pager_not_invoked judges it"
            ));
            return true;
        }
        false
    }

    /// The skip reason naming every run set aside, or `None` when there was none.
    pub(crate) fn reason(&self) -> Option<String> {
        (!self.reasons.is_empty()).then(|| format!("not judged: {}", self.reasons.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_pager_start_up_sequence() {
        assert_eq!(
            pager_start(b"\x1b[?1049h\x1b[?1h\x1b=text"),
            Some((0, "switch to the alternate screen"))
        );
        assert_eq!(
            pager_start(b"ab\x1b[?1h\x1b=text"),
            Some((2, "keypad mode"))
        );
        assert_eq!(pager_start(b"\x1b[1mbold\x1b[0m \x1b[?25l"), None);
    }
}
