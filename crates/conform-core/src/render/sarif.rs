//! `conform run --sarif PATH`: SARIF 2.1.0 for code scanning (GitHub annotates the
//! profile where the failing probe is written). Hand-written structs for the subset
//! used: one run for the whole invocation, a rule per check of the catalog, a result
//! per failed check and run, located at the run's entry in its profile file.

use std::path::{Component, Path};

use serde::Serialize;

use super::show;
use super::Sources;
use crate::checks::{CheckSpec, Evidence, Status, CATALOG};
use crate::findings::{self, Kind, Severity};
use crate::profile::Violation;
use crate::result::ProfileReport;

pub(crate) const VERSION: &str = "2.1.0";
pub(crate) const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// Columns are counted in Unicode code points, as the profile scanner counts them.
pub(crate) const COLUMN_KIND: &str = "unicodeCodePoints";

#[derive(Debug, Serialize)]
pub(crate) struct Log {
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    pub version: &'static str,
    pub runs: Vec<Run>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Run {
    pub tool: Tool,
    pub column_kind: &'static str,
    pub results: Vec<SarifResult>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Tool {
    pub driver: Driver,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Driver {
    pub name: &'static str,
    pub version: &'static str,
    pub semantic_version: &'static str,
    pub rules: Vec<Rule>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Rule {
    pub id: &'static str,
    pub name: String,
    pub short_description: Message,
    pub full_description: Message,
    pub help: Message,
    pub default_configuration: Configuration,
    pub properties: RuleProperties,
}

#[derive(Debug, Serialize)]
pub(crate) struct Configuration {
    pub level: &'static str,
}

#[derive(Debug, Serialize)]
pub(crate) struct RuleProperties {
    /// The requirement IDs, so code scanning can filter by them.
    pub tags: Vec<&'static str>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Message {
    pub text: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SarifResult {
    pub rule_id: &'static str,
    pub rule_index: usize,
    pub level: &'static str,
    pub message: Message,
    pub locations: Vec<Location>,
    pub properties: ResultProperties,
}

#[derive(Debug, Serialize)]
pub(crate) struct ResultProperties {
    pub profile: String,
    /// None for a violation of the profile, which no probe ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<String>,
    pub pointer: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Location {
    pub physical_location: PhysicalLocation,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PhysicalLocation {
    pub artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<Region>,
}

#[derive(Debug, Serialize)]
pub(crate) struct ArtifactLocation {
    pub uri: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Region {
    pub start_line: usize,
    pub start_column: usize,
}

/// The SARIF log of these results; profile paths become URIs relative to `cwd` (the
/// repository root, in CI) so that code scanning finds the files.
pub(crate) fn log(results: &[ProfileReport], sources: &Sources, cwd: &Path) -> Log {
    let mut findings = Vec::new();
    for result in results {
        let uri = uri(&result.profile, cwd);
        for report in result
            .checks
            .iter()
            .filter(|c| c.check.status == Status::Fail)
        {
            let check = &report.check;
            let rule_index = CATALOG.iter().position(|s| s.name == check.id).unwrap_or(0);
            for failure in &check.failures {
                let run = &failure.run;
                let region = sources.locate(&result.profile, &run.pointer).map(
                    |(start_line, start_column)| Region {
                        start_line,
                        start_column,
                    },
                );
                findings.push(SarifResult {
                    rule_id: check.id,
                    rule_index,
                    level: result_level(check.id, failure),
                    message: Message {
                        text: format!(
                            "{}: {}\nRun: {} ({})",
                            show::visible(&run.probe),
                            show::detail(&failure.detail),
                            show::shell_line(run),
                            show::ended(run)
                        ),
                    },
                    locations: vec![Location {
                        physical_location: PhysicalLocation {
                            artifact_location: ArtifactLocation { uri: uri.clone() },
                            region,
                        },
                    }],
                    properties: ResultProperties {
                        profile: result.profile.clone(),
                        probe: Some(run.probe.clone()),
                        pointer: run.pointer.clone(),
                    },
                });
            }
        }
    }
    one_run(CATALOG.iter().map(rule).collect(), findings)
}

fn one_run(rules: Vec<Rule>, results: Vec<SarifResult>) -> Log {
    Log {
        schema: SCHEMA_URI,
        version: VERSION,
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "conform",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    rules,
                },
            },
            column_kind: COLUMN_KIND,
            results,
        }],
    }
}

/// The rule of a profile (or profile path) nothing could run on.
const INVALID_PROFILE: &str = "invalid_profile";

/// The SARIF log of a `conform run` that ran nothing because a profile is invalid:
/// a result per violation, located where the profile says, so the upload step that
/// follows in CI finds a file and code scanning shows why. `errors` are pairs of a
/// profile path (or the path named, when it held no profile) and its violations.
pub(crate) fn invalid_profiles_log(errors: &[(&str, &[Violation])], cwd: &Path) -> Log {
    let mut results = Vec::new();
    for (profile, violations) in errors {
        for violation in *violations {
            let region = violation.line.map(|start_line| Region {
                start_line,
                start_column: violation.column.unwrap_or(1),
            });
            results.push(SarifResult {
                rule_id: INVALID_PROFILE,
                rule_index: 0,
                level: "error",
                message: Message {
                    text: format!("{}\nFix: {}", violation.message, violation.fix),
                },
                locations: vec![Location {
                    physical_location: PhysicalLocation {
                        artifact_location: ArtifactLocation {
                            uri: uri(profile, cwd),
                        },
                        region,
                    },
                }],
                properties: ResultProperties {
                    profile: profile.to_string(),
                    probe: None,
                    pointer: violation.pointer.clone(),
                },
            });
        }
    }
    let rule = Rule {
        id: INVALID_PROFILE,
        name: pascal_case(INVALID_PROFILE),
        short_description: Message {
            text: "The profile is valid".into(),
        },
        full_description: Message {
            text: "Every profile is validated before anything runs; an invalid one means no check ran.".into(),
        },
        help: Message {
            text: "Fix each violation; `conform validate PROFILE` lists them all, and `conform schema profile` prints the format.".into(),
        },
        default_configuration: Configuration { level: "error" },
        properties: RuleProperties { tags: Vec::new() },
    };
    one_run(vec![rule], results)
}

pub(crate) fn invalid_profiles_json(
    errors: &[(&str, &[Violation])],
    cwd: &Path,
) -> Result<String, String> {
    serde_json::to_string_pretty(&invalid_profiles_log(errors, cwd))
        .map(|mut text| {
            text.push('\n');
            text
        })
        .map_err(|e| format!("cannot serialize the SARIF report: {e}"))
}

pub(crate) fn to_json(
    results: &[ProfileReport],
    sources: &Sources,
    cwd: &Path,
) -> Result<String, String> {
    serde_json::to_string_pretty(&log(results, sources, cwd))
        .map(|mut text| {
            text.push('\n');
            text
        })
        .map_err(|e| format!("cannot serialize the SARIF report: {e}"))
}

fn rule(spec: &CheckSpec) -> Rule {
    let kind = if spec.extension {
        "a conform extension check"
    } else {
        "a CLI Agent Spec reference check"
    };
    let requirements = spec.requirements.join(", ");
    Rule {
        id: spec.name,
        name: pascal_case(spec.name),
        short_description: Message {
            text: spec.title.to_string(),
        },
        full_description: Message {
            text: format!(
                "{} (level {}, {kind}; requirements {requirements}).",
                spec.title, spec.level
            ),
        },
        help: Message {
            text: format!(
                "{}. Requirements: {requirements}. Run `conform checks {}` for the check, and `conform run PROFILE --only {}` to check it again.",
                spec.title, spec.name, spec.name
            ),
        },
        default_configuration: Configuration {
            level: severity_level(worst_severity(spec)),
        },
        properties: RuleProperties {
            tags: spec.requirements.to_vec(),
        },
    }
}

/// The spec's worst severity among the failure modes a check maps to.
fn worst_severity(spec: &CheckSpec) -> Severity {
    spec.failure_modes
        .iter()
        .filter_map(|n| findings::mode(*n).map(|(_, severity)| severity))
        .min()
        .unwrap_or(Severity::Medium)
}

/// SARIF's level for a severity: critical is an error, high a warning, medium a note.
fn severity_level(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical => "error",
        Severity::High => "warning",
        Severity::Medium => "note",
    }
}

/// A failing run's level: an error when what it did is a danger to an agent (a
/// hang, a prompt, a browser, a leak), else its check's worst severity.
fn result_level(check: &str, failure: &Evidence) -> &'static str {
    match findings::describe(check, failure).1 {
        Kind::Danger => "error",
        Kind::Convention => CATALOG
            .iter()
            .find(|spec| spec.name == check)
            .map_or("error", |spec| severity_level(worst_severity(spec))),
    }
}

/// `no_hang_stdin_closed` -> `NoHangStdinClosed`: SARIF rule names are identifiers.
fn pascal_case(id: &str) -> String {
    id.split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// The profile path as a URI reference: relative to `cwd` when it lies under it
/// (what code scanning matches against the repository), else an absolute `file:` URI.
pub(crate) fn uri(profile: &str, cwd: &Path) -> String {
    // `conform check` without --save: the tool itself, `check:TOOL`.
    if let Some(tool) = profile.strip_prefix("check:") {
        return format!("check:{}", encode(tool));
    }
    let path = Path::new(profile);
    let relative = if path.is_absolute() {
        path.strip_prefix(cwd).ok()
    } else {
        Some(path)
    };
    match relative {
        Some(relative) => {
            let parts: Vec<String> = relative
                .components()
                .filter(|c| !matches!(c, Component::CurDir))
                .map(|c| encode(&c.as_os_str().to_string_lossy()))
                .collect();
            parts.join("/")
        }
        None => format!("file://{}", encode(profile)),
    }
}

/// Percent-encode everything but RFC 3986's unreserved characters and `/`.
fn encode(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_paths_become_uris_relative_to_the_working_directory() {
        let cwd = Path::new("/repo");
        assert_eq!(
            uri("conformance/profiles/democli.json", cwd),
            "conformance/profiles/democli.json"
        );
        assert_eq!(uri("./a b/p#1.json", cwd), "a%20b/p%231.json");
        assert_eq!(uri("/repo/x/p.json", cwd), "x/p.json");
        assert_eq!(uri("/elsewhere/p.json", cwd), "file:///elsewhere/p.json");
    }

    #[test]
    fn rule_names_are_pascal_case() {
        assert_eq!(pascal_case("no_hang_stdin_closed"), "NoHangStdinClosed");
        assert_eq!(pascal_case("invalid_input_exit_2"), "InvalidInputExit2");
    }
}
