//! `conform merge REPORT...`: the `--json-report` files of one run's shards
//! (`conform run --partition K/N`) joined into the result the unpartitioned run
//! gives: the same envelope, levels, summary and exit code, and every report file.
//!
//! Shards are joined only when they are one run's: written by this conform, of the
//! same profiles and selection, with the same N, and together holding every
//! (profile, check) pair exactly once. Anything else is refused (exit 2), since a
//! merged verdict over a different or partial set of pairs would be a false one.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::output::{emit, emit_json, finish, report_error};
use super::Output;
use crate::checks::CheckId;
use crate::envelope::{ErrorDetail, ExitStatus};
use crate::profile::{Locations, Profile};
use crate::render::json_report::{fingerprint, names, ProfileIdentity, RunIdentity};
use crate::render::report_file::{self, ReportFile};
use crate::render::run as render_run;
use crate::render::{self, files, Finished, ReportFormat, Sources};
use crate::result::{verdicts, CheckReport, ProfileReport};

/// What `conform merge` was asked for.
#[derive(Debug, Clone)]
pub struct MergeRequest {
    /// The shards' `--json-report` files.
    pub reports: Vec<PathBuf>,
    /// Report files to write from the merged result.
    pub outputs: Vec<(ReportFormat, PathBuf)>,
}

/// A refusal: the envelope's error code and message.
struct Refusal {
    code: &'static str,
    message: String,
    fix: &'static str,
}

impl Refusal {
    fn new(code: &'static str, message: String, fix: &'static str) -> Refusal {
        Refusal { code, message, fix }
    }
}

const READ_FIX: &str =
    "Name the files `conform run --json-report` (or `conform check --json-report`) wrote";
const SAME_RUN_FIX: &str = "Merge the reports of one run's shards: the same conform, profiles, --only/--skip and --partition N";
const EVERY_SHARD_FIX: &str = "Give the report of every shard, 1 to N, each once";

/// `conform merge`: read and check the shards, join them, write the report files,
/// print the result.
pub fn merge(request: &MergeRequest, out: &Output) -> ExitStatus {
    let refuse = |refusal: Refusal| {
        let detail = ErrorDetail::invalid_input(refusal.code, refusal.message, refusal.fix);
        report_error(
            ExitStatus::InvalidInput,
            detail,
            Value::Null,
            out.json,
            out.started,
        )
    };
    let destinations: Vec<(&str, &Path)> = request
        .outputs
        .iter()
        .map(|(format, path)| (format.flag(), path.as_path()))
        .collect();
    if let Err(message) = files::check_destinations(&destinations) {
        return refuse(Refusal::new(
            "USAGE_ERROR",
            message,
            "Give each report flag its own writable file path in an existing directory",
        ));
    }
    let shards = match read_all(&request.reports).and_then(|shards| {
        check_one_run(&shards)?;
        Ok(shards)
    }) {
        Ok(shards) => shards,
        Err(refusal) => return refuse(refusal),
    };
    let merged = join(&shards);
    let first = &shards[0].1;
    let status = render_run::status(&merged);
    let identities: Vec<ProfileIdentity> = first
        .profiles
        .iter()
        .map(|p| ProfileIdentity {
            checks: names(&first.selected),
            ..p.clone()
        })
        .collect();
    let sources = sources_of(&identities);
    let network = merged_network(&shards);
    let cwd = std::env::current_dir().unwrap_or_default();
    let finished = Finished {
        results: &merged,
        sources: &sources,
        identity: RunIdentity {
            selected: &first.selected,
            partition: None,
            profiles: &identities,
            sandboxes: agreed_sandboxes(&shards),
            network: network.as_deref(),
        },
        status,
        // The shards ran side by side: the whole took as long as the slowest.
        duration_ms: shards.iter().map(|(_, s)| s.duration_ms).max().unwrap_or(0),
        cwd: &cwd,
    };
    let errors = render::write_reports(&request.outputs, &finished);
    if !errors.is_empty() {
        let detail = ErrorDetail {
            code: "REPORT_NOT_WRITTEN".into(),
            message: errors.join("; "),
            retryable: false,
            phase: Some("cleanup"),
            fix_required: Some("Make the report paths writable and merge again".into()),
            context: None,
        };
        return report_error(
            ExitStatus::GeneralError,
            detail,
            Value::Null,
            out.json,
            out.started,
        );
    }
    let written = if out.json {
        let mut document = render_run::to_envelope(&merged, out.elapsed_ms());
        if let Some(meta) = document.get_mut("meta").and_then(Value::as_object_mut) {
            let reports: Vec<String> = shards
                .iter()
                .map(|(path, _)| path.display().to_string())
                .collect();
            meta.insert("merged".into(), json!(reports));
            if let Some(network) = &network {
                meta.insert("network".into(), json!(network));
            }
        }
        emit_json(&document)
    } else {
        let summary = network
            .as_deref()
            .map(|n| crate::exec::Isolation::from_label(n).summary());
        let options = render_run::TextOptions {
            network: summary.as_deref(),
            ..render_run::TextOptions::verbose()
        };
        emit(&render_run::to_text_with(
            &merged,
            &sources,
            out.style(),
            &options,
        ))
    };
    finish(status, written)
}

/// How the shards' runs at the black hole were kept from the network: what they
/// all say, or the weaker word when they differ (a shard made without a
/// namespace makes the whole run one); `None` when no report says.
fn merged_network(shards: &[(PathBuf, ReportFile)]) -> Option<String> {
    let said: Vec<&str> = shards
        .iter()
        .filter_map(|(_, shard)| shard.network.as_deref())
        .collect();
    let first = *said.first()?;
    let differ = said.iter().any(|&n| n != first);
    let weaker = crate::exec::Isolation::from_label("").label();
    Some(if differ { weaker } else { first }.to_string())
}

/// Where the shards made their sandboxes, when every report says and they agree
/// (one machine's shards); otherwise the merged report leaves it out, since no one
/// place was the run's.
fn agreed_sandboxes(shards: &[(PathBuf, ReportFile)]) -> Option<Value> {
    let (first, rest) = shards.split_first()?;
    let sandboxes = first.1.sandboxes.as_ref()?;
    rest.iter()
        .all(|(_, shard)| shard.sandboxes.as_ref() == Some(sandboxes))
        .then(|| sandboxes.clone())
}

/// Every report read, in the order given; the first that cannot be is refused.
fn read_all(paths: &[PathBuf]) -> Result<Vec<(PathBuf, ReportFile)>, Refusal> {
    let invalid = |message: String| Refusal::new("INVALID_REPORT", message, READ_FIX);
    if paths.is_empty() {
        return Err(Refusal::new(
            "USAGE_ERROR",
            "no report to merge".into(),
            EVERY_SHARD_FIX,
        ));
    }
    let mut documents = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .map_err(|e| invalid(format!("cannot read {}: {e}", path.display())))?;
        let document: Value = serde_json::from_str(&text)
            .map_err(|e| invalid(format!("{} is not JSON: {e}", path.display())))?;
        documents.push((path.clone(), document));
    }
    // Versions first: a report of another conform may not even have this one's shape,
    // and that is the error worth reading.
    let version = |document: &Value| {
        document["conform_version"]
            .as_str()
            .unwrap_or("unknown")
            .to_string()
    };
    if let Some((first_path, first)) = documents.first() {
        let first_version = version(first);
        for (path, document) in &documents[1..] {
            if version(document) != first_version {
                return Err(Refusal::new(
                    "SHARDS_MISMATCH",
                    format!(
                        "the reports come from different conform versions: {} from {first_version}, {} from {}",
                        first_path.display(),
                        path.display(),
                        version(document)
                    ),
                    SAME_RUN_FIX,
                ));
            }
        }
        let ours = env!("CARGO_PKG_VERSION");
        if first_version != ours {
            return Err(Refusal::new(
                "SHARDS_MISMATCH",
                format!(
                    "the reports were written by conform {first_version}; this is conform {ours}, whose checks may differ"
                ),
                "Merge with the conform that ran the shards",
            ));
        }
    }
    documents
        .into_iter()
        .map(|(path, document)| {
            report_file::read(&document)
                .map(|report| (path.clone(), report))
                .map_err(|e| {
                    invalid(format!(
                        "{} is not a conform JSON report: {e}",
                        path.display()
                    ))
                })
        })
        .collect()
}

/// The shards are one run's, and hold every (profile, check) pair exactly once.
fn check_one_run(shards: &[(PathBuf, ReportFile)]) -> Result<(), Refusal> {
    let mismatch = |message: String| Refusal::new("SHARDS_MISMATCH", message, SAME_RUN_FIX);
    let (first_path, first) = &shards[0];
    let total = |r: &ReportFile| r.partition.map_or(1, |p| p.total());
    for (path, shard) in shards {
        if shard.cancelled {
            return Err(Refusal::new(
                "SHARDS_INCOMPLETE",
                format!(
                    "{} is the report of an interrupted run: it holds only the profiles finished before it",
                    path.display()
                ),
                "Run that shard again to the end, then merge",
            ));
        }
        if total(shard) != total(first) {
            return Err(mismatch(format!(
                "the reports come from different partition counts: {} is of {} shards, {} of {}",
                first_path.display(),
                total(first),
                path.display(),
                total(shard)
            )));
        }
        if shard.selected != first.selected {
            return Err(mismatch(format!(
                "the reports selected different checks (--only/--skip): {} and {}",
                first_path.display(),
                path.display()
            )));
        }
        let same = |a: &ProfileIdentity, b: &ProfileIdentity| {
            (&a.profile, &a.tool, &a.fingerprint) == (&b.profile, &b.tool, &b.fingerprint)
        };
        if shard.profiles.len() != first.profiles.len()
            || !shard
                .profiles
                .iter()
                .zip(&first.profiles)
                .all(|(a, b)| same(a, b))
        {
            let differs = describe_difference(&first.profiles, &shard.profiles);
            return Err(mismatch(format!(
                "the reports come from different profile sets: {} and {} ({differs})",
                first_path.display(),
                path.display()
            )));
        }
        if shard.results.len() != shard.profiles.len() {
            return Err(Refusal::new(
                "INVALID_REPORT",
                format!(
                    "{} lists {} profiles but holds {} results",
                    path.display(),
                    shard.profiles.len(),
                    shard.results.len()
                ),
                READ_FIX,
            ));
        }
    }
    check_pairs(shards)
}

/// The first profile two lists disagree on, in words.
fn describe_difference(a: &[ProfileIdentity], b: &[ProfileIdentity]) -> String {
    for (n, (x, y)) in a.iter().zip(b).enumerate() {
        if x.profile != y.profile || x.tool != y.tool {
            return format!(
                "profile {} is {} in one, {} in the other",
                n + 1,
                x.profile,
                y.profile
            );
        }
        if x.fingerprint != y.fingerprint {
            return format!("{} differs between them", x.profile);
        }
    }
    format!("{} profiles in one, {} in the other", a.len(), b.len())
}

/// Every selected check of every profile in exactly one shard.
fn check_pairs(shards: &[(PathBuf, ReportFile)]) -> Result<(), Refusal> {
    let first = &shards[0].1;
    let selected: Vec<CheckId> = first.selected.iter().copied().collect();
    let total = first.partition.map_or(1, |p| p.total());
    let mut missing: Vec<String> = Vec::new();
    for (p, identity) in first.profiles.iter().enumerate() {
        for (c, id) in selected.iter().enumerate() {
            let name = id.spec().name;
            let holders: Vec<&Path> = shards
                .iter()
                .filter(|(_, shard)| {
                    shard.results[p]
                        .checks
                        .iter()
                        .any(|check| check.check.id == name)
                })
                .map(|(path, _)| path.as_path())
                .collect();
            match holders.as_slice() {
                [] => {
                    // The shard the pair belongs to: (i mod N) + 1, as --partition splits.
                    let shard = (p * selected.len() + c) % total + 1;
                    missing.push(format!(
                        "{name} of {} (shard {shard}/{total})",
                        identity.profile
                    ));
                }
                [_] => {}
                [a, b, ..] => {
                    return Err(Refusal::new(
                        "SHARDS_OVERLAP",
                        format!(
                            "{name} of {} is in two reports, {} and {}: a shard is given twice, or the reports are of different runs",
                            identity.profile,
                            a.display(),
                            b.display()
                        ),
                        EVERY_SHARD_FIX,
                    ));
                }
            }
        }
        for check in shards.iter().flat_map(|(_, s)| &s.results[p].checks) {
            if !selected.iter().any(|id| id.spec().name == check.check.id) {
                return Err(Refusal::new(
                    "INVALID_REPORT",
                    format!(
                        "a report holds {} of {}, which its selected_checks leave out",
                        check.check.id, identity.profile
                    ),
                    READ_FIX,
                ));
            }
        }
    }
    if let Some(example) = missing.first() {
        let shards_missing: BTreeSet<&str> = missing
            .iter()
            .filter_map(|m| {
                m.rsplit_once("(shard ")
                    .map(|(_, s)| s.trim_end_matches(')'))
            })
            .collect();
        return Err(Refusal::new(
            "SHARDS_INCOMPLETE",
            format!(
                "{} (profile, check) pairs are in no report, such as {example}; missing: shard {}",
                missing.len(),
                shards_missing.into_iter().collect::<Vec<_>>().join(", ")
            ),
            EVERY_SHARD_FIX,
        ));
    }
    Ok(())
}

/// Each profile's checks from every shard in catalog order, with the levels and
/// summary over them; its runs, each distinct run once.
fn join(shards: &[(PathBuf, ReportFile)]) -> Vec<ProfileReport> {
    let first = &shards[0].1;
    (0..first.profiles.len())
        .map(|p| {
            let of_p: Vec<&ProfileReport> = shards.iter().map(|(_, s)| &s.results[p]).collect();
            let mut checks: Vec<CheckReport> = of_p.iter().flat_map(|r| r.checks.clone()).collect();
            checks.sort_by_key(|c| CheckId::from_name(c.check.id));
            let (levels, summary) = verdicts(&checks, &first.selected);
            let mut runs: Vec<crate::checks::evidence::RunFacts> = Vec::new();
            for run in of_p.iter().flat_map(|r| &r.runs) {
                let same = |r: &&crate::checks::evidence::RunFacts| {
                    (&r.probe, &r.pointer, &r.argv, r.stdin, &r.env)
                        == (&run.probe, &run.pointer, &run.argv, run.stdin, &run.env)
                };
                if !runs.iter().any(|r| same(&r)) {
                    runs.push(run.clone());
                }
            }
            ProfileReport {
                profile: of_p[0].profile.clone(),
                tool: of_p[0].tool.clone(),
                levels,
                summary,
                checks,
                runs,
                duration_ms: of_p.iter().map(|r| r.duration_ms).max().unwrap_or(0),
                // Every shard ran the same profile: the same commands.
                commands: of_p[0].commands.clone(),
            }
        })
        .collect()
}

/// Where the profiles' entries are written, for the reports that point into them:
/// read again from each profile file that is still the one the shards ran.
fn sources_of(identities: &[ProfileIdentity]) -> Sources {
    let located = identities.iter().filter_map(|identity| {
        let text = std::fs::read_to_string(&identity.profile).ok()?;
        let profile: Profile = serde_json::from_str(&text).ok()?;
        (fingerprint(&profile) == identity.fingerprint)
            .then(|| (identity.profile.clone(), Locations::scan(&text)))
    });
    Sources::from_pairs(located)
}
