//! A failure mode scored by its Evaluation table (`rubric.rs`): the highest row
//! whose conditions the runs showed, with no lower row's condition seen.

use super::rubric::{Fact, Rubric};
use super::Shown;
use crate::checks::Status;
use crate::result::CheckReport;

/// What the runs showed of one mode.
pub(super) struct Sight<'a> {
    /// The selected checks that map to the mode.
    pub checks: &'a [&'a CheckReport],
    /// The failing runs that are this mode's, after the table's `not_here`.
    pub shown: &'a [Shown],
}

/// A score and why.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Scored {
    pub score: Option<u8>,
    /// The row the score is, in the page's words, with the fact that placed it.
    pub row: Option<String>,
    /// The condition of the next row up that the runs did not show, and why.
    pub not_shown: Option<String>,
}

impl Sight<'_> {
    fn check(&self, id: &str) -> Option<&CheckReport> {
        self.checks.iter().copied().find(|c| c.check.id == id)
    }

    fn failed(&self, id: &str) -> bool {
        self.shown.iter().any(|s| s.checks.contains(&id))
    }

    /// A fault fact of a row 0 or 1, seen.
    fn seen(&self, fact: &Fact) -> Option<String> {
        match fact {
            Fact::Failed(id) => self.failed(id).then(|| format!("`{id}` failed")),
            Fact::AllExitOne(ids) => {
                let all = ids.iter().all(|id| {
                    self.failed(id)
                        && self.check(id).is_some_and(|c| {
                            c.check.failures.iter().all(|f| f.run.exit_code == Some(1))
                        })
                });
                all.then(|| format!("{} all failed with exit 1", ids.join(", ")))
            }
            Fact::Saw(did) => self
                .shown
                .iter()
                .find(|s| s.seen.contains(did))
                .map(|s| format!("`{}`: {}", s.command, s.did)),
            Fact::Noted(id) => self
                .check(id)
                .and_then(|c| c.notes.first())
                .map(|note| super::shorten(super::first_clause(&note.detail), 120)),
            Fact::Passed(_) | Fact::Unobservable(_) => None,
        }
    }

    /// Why a condition of row 2 or 3 was not shown; `None` when it was.
    fn unshown(&self, fact: &Fact) -> Option<Unshown> {
        match fact {
            Fact::Passed(id) => match self.check(id).map(|c| c.check.status) {
                Some(Status::Pass | Status::Fail) => None,
                Some(Status::Skip) => Some(Unshown::NotJudged(format!("`{id}` was not judged"))),
                None => Some(Unshown::NotJudged(format!("`{id}` was not selected"))),
            },
            Fact::Unobservable(what) => Some(Unshown::Unobservable(what)),
            other => self
                .seen(other)
                .is_none()
                .then(|| Unshown::NotJudged("not seen".into())),
        }
    }
}

enum Unshown {
    NotJudged(String),
    Unobservable(&'static str),
}

impl Unshown {
    fn words(&self, row: u8, rubric: &Rubric) -> String {
        let condition = rubric.rows[usize::from(row)];
        match self {
            Unshown::NotJudged(why) => format!("row {row} ({condition}) not shown: {why}"),
            Unshown::Unobservable(what) => format!("row {row} not observable: {what}"),
        }
    }
}

/// The score of a mode that some check judged. `inconclusive`: a check of the
/// mode was set aside (starved, or left unmade by a stop), so a clean result
/// scores nothing.
pub(super) fn score(rubric: &Rubric, sight: &Sight<'_>, inconclusive: bool) -> Scored {
    let at = |score: u8, why: String| Scored {
        score: Some(score),
        row: Some(format!(
            "{score}: {} ({why})",
            rubric.rows[usize::from(score)]
        )),
        not_shown: None,
    };
    if let Some(why) = rubric.zero.iter().find_map(|f| sight.seen(f)) {
        return at(0, why);
    }
    if let Some(why) = rubric.one.iter().find_map(|f| sight.seen(f)) {
        return at(1, why);
    }
    let failing: Vec<&str> = sight
        .checks
        .iter()
        .map(|c| c.check.id)
        .filter(|id| sight.failed(id))
        .collect();
    if let Some(id) = failing.iter().find(|id| !rubric.two_despite.contains(id)) {
        return at(1, format!("`{id}` failed"));
    }
    if let Some(id) = failing.first() {
        return at(2, format!("`{id}` failed"));
    }
    if inconclusive {
        return Scored::default();
    }
    if let Some(unshown) = rubric.needs_two.iter().find_map(|f| sight.unshown(f)) {
        return Scored {
            score: None,
            row: None,
            not_shown: Some(unshown.words(2, rubric)),
        };
    }
    if let Some(unshown) = rubric.needs_three.iter().find_map(|f| sight.unshown(f)) {
        return Scored {
            score: Some(2),
            row: Some(format!("2: {}", rubric.rows[2])),
            not_shown: Some(unshown.words(3, rubric)),
        };
    }
    Scored {
        score: Some(3),
        row: Some(format!("3: {}", rubric.rows[3])),
        not_shown: None,
    }
}
