//! `conform check`'s run defaults: every run, from the first help call to the last
//! derived run, in the isolated sandbox, from a scratch working directory, with every
//! credential-looking variable unset and the network at a black hole (unless the
//! user passed `--network inherit`). Nothing remote and nothing outside the scratch
//! area can then change what a run shows, so the same tool gives the same verdicts.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::exec::RunSpec;
use crate::exec::{
    Network, Sandbox, StdinMode, EDITOR_AND_BROWSER_VARS, OPENERS_AND_DEPLOYERS, SENTINEL_VARS,
};
use crate::explore::survey::SHORT_PATIENCE;
use crate::plan::{KitRun, Plan, PlannedRun, RunKind, RunRole, Subject};

/// Words that make a variable's name read as a credential.
const CREDENTIAL_WORDS: &[&str] = &["TOKEN", "SECRET", "KEY", "PASSWORD", "CREDENTIAL", "AUTH"];

/// The cloud vendors' and clusters' well-known credential variables, by prefix or
/// whole name, that say nothing of a credential in their words.
const CREDENTIAL_PREFIXES: &[&str] = &["AWS_", "AZURE_", "ARM_", "CLOUDSDK_", "GCLOUD_", "VAULT_"];
const CREDENTIAL_NAMES: &[&str] = &[
    "GOOGLE_APPLICATION_CREDENTIALS",
    "KUBECONFIG",
    "DOCKER_CONFIG",
    "NETRC",
    "PGPASSFILE",
];

/// Variables removed from every run: no display to open a window on.
const DISPLAY_VARS: &[&str] = &["DISPLAY", "WAYLAND_DISPLAY"];

/// Whether a variable's name reads as holding (or locating) a credential.
pub(crate) fn is_credential(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    CREDENTIAL_WORDS.iter().any(|word| upper.contains(word))
        || CREDENTIAL_PREFIXES.iter().any(|p| upper.starts_with(p))
        || CREDENTIAL_NAMES.contains(&upper.as_str())
}

/// The manifest's secret and token variables: the root `secret_env_vars` and
/// every command's `secret_env_vars` and `token_env_vars`, sorted.
pub(crate) fn declared_secrets(manifest: &serde_json::Value) -> Vec<String> {
    let mut names = crate::manifest::secret_names(manifest, None);
    for command in manifest
        .get("commands")
        .and_then(serde_json::Value::as_object)
        .into_iter()
        .flat_map(|commands| commands.values())
    {
        names.extend(crate::manifest::secret_names(
            &serde_json::Value::Null,
            Some(command),
        ));
    }
    names.sort();
    names.dedup();
    names
}

/// How every run of `conform check` is made.
#[derive(Debug, Clone)]
pub(crate) struct Hermetic {
    /// Variables unset in every run, sorted: those of conform's environment whose
    /// names read as credentials, and the manifest's secret and token variables.
    pub unset: Vec<String>,
    /// Every run's network.
    pub network: Network,
    /// The scratch directory runs are made from.
    pub cwd: PathBuf,
    /// Whether to make the made-up-command run: not for a tool whose help lists
    /// no subcommands (curl resolves the word as a host, jq compiles it).
    pub unknown_command: bool,
    /// The arguments of `TOOL --help` (after the program), when its help calls
    /// gave no help but a wait, a prompt or a crash: that call is made with stdin
    /// open too, as a probe's run, for the hang checks to judge.
    pub open_help: Option<Vec<String>>,
    /// Probes (their argv) whose help says they read stdin, with the help's line:
    /// their stdin-open runs are marked so ([`PlannedRun::stdin_by_design`]).
    pub stdin_by_design: Vec<(Vec<String>, String)>,
    /// Which probes are judged in depth, by their survey alone, or not at all
    /// (`--budget`); the default: every probe in depth.
    pub scope: crate::plan::Scope,
    /// How long a run held at the black hole is let go on (`--budget` shortens it).
    pub patience: std::time::Duration,
    /// The checks whose runs only depth makes, when no command in depth got one;
    /// such a check that skips says so, with this reason.
    pub unsampled: Option<(std::collections::BTreeSet<crate::checks::CheckId>, String)>,
    /// Exploration's run of each command, by its arguments after the program: the
    /// survey takes them ([`crate::explore::survey`]).
    pub explored: std::sync::Arc<Vec<(Vec<String>, crate::exec::RunRecord)>>,
    /// When a signal ended exploration: the help calls made, by their arguments
    /// after the program; the kit's runs that are the same calls take them.
    pub looked: std::sync::Arc<Vec<(Vec<String>, crate::exec::RunRecord)>>,
}

impl Hermetic {
    /// The defaults for conform's environment `vars`, with the manifest's secret
    /// and token variables `declared`.
    pub(crate) fn new(
        vars: impl IntoIterator<Item = (OsString, OsString)>,
        declared: &[String],
        network: Network,
        cwd: PathBuf,
    ) -> Hermetic {
        let mut unset: Vec<String> = vars
            .into_iter()
            .filter_map(|(name, _)| name.into_string().ok())
            .filter(|name| is_credential(name))
            .chain(declared.iter().cloned())
            .collect();
        unset.sort();
        unset.dedup();
        Hermetic {
            unset,
            network,
            cwd,
            unknown_command: true,
            open_help: None,
            stdin_by_design: Vec::new(),
            scope: crate::plan::Scope::default(),
            patience: crate::exec::NETWORK_PATIENCE,
            unsampled: None,
            explored: Default::default(),
            looked: Default::default(),
        }
    }

    /// The conditions a command whose name says it mutates needs, each that does
    /// not hold said in words; empty: it may run.
    pub(crate) fn gaps(&self, environment: &[(String, String)]) -> Vec<String> {
        let mut gaps = Vec::new();
        if self.network != Network::BlackHole {
            gaps.push(
                "the network is inherited (--network inherit), so it could reach a real host"
                    .to_string(),
            );
        }
        let left: Vec<&str> = environment
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| is_credential(name) && !self.unset.iter().any(|u| u == name))
            .collect();
        if !left.is_empty() {
            gaps.push(format!(
                "credential variables would reach it: {}",
                left.join(", ")
            ));
        }
        if !self.cwd.starts_with(std::env::temp_dir()) {
            gaps.push("its working directory is not a scratch directory".to_string());
        }
        gaps
    }

    /// Whether a run of `plan` costs nothing in the survey: it is taken from
    /// exploration or from another run ([`crate::explore::survey`]).
    pub(crate) fn free_in_survey(&self, plan: &Plan, index: usize) -> bool {
        self.network == Network::BlackHole
            && crate::explore::survey::free_in_survey(plan, index, &self.explored)
    }

    /// Every planned run made the hermetic way: the isolated sandbox where the kind
    /// had a lighter one or none, credentials and display unset, the black hole
    /// unless inherited; the made-up-command run left out when it does not fit.
    pub(crate) fn apply(&self, plan: &mut Plan) {
        if !self.unknown_command {
            drop_runs(plan, |run| run.role.kind == RunKind::UnknownCommand);
        }
        if let Some(args) = &self.open_help {
            add_open_help(plan, args);
        }
        // network_timeout reads a probe's stdin-closed run where it is itself at the
        // black hole: such a run gets the black-hole run's patience.
        let patient = self.network == Network::BlackHole
            && plan
                .runs
                .iter()
                .any(|run| run.role.kind == RunKind::BlackHole);
        // Its black-hole run would be the same run again, made only to wait as long.
        if patient {
            drop_runs(plan, |run| run.role.kind == RunKind::BlackHole);
        }
        for run in &mut plan.runs {
            if patient && run.role.kind == RunKind::Closed && run.role.probe_index().is_some() {
                run.spec.patience = Some(self.patience);
            } else if self.network == Network::BlackHole && run.spec.patience.is_none() {
                // Every other run at the black hole gets a second limit's worth: a
                // tool whose update check gives up after 6 s (pip's, hf's) then
                // shows its help, exit and envelope to the checks that judge
                // them, where at the limit they could only skip.
                run.spec.patience = Some(run.spec.limit * SHORT_PATIENCE);
            }
            if run.spec.stdin == StdinMode::Open && run.role.probe_index().is_some() {
                run.stdin_by_design = self
                    .stdin_by_design
                    .iter()
                    .find(|(argv, _)| run.spec.args.ends_with(argv))
                    .map(|(_, line)| line.clone());
            }
            let spec = &mut run.spec;
            match &mut spec.sandbox {
                // Fresh directories, and no real browser or editor: a real vi on a
                // pipe holds the run to its limit (llm's `templates edit`) and shows
                // no editor call; the sentinel's call is what editor_not_invoked
                // reads. The pager stays as the kind had it: a pager sentinel would
                // swallow stdout.
                None => {
                    spec.sandbox = Some(Sandbox {
                        fresh_dirs: true,
                        sentinel_vars: &EDITOR_AND_BROWSER_VARS,
                        shims: &OPENERS_AND_DEPLOYERS,
                        needles: Vec::new(),
                    })
                }
                // A terminal run has the pager sentinels only: it gets all of them.
                Some(sandbox) => {
                    sandbox.fresh_dirs = true;
                    sandbox.sentinel_vars = SENTINEL_VARS;
                    if sandbox.shims.is_empty() {
                        sandbox.shims = &OPENERS_AND_DEPLOYERS;
                    }
                }
            }
            if self.network == Network::BlackHole {
                spec.network = Network::BlackHole;
            }
            let removed = self
                .unset
                .iter()
                .map(String::as_str)
                .chain(DISPLAY_VARS.iter().copied());
            for name in removed {
                let set_by_run = spec.env_set.iter().any(|(set, _)| set == name);
                if !set_by_run && !spec.env_remove.iter().any(|r| r == name) {
                    spec.env_remove.push(name.to_string());
                }
            }
        }
        crate::explore::survey::take_help_calls(plan, &self.looked);
        if self.network == Network::BlackHole {
            crate::explore::survey::take_from_exploration(
                plan,
                &self.explored,
                &self.scope.survey_only,
                self.patience,
            );
        }
    }
}

/// `TOOL --help` with an open stdin that never delivers a byte, as a probe's
/// stdin-open run is made, when the selected checks read such runs: a help that
/// prompts waits there, and the hang checks name it.
fn add_open_help(plan: &mut Plan, args: &[String]) {
    let Some(open) = plan.runs.iter().find(|run| run.role.kind == RunKind::Open) else {
        return;
    };
    let spec = RunSpec {
        args: args.to_vec(),
        ..open.spec.clone()
    };
    plan.runs.push(PlannedRun {
        label: format!("{} (stdin open)", KitRun::Help.name()),
        role: RunRole {
            kind: RunKind::Open,
            subject: Subject::Kit(KitRun::Help),
        },
        spec,
        after: Vec::new(),
        gate: None,
        derived: None,
        stdin_by_design: None,
        made: None,
    });
}

/// Removes the runs `drop` picks, renumbering every reference to a later run.
fn drop_runs(plan: &mut Plan, drop: impl Fn(&crate::plan::PlannedRun) -> bool) {
    let mut renumber = Vec::with_capacity(plan.runs.len());
    let mut next = 0;
    for run in &plan.runs {
        if drop(run) {
            renumber.push(None);
        } else {
            renumber.push(Some(next));
            next += 1;
        }
    }
    let dropped_is_needed = plan.runs.iter().enumerate().any(|(index, run)| {
        renumber[index].is_some()
            && (run
                .after
                .iter()
                .chain(&run.gate)
                .any(|&i| renumber[i].is_none())
                || run.derived.as_ref().is_some_and(|d| {
                    [Some(d.baseline), d.manifest, d.earlier]
                        .into_iter()
                        .flatten()
                        .any(|i| renumber[i].is_none())
                }))
    });
    // A run another one waits on stays: dropping it would break the plan.
    if dropped_is_needed {
        return;
    }
    let at = |index: usize| renumber[index].unwrap_or(index);
    let mut index = 0;
    plan.runs.retain(|_| {
        let keep = renumber[index].is_some();
        index += 1;
        keep
    });
    for run in &mut plan.runs {
        for after in &mut run.after {
            *after = at(*after);
        }
        if let Some(gate) = &mut run.gate {
            *gate = at(*gate);
        }
        if let Some(crate::plan::Made::SameAs(same)) = &mut run.made {
            *same = at(*same);
        }
        if let Some(derived) = &mut run.derived {
            derived.baseline = at(derived.baseline);
            derived.manifest = derived.manifest.map(at);
            derived.earlier = derived.earlier.map(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_names_are_recognised_by_their_words_and_vendors() {
        for name in [
            "GITHUB_TOKEN",
            "npm_config__authToken",
            "OPENAI_API_KEY",
            "PGPASSWORD",
            "AWS_PROFILE",
            "AZURE_CLIENT_ID",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "SSH_AUTH_SOCK",
        ] {
            assert!(is_credential(name), "{name}");
        }
        for name in ["PATH", "HOME", "TERM", "LANG", "CARGO_HOME"] {
            assert!(!is_credential(name), "{name}");
        }
    }

    #[test]
    fn the_unset_names_are_sorted_once_and_never_carry_values() {
        let vars = [
            ("PATH", "/bin"),
            ("GH_TOKEN", "ghp_secret"),
            ("AWS_SECRET_ACCESS_KEY", "x"),
        ]
        .map(|(n, v)| (OsString::from(n), OsString::from(v)));
        let hermetic = Hermetic::new(
            vars,
            &["GH_TOKEN".to_string(), "TOOL_SECRET".to_string()],
            Network::BlackHole,
            std::env::temp_dir(),
        );
        assert_eq!(
            hermetic.unset,
            ["AWS_SECRET_ACCESS_KEY", "GH_TOKEN", "TOOL_SECRET"]
        );
        assert!(hermetic.gaps(&[]).is_empty());
        let inherited = Hermetic {
            network: Network::Inherited,
            ..hermetic
        };
        let gaps = inherited.gaps(&[("MY_TOKEN".into(), "v".into())]);
        assert_eq!(gaps.len(), 2, "{gaps:?}");
        assert!(gaps[0].contains("--network inherit"), "{gaps:?}");
        assert!(gaps[1].contains("MY_TOKEN"), "{gaps:?}");
    }

    #[test]
    fn the_open_help_run_is_added_only_where_the_checks_read_stdin_open_runs() {
        let hermetic = Hermetic {
            open_help: Some(vec!["--help".to_string()]),
            ..Hermetic::new(Vec::new(), &[], Network::BlackHole, std::env::temp_dir())
        };
        let spec = |stdin| RunSpec {
            program: PathBuf::from("t"),
            args: vec!["--conform-no-such-flag".into()],
            cwd: std::env::temp_dir(),
            env_set: Vec::new(),
            env_remove: Vec::new(),
            stdin,
            limit: std::time::Duration::from_secs(5),
            capture_limit: crate::exec::DEFAULT_CAPTURE_LIMIT,
            stream: false,
            trigger: None,
            output: crate::exec::Output::Pipes,
            sandbox: None,
            network: Network::Inherited,
            patience: None,
            namespace: None,
        };
        let planned = |kind, stdin| PlannedRun {
            label: "unknown flag".into(),
            role: RunRole::probe(kind, 0),
            spec: spec(stdin),
            after: Vec::new(),
            gate: None,
            derived: None,
            stdin_by_design: None,
            made: None,
        };
        let mut closed_only = Plan {
            runs: vec![planned(RunKind::Closed, crate::exec::StdinMode::Closed)],
        };
        hermetic.apply(&mut closed_only);
        assert_eq!(closed_only.runs.len(), 1);

        let mut with_open = Plan {
            runs: vec![
                planned(RunKind::Closed, crate::exec::StdinMode::Closed),
                planned(RunKind::Open, crate::exec::StdinMode::Open),
            ],
        };
        hermetic.apply(&mut with_open);
        let added = with_open.runs.last().expect("a run");
        assert_eq!(added.label, "--help (stdin open)");
        assert_eq!(added.spec.args, ["--help"]);
        assert_eq!(added.spec.stdin, crate::exec::StdinMode::Open);
        assert_eq!(added.role.subject, Subject::Kit(KitRun::Help));
        // Made the hermetic way, as every other run.
        assert!(added.spec.sandbox.is_some());
        assert_eq!(added.spec.network, Network::BlackHole);
    }
}
