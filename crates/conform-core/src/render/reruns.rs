//! The runs made again alone: where time decided a run while the machine kept it
//! from the CPU, every report says so, with both attempts.

use super::show;
use crate::checks::evidence::RunFacts;
use crate::result::ProfileReport;

/// The runs of `result` that were made again alone.
pub(crate) fn made_again(result: &ProfileReport) -> impl Iterator<Item = &RunFacts> {
    result.runs.iter().filter(|run| run.first_attempt.is_some())
}

/// How many runs over `results` were made again alone.
pub(crate) fn count(results: &[ProfileReport]) -> usize {
    results.iter().map(|r| made_again(r).count()).sum()
}

/// How many of those were starved again, alone: inconclusive runs.
pub(crate) fn starved_again(results: &[ProfileReport]) -> usize {
    results
        .iter()
        .map(|r| made_again(r).filter(|run| run.starved_again).count())
        .sum()
}

/// One line per run made again: "list (stdin closed): no exit within the limit
/// (process group killed) after waiting 3.1 s for a CPU with 14 runs in flight;
/// made again alone: exit 0 in 0.4 s".
pub(crate) fn lines(result: &ProfileReport) -> Vec<String> {
    made_again(result)
        .filter_map(|run| {
            let first = run.first_attempt.as_deref()?;
            let verdict = if run.starved_again {
                "; starved again, so the checks that read it skip: the machine never gave it the CPU it needed"
            } else {
                ""
            };
            Some(format!(
                "{} (stdin {}): {} after waiting {} for a CPU with {} runs in flight; made again alone: {} in {} (waited {}){verdict}",
                show::visible(&run.probe),
                run.stdin,
                decided(first),
                seconds(first.cpu_wait.tool_ms.max(first.cpu_wait.kit_ms)),
                first.cpu_wait.in_flight,
                decided(run),
                seconds(run.duration_ms),
                seconds(run.cpu_wait.tool_ms.max(run.cpu_wait.kit_ms)),
            ))
        })
        .collect()
}

/// How an attempt ended, naming what time decided.
fn decided(run: &RunFacts) -> String {
    let ended = show::ended(run);
    match &run.trigger {
        Some(trigger) if trigger.after_exit => format!("{ended}, line N read after the exit"),
        _ if run.pipe_held_open => format!("{ended}, a pipe still held after the grace"),
        _ => ended,
    }
}

fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::evidence::CpuWaitFacts;

    #[test]
    fn a_run_made_again_names_both_attempts_and_the_wait() {
        let first = RunFacts {
            probe: "list".into(),
            stdin: "closed",
            timed_out: true,
            duration_ms: 5000,
            cpu_wait: CpuWaitFacts {
                tool_ms: 3100,
                kit_ms: 40,
                in_flight: 14,
            },
            ..RunFacts::default()
        };
        let again = RunFacts {
            probe: "list".into(),
            stdin: "closed",
            exit_code: Some(0),
            duration_ms: 400,
            cpu_wait: CpuWaitFacts {
                tool_ms: 2,
                kit_ms: 0,
                in_flight: 1,
            },
            first_attempt: Some(Box::new(first)),
            ..RunFacts::default()
        };
        let text = format!(
            "{} (stdin closed): no exit within the limit (process group killed) after waiting 3.1 s for a CPU with 14 runs in flight; made again alone: exit 0 in 0.4 s (waited 0.0 s)",
            "list"
        );
        let report = ProfileReport {
            profile: "p.json".into(),
            tool: "t".into(),
            levels: crate::result::Levels {
                level_1: crate::result::LevelStatus::Pass,
                level_2: crate::result::LevelStatus::Pass,
                level_3: crate::result::LevelStatus::Pass,
            },
            summary: crate::result::Summary {
                passed: 0,
                failed: 0,
                skipped: 0,
            },
            checks: vec![],
            runs: vec![again, RunFacts::default()],
            duration_ms: 0,
            commands: Default::default(),
        };
        assert_eq!(lines(&report), [text]);
        assert_eq!(count(std::slice::from_ref(&report)), 1);
    }
}
