//! Renderers: the same reports as one ResponseEnvelope (piped, for agents and CI), as
//! text for people (on a TTY), and as report files for CI systems (JUnit, SARIF,
//! Markdown, a badge, conform's JSON report). Each is a function of the final
//! results, so that it can be driven by the runner's "all done" event.

pub(crate) mod badge;
pub(crate) mod files;
pub(crate) mod html;
pub(crate) mod json_report;
pub(crate) mod junit;
pub(crate) mod markdown;
pub(crate) mod progress;
pub(crate) mod report_file;
pub(crate) mod reruns;
pub(crate) mod run;
pub(crate) mod sarif;
pub(crate) mod show;
pub(crate) mod stream;
pub(crate) mod style;
#[cfg(test)]
pub(crate) mod tests;
pub(crate) mod validate;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::envelope::ExitStatus;
use crate::profile::{LoadedProfile, Locations};
use crate::result::ProfileReport;

/// Where each profile's entries are written: a run's JSON pointer to a line and
/// column of its profile file, for reports that point into it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sources(HashMap<String, Locations>);

impl Sources {
    /// The sources of these loaded profiles, keyed as `ProfileReport::profile` is.
    pub(crate) fn of<'a>(profiles: impl IntoIterator<Item = &'a LoadedProfile>) -> Sources {
        Sources(
            profiles
                .into_iter()
                .map(|p| (p.path.display().to_string(), p.locations.clone()))
                .collect(),
        )
    }

    /// The sources of the profiles whose text was read again: (profile, locations).
    pub(crate) fn from_pairs(pairs: impl IntoIterator<Item = (String, Locations)>) -> Sources {
        Sources(pairs.into_iter().collect())
    }

    #[cfg(test)]
    pub(crate) fn insert(&mut self, profile: impl Into<String>, locations: Locations) {
        self.0.insert(profile.into(), locations);
    }

    /// 1-based (line, column in Unicode code points) of `pointer` in `profile`.
    pub(crate) fn locate(&self, profile: &str, pointer: &str) -> Option<(usize, usize)> {
        self.0.get(profile)?.locate(pointer)
    }

    /// `profile.json:7:5 /probes/0` (the form editors jump to, then the pointer), or
    /// the file and pointer when the profile's text is not known.
    pub(crate) fn describe(&self, profile: &str, pointer: &str) -> String {
        match self.locate(profile, pointer) {
            Some((line, column)) => {
                format!("{}:{line}:{column} {pointer}", show::visible(profile))
            }
            None => format!("{} {pointer}", show::visible(profile)),
        }
    }
}

/// A report file format, by the flag that asks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// `--json-report`: the full evidence of every run.
    Json,
    /// `--junit`: a testcase per check.
    Junit,
    /// `--sarif`: failures located in the profile.
    Sarif,
    /// `--markdown`: a summary for a CI job page.
    Markdown,
    /// `--badge`: an SVG of the highest level every profile passes.
    Badge,
    /// `--html`: a page with a grid of profiles by checks, linked to the evidence.
    Html,
}

impl ReportFormat {
    pub(crate) fn flag(self) -> &'static str {
        match self {
            ReportFormat::Json => "--json-report",
            ReportFormat::Junit => "--junit",
            ReportFormat::Sarif => "--sarif",
            ReportFormat::Markdown => "--markdown",
            ReportFormat::Badge => "--badge",
            ReportFormat::Html => "--html",
        }
    }
}

/// Everything the report files are made from: the final results of a run.
pub(crate) struct Finished<'a> {
    pub results: &'a [ProfileReport],
    pub sources: &'a Sources,
    /// The partition and each profile's identity, for the JSON report.
    pub identity: json_report::RunIdentity<'a>,
    pub status: ExitStatus,
    pub duration_ms: u64,
    /// SARIF locates profiles relative to it.
    pub cwd: &'a Path,
}

/// One report file's contents.
pub(crate) fn render_report(
    format: ReportFormat,
    finished: &Finished<'_>,
) -> Result<String, String> {
    let results = finished.results;
    match format {
        ReportFormat::Json => {
            let document = json_report::document(
                results,
                &finished.identity,
                finished.status,
                finished.duration_ms,
            );
            serde_json::to_string_pretty(&document)
                .map(|text| text + "\n")
                .map_err(|e| format!("cannot serialize the report: {e}"))
        }
        ReportFormat::Junit => junit::to_xml(results, finished.sources),
        ReportFormat::Sarif => sarif::to_json(results, finished.sources, finished.cwd),
        ReportFormat::Markdown => Ok(markdown::to_markdown(results, finished.sources)),
        ReportFormat::Badge => Ok(badge::to_svg(results)),
        ReportFormat::Html => Ok(html::to_html(finished)),
    }
}

/// Render and write every requested report, each whole or not at all; returns why
/// each report that could not be written was not (the others are written anyway).
pub(crate) fn write_reports(
    reports: &[(ReportFormat, PathBuf)],
    finished: &Finished<'_>,
) -> Vec<String> {
    reports
        .iter()
        .filter_map(|(format, path)| {
            render_report(*format, finished)
                .and_then(|text| files::write_atomic(path, text.as_bytes()))
                .err()
                .map(|e| format!("{}: {e}", format.flag()))
        })
        .collect()
}
