//! `conform run --partition K/N`: the shards of a CI matrix add up to the
//! unpartitioned run, pair for pair. Every envelope read here goes through
//! `support::conform`, which also validates each result against the published
//! ConformanceResult schema.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::support::{conform, conformance_results, Conform};

/// democli passes everything; the two broken CLIs fail several checks, with details,
/// and finish fast (no probe that hangs until its limit).
const PROFILES: [&str; 3] = [
    "conformance/profiles/democli.json",
    "conformance/profiles/bad/envelope-missing-warnings.json",
    "conformance/profiles/bad/usage-error-exit-64.json",
];

/// (profile index, check id) and the check, in report order (profiles, then
/// catalog order), with the timings taken out of its failures: they differ from run
/// to run; the detail strings do not.
fn checks_in_order(run: &Conform) -> Vec<((usize, String), Value)> {
    let mut pairs = Vec::new();
    for (p, result) in conformance_results(&run.envelope).into_iter().enumerate() {
        for check in result["checks"].as_array().into_iter().flatten() {
            let mut check = check.clone();
            for failure in check["failures"].as_array_mut().into_iter().flatten() {
                if let Some(failure) = failure.as_object_mut() {
                    failure.remove("duration_ms");
                }
            }
            let id = check["id"].as_str().unwrap_or("?").to_string();
            pairs.push(((p, id), check));
        }
    }
    pairs
}

/// The profiles each result of `run` came from, in order.
fn profiles_of(run: &Conform) -> Vec<String> {
    run.envelope["meta"]["profiles"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["profile"].as_str().map(String::from))
        .collect()
}

fn runs_of(run: &Conform, profile: usize) -> u64 {
    run.envelope["meta"]["profiles"][profile]["runs"]
        .as_u64()
        .unwrap_or_else(|| panic!("no run count for profile {profile}: {:#}", run.envelope))
}

#[test]
fn three_shards_are_disjoint_complete_and_add_up_to_the_whole_run() {
    let whole = conform(["run"].into_iter().chain(PROFILES));
    assert_eq!(whole.code(), 4, "{:#}", whole.envelope);
    let expected = checks_in_order(&whole);
    assert_eq!(
        expected.len(),
        3 * conform_core::command::check_ids().count(),
        "every check of every profile"
    );

    let mut union: BTreeMap<(usize, String), Value> = BTreeMap::new();
    // Shard 2 uses nextest's spelling; both must mean the same split.
    for (k, spec) in [(1, "1/3"), (2, "count:2/3"), (3, "3/3")] {
        let shard = conform(
            ["run"]
                .into_iter()
                .chain(PROFILES)
                .chain(["--partition", spec]),
        );
        assert_eq!(
            profiles_of(&shard),
            PROFILES,
            "shard {k} reports every profile, in order"
        );
        let pairs = checks_in_order(&shard);
        let failed = pairs.iter().map(|(_, c)| c).any(|c| c["status"] == "fail");
        assert_eq!(
            shard.code(),
            if failed { 4 } else { 0 },
            "shard {k}: {:#}",
            shard.envelope
        );
        for (p, result) in conformance_results(&shard.envelope).iter().enumerate() {
            for level in ["level_1", "level_2", "level_3"] {
                let verdict = &result["levels"][level];
                assert_ne!(
                    verdict, "pass",
                    "shard {k}, profile {p}: {level} left checks out"
                );
                if p == 0 {
                    // democli passes every check: what is left out makes it incomplete.
                    assert_eq!(verdict, "incomplete", "shard {k}, democli {level}");
                }
            }
        }
        // Split before planning: democli's shard makes no more runs than the whole
        // (nearly as many when it holds pipes_closed_on_exit, lf_line_endings or
        // meta_versions, which read every run on pipes) and
        // fewer when it does not.
        let reads_every_run = pairs.iter().any(|((p, id), _)| {
            *p == 0
                && matches!(
                    id.as_str(),
                    "pipes_closed_on_exit" | "lf_line_endings" | "meta_versions"
                )
        });
        let (shard_runs, whole_runs) = (runs_of(&shard, 0), runs_of(&whole, 0));
        if reads_every_run {
            // It reads every run on pipes, not the terminal runs.
            assert!(shard_runs <= whole_runs, "shard {k}");
        } else {
            assert!(
                shard_runs < whole_runs,
                "shard {k}: {shard_runs} runs, the whole run {whole_runs}"
            );
        }
        for (pair, check) in pairs {
            // The i-th pair of the whole run's (sorted) list is in shard (i mod 3) + 1.
            let i = expected
                .iter()
                .position(|(p, _)| *p == pair)
                .unwrap_or_else(|| panic!("shard {k} has {pair:?}, which the whole run has not"));
            assert_eq!(i % 3 + 1, k, "{pair:?} is pair {i}");
            assert!(
                union.insert(pair.clone(), check).is_none(),
                "{pair:?} is in two shards"
            );
        }
    }
    let missing: Vec<_> = expected
        .iter()
        .map(|(pair, _)| pair)
        .filter(|pair| !union.contains_key(*pair))
        .collect();
    assert!(missing.is_empty(), "in no shard: {missing:?}");
    for (pair, check) in &expected {
        assert_eq!(
            without_byte_counts(&union[pair]),
            without_byte_counts(check),
            "{pair:?}: shard and whole run differ"
        );
    }
}

/// A check with every "N bytes" in its details written "# bytes": a tool that
/// prints its own duration (democli's envelopes carry `duration_ms`) writes one
/// byte more or less from run to run, which is not a different verdict.
fn without_byte_counts(check: &Value) -> Value {
    let mut check = check.clone();
    for failure in check["failures"].as_array_mut().into_iter().flatten() {
        if let Some(detail) = failure["detail"].as_str() {
            let words: Vec<String> = detail
                .split(' ')
                .collect::<Vec<_>>()
                .windows(2)
                .map(|pair| {
                    let counted = pair[1].starts_with("bytes")
                        && !pair[0].is_empty()
                        && pair[0].bytes().all(|b| b.is_ascii_digit());
                    if counted {
                        "#".to_string()
                    } else {
                        pair[0].to_string()
                    }
                })
                .chain(detail.rsplit(' ').next().map(String::from))
                .collect();
            failure["detail"] = Value::String(words.join(" "));
        }
    }
    check
}

#[test]
fn a_bad_partition_is_a_usage_error_with_an_envelope() {
    for bad in ["0/3", "4/3", "x", "1/0", "count:"] {
        let run = conform(["run", PROFILES[0], "--partition", bad]);
        assert_eq!(run.code(), 2, "{bad}: {:#}", run.envelope);
        assert_eq!(run.envelope["ok"], false, "{bad}");
        assert_eq!(run.envelope["error"]["code"], "USAGE_ERROR", "{bad}");
        let message = run.envelope["error"]["message"].as_str().unwrap_or("");
        assert!(
            message.contains(&format!("'{bad}'")) && message.contains("--partition"),
            "{bad}: {message}"
        );
    }
}
