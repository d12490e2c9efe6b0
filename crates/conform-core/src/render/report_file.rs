//! A `--json-report` document read back, for `conform merge`: the results as the
//! reporters take them, and what the run was (partition, profiles, selection).
//!
//! The document is first validated against its own schema, so what follows reads
//! values whose shape is known; a check conform does not know is an error, since
//! the levels and every report are made from this conform's catalog.
//!
//! A result's `causes`, and each failure's `cause`, are not read back: they are a
//! function of the checks' failures, and the JSON report works them out again from
//! the results it is given, so a merged report gets them over every shard's checks.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use std::time::Duration;

use serde_json::Value;

use super::json_report::{ProfileIdentity, SCHEMA};
use crate::checks::evidence::{
    CpuWaitFacts, HolderFacts, KitKillFacts, RunFacts, TerminalFacts, TriggerFacts, WaitingFacts,
};
use crate::checks::{CheckId, Evidence, Status};
use crate::exec::{HoldingFile, ProxyRequest, SandboxReport, SentinelCall};
use crate::partition::Partition;
use crate::result::{verdicts, Check, CheckReport, Commands, ProfileReport};

/// One report file's contents.
#[derive(Debug)]
pub(crate) struct ReportFile {
    pub cancelled: bool,
    pub duration_ms: u64,
    pub selected: BTreeSet<CheckId>,
    pub partition: Option<Partition>,
    pub profiles: Vec<ProfileIdentity>,
    /// Where the run made its sandboxes, as the report says (absent in a report
    /// that does not say).
    pub sandboxes: Option<Value>,
    /// How the run's black-hole runs were kept from the network, as the report
    /// says.
    pub network: Option<String>,
    pub results: Vec<ProfileReport>,
}

static VALIDATOR: LazyLock<Result<jsonschema::Validator, String>> = LazyLock::new(|| {
    let schema: Value = serde_json::from_str(SCHEMA).map_err(|e| e.to_string())?;
    jsonschema::draft7::new(&schema).map_err(|e| e.to_string())
});

/// The report in `document`; `Err` says what is wrong with it, first the JSON
/// pointer of the value at fault.
pub(crate) fn read(document: &Value) -> Result<ReportFile, String> {
    let validator = VALIDATOR
        .as_ref()
        .map_err(|e| format!("conform's report schema does not compile: {e}"))?;
    if let Some(error) = validator.iter_errors(document).next() {
        let at = error.instance_path().to_string();
        let at = if at.is_empty() { "/".to_string() } else { at };
        return Err(format!("{at}: {error}"));
    }
    let selected = check_ids(&document["selected_checks"])?;
    let partition = match &document["partition"] {
        Value::Null => None,
        p => {
            let number = |key: &str| p[key].as_u64().and_then(|n| usize::try_from(n).ok());
            let (shard, total) = (number("shard"), number("total"));
            Some(
                shard
                    .zip(total)
                    .and_then(|(shard, total)| Partition::new(shard, total))
                    .ok_or("/partition: the shard is not between 1 and total")?,
            )
        }
    };
    let profiles = items(&document["profiles"])
        .map(|p| {
            Ok(ProfileIdentity {
                profile: text(&p["profile"]),
                tool: text(&p["tool"]),
                fingerprint: text(&p["fingerprint"]),
                checks: check_ids(&p["checks"])?
                    .into_iter()
                    .map(|id| id.spec().name)
                    .collect(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let results = items(&document["results"])
        .map(|r| profile_report(r, &selected))
        .collect::<Result<Vec<_>, String>>()?;
    Ok(ReportFile {
        cancelled: document["cancelled"].as_bool().unwrap_or(false),
        duration_ms: count(&document["duration_ms"]),
        selected,
        partition,
        profiles,
        sandboxes: document.get("sandboxes").cloned(),
        network: document["network"].as_str().map(String::from),
        results,
    })
}

/// A result; its levels and summary are worked out again from its checks (they are
/// a function of them), so a merged result gets them the same way.
fn profile_report(r: &Value, selected: &BTreeSet<CheckId>) -> Result<ProfileReport, String> {
    let checks = items(&r["checks"])
        .map(|c| {
            let first_attempt = match c.get("first_attempt") {
                Some(first) => Some(Box::new(check(first)?)),
                None => None,
            };
            Ok(CheckReport {
                check: check(c)?,
                extension: c["extension"].as_bool().unwrap_or(false),
                first_attempt,
                notes: items(&c["notes"]).map(evidence).collect(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let (levels, summary) = verdicts(&checks, selected);
    Ok(ProfileReport {
        profile: text(&r["profile"]),
        tool: text(&r["tool"]),
        levels,
        summary,
        checks,
        runs: items(&r["runs"]).map(run_facts).collect(),
        duration_ms: count(&r["duration_ms"]),
        commands: Commands {
            found: usize::try_from(count(&r["commands"]["found"])).unwrap_or(usize::MAX),
            pointers: items(&r["commands"]["pointers"]).map(text).collect(),
        },
    })
}

/// A failure or a note: its run and detail.
fn evidence(f: &Value) -> Evidence {
    Evidence {
        run: run_facts(f),
        detail: text(&f["detail"]),
        observed: false,
        still_running: None,
    }
}

/// A check, its static parts (title, level, requirements) from the catalog.
fn check(c: &Value) -> Result<Check<Evidence>, String> {
    let id = text(&c["id"]);
    let spec = CheckId::from_name(&id)
        .ok_or_else(|| format!("check \"{id}\" is not one this conform knows"))?
        .spec();
    let status = match c["status"].as_str() {
        Some("fail") => Status::Fail,
        Some("skip") => Status::Skip,
        _ => Status::Pass,
    };
    Ok(Check {
        id: spec.name,
        title: spec.title,
        status,
        level: spec.level,
        failure_modes: spec.failure_modes.iter().map(|n| format!("§{n}")).collect(),
        requirements: spec.requirements.to_vec(),
        runs_checked: usize::try_from(count(&c["runs_checked"])).unwrap_or(usize::MAX),
        failures: items(&c["failures"]).map(evidence).collect(),
        skipped_reason: c["skipped_reason"].as_str().map(String::from),
    })
}

fn run_facts(r: &Value) -> RunFacts {
    let opt_text = |key: &str| r[key].as_str().map(String::from);
    let holders = |key: &str| -> Vec<HolderFacts> {
        items(&r[key])
            .map(|h| HolderFacts {
                pid: h["pid"]
                    .as_i64()
                    .and_then(|n| i32::try_from(n).ok())
                    .unwrap_or(0),
                cmdline: text(&h["cmdline"]),
            })
            .collect()
    };
    RunFacts {
        probe: text(&r["probe"]),
        pointer: text(&r["pointer"]),
        argv: strings(&r["argv"]),
        stdin: if r["stdin"] == "open" {
            "open"
        } else {
            "closed"
        },
        exit_code: code(&r["exit_code"]),
        timed_out: r["timed_out"].as_bool().unwrap_or(false),
        duration_ms: count(&r["duration_ms"]),
        signal: opt_text("signal"),
        env: strings(&r["env"]),
        stdout_bytes: count(&r["stdout_bytes"]),
        stderr_bytes: count(&r["stderr_bytes"]),
        stdout_excerpt: text(&r["stdout_excerpt"]),
        stderr_excerpt: text(&r["stderr_excerpt"]),
        pipe_held_open: r["pipe_held_open"].as_bool().unwrap_or(false),
        error: opt_text("error"),
        sandbox: r.get("sandbox").map(|s| SandboxReport {
            sentinel_calls: items(&s["sentinel_calls"])
                .map(|call| SentinelCall {
                    name: text(&call["name"]),
                    argv: strings(&call["argv"]),
                })
                .collect(),
            created: strings(&s["created"]),
            created_more: usize::try_from(count(&s["created_more"])).unwrap_or(usize::MAX),
            holding: items(&s["holding"])
                .map(|file| HoldingFile {
                    path: text(&file["path"]),
                    mode: u32::try_from(count(&file["mode"])).unwrap_or(0),
                    needles: strings(&file["needles"]),
                })
                .collect(),
        }),
        killed_by_kit: r.get("killed_by_kit").map(|k| KitKillFacts {
            at_limit: k["at_limit"].as_bool().unwrap_or(false),
            signal: text(&k["signal"]),
            exit_code: code(&k["exit_code"]),
            exit_signal: k["exit_signal"].as_str().map(String::from),
        }),
        held_by: holders("held_by"),
        orphans_killed: holders("orphans_killed"),
        trigger: r.get("trigger").map(|t| TriggerFacts {
            fired: t["fired"].as_bool().unwrap_or(false),
            after_exit: t["after_exit"].as_bool().unwrap_or(false),
        }),
        proxy_connections: r["proxy_connections"]
            .as_u64()
            .and_then(|n| usize::try_from(n).ok()),
        proxy_requests: items(&r["proxy_requests"])
            .map(|request| ProxyRequest {
                host: request["host"].as_str().map(String::from),
                port: request["port"].as_u64().and_then(|n| u16::try_from(n).ok()),
                path: request["path"].as_str().map(String::from),
                unsent: request["unsent"].as_bool().unwrap_or(false),
                at: Duration::from_millis(count(&request["at_ms"])),
            })
            .collect(),
        cpu_wait: CpuWaitFacts {
            tool_ms: count(&r["cpu_wait"]["tool_ms"]),
            kit_ms: count(&r["cpu_wait"]["kit_ms"]),
            in_flight: usize::try_from(count(&r["cpu_wait"]["in_flight"])).unwrap_or(usize::MAX),
        },
        first_attempt: r
            .get("first_attempt")
            .map(|first| Box::new(run_facts(first))),
        starved_again: r["starved_again"].as_bool().unwrap_or(false),
        waiting_on: r.get("waiting_on").map(|w| WaitingFacts {
            kind: text(&w["kind"]),
            detail: text(&w["detail"]),
        }),
        held_at_hole_ms: r["held_at_hole_ms"].as_u64(),
        terminal: r.get("terminal").map(|t| TerminalFacts {
            cols: u16::try_from(count(&t["cols"])).unwrap_or(u16::MAX),
            rows: u16::try_from(count(&t["rows"])).unwrap_or(u16::MAX),
            whole: t["whole"].as_bool().unwrap_or(false),
        }),
    }
}

/// Check IDs, each one this conform knows.
fn check_ids(list: &Value) -> Result<BTreeSet<CheckId>, String> {
    items(list)
        .map(|id| {
            let name = text(id);
            CheckId::from_name(&name)
                .ok_or_else(|| format!("check \"{name}\" is not one this conform knows"))
        })
        .collect()
}

fn items(list: &Value) -> impl Iterator<Item = &Value> {
    list.as_array().into_iter().flatten()
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_string()
}

fn strings(list: &Value) -> Vec<String> {
    items(list).map(text).collect()
}

fn count(value: &Value) -> u64 {
    value.as_u64().unwrap_or(0)
}

fn code(value: &Value) -> Option<i32> {
    value.as_i64().and_then(|n| i32::try_from(n).ok())
}
