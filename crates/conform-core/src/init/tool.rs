//! What the profile builders ask of the tool, and what its runs showed: the
//! interface between reading a manifest or help text and running the tool.

/// What the profile builders ask of the tool: [`Runner`](super::runner::Runner)
/// answers by running it, a unit test with canned text.
pub(super) trait Tool {
    /// The help of the tool followed by `args` (`[]`: the tool itself), or why
    /// there is none. `program` is the tool's name as its help writes it.
    fn help(&mut self, args: &[String], program: &str) -> Result<String, String>;
    /// The tool's own help, as [`Tool::help`] gives it, or what its help calls
    /// showed instead.
    fn root_help(&mut self, program: &str) -> Result<String, Unread> {
        self.help(&[], program).map_err(|reason| Unread {
            reason,
            call: String::new(),
            printed: String::new(),
            how: Unusable::Silent,
        })
    }
    /// What the tool prints for `args` when that exits 0 (`git help -a`).
    fn listing(&mut self, args: &[String]) -> Result<String, String>;
    /// [`Tool::listing`] with `env` set: a completion protocol (click's
    /// `_TOOL_COMPLETE`). A canned tool has no variables to read.
    fn listing_with(
        &mut self,
        args: &[String],
        env: &[(String, String)],
    ) -> Result<String, String> {
        if env.is_empty() {
            self.listing(args)
        } else {
            Err("no variables to read".into())
        }
    }
    /// The trial of a candidate read probe.
    fn try_read(&mut self, argv: &[String]) -> Trial;
    /// One run of a stream, as `conform run` makes it, to count its lines.
    fn measure(&mut self, argv: &[String]) -> Measured;
    /// Every run is hermetic (`conform check`): a run that goes for the network
    /// meets a black hole of its own, whatever the machine's network.
    fn hermetic(&self) -> bool {
        false
    }
    /// What one more run costs the pool, as measured so far; `None` unmeasured.
    fn per_run(&self) -> Option<std::time::Duration> {
        None
    }
    /// Each run's limit.
    fn limit(&self) -> std::time::Duration {
        std::time::Duration::from_secs(5)
    }
    /// A phase of exploration begins (`help calls`), with what it does: for the
    /// progress shown.
    fn phase(&mut self, _name: &str, _detail: &str) {}
    /// The help of each of `paths`, as [`Tool::help`] gives it; a runner makes
    /// the calls at once.
    fn helps(&mut self, paths: &[Vec<String>], program: &str) -> Vec<Result<String, String>> {
        paths.iter().map(|path| self.help(path, program)).collect()
    }
    /// As [`Tool::helps`], no call started after `until` but the first few (a
    /// runner keeps its pool full to the end): `None` for a help not read.
    fn helps_until(
        &mut self,
        paths: &[Vec<String>],
        program: &str,
        _until: Option<std::time::Instant>,
    ) -> Vec<Option<Result<String, String>>> {
        self.helps(paths, program).into_iter().map(Some).collect()
    }
    /// As [`Tool::explore`], no run started after `until` but the first few:
    /// `None` for a command not run.
    fn explore_until(
        &mut self,
        argvs: &[Vec<String>],
        _until: Option<std::time::Instant>,
    ) -> Vec<Option<Explored>> {
        self.explore(argvs).into_iter().map(Some).collect()
    }
    /// One exploration run of each of `argvs`; a runner makes them at once.
    fn explore(&mut self, argvs: &[Vec<String>]) -> Vec<Explored> {
        argvs
            .iter()
            .map(|argv| match self.try_read(argv) {
                Trial::Passed => Explored {
                    exit_code: Some(0),
                    ..Explored::default()
                },
                Trial::Failed { network, .. } => Explored {
                    exit_code: Some(1),
                    network,
                    ..Explored::default()
                },
            })
            .collect()
    }
}

/// What an exploration run of a command showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Explored {
    /// It could not be run, and why.
    pub error: Option<String>,
    /// It ended within the limit.
    pub finished: bool,
    pub exit_code: Option<i32>,
    /// It connected to its black hole.
    pub network: bool,
    /// It was still running at the limit, listening on this port: a server.
    pub listening: Option<u16>,
    /// What it left in its HOME, config or data directories (`home/.tool/`) or
    /// its working directory (`cwd/.terraform/`).
    pub wrote: Vec<String>,
    /// What it did to the bait project of its working directory.
    pub bait: super::bait::Changes,
    /// The installers and deploy tools it called (the sandbox's sentinels,
    /// which refused), each as called: `gcloud run deploy app`.
    pub external: Vec<String>,
}

impl Default for Explored {
    fn default() -> Self {
        Explored {
            error: None,
            finished: true,
            exit_code: None,
            network: false,
            listening: None,
            wrote: Vec::new(),
            bait: super::bait::Changes::default(),
            external: Vec::new(),
        }
    }
}

/// How a candidate read probe's trial went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Trial {
    /// It ended in time with exit 0, stdin closed and then open, offline.
    Passed,
    /// It did not; `network` when it connected to the black hole.
    Failed { reason: String, network: bool },
}

impl Trial {
    pub(super) fn failed(reason: impl Into<String>) -> Trial {
        Trial::Failed {
            reason: reason.into(),
            network: false,
        }
    }
}

/// What one run of a stream showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Measured {
    /// Ended by itself after printing this many lines.
    Finished { lines: u64 },
    /// Still streaming at the limit, after this many lines.
    TimedOut { lines: u64 },
    /// Could not be run.
    Failed,
}

/// Why the tool's help calls gave no help to read, and what they showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unread {
    /// Why, in words, naming the call.
    pub reason: String,
    /// The call that decided it, as typed: `./tool --help`.
    pub call: String,
    /// The start of what that call printed (stdout, then stderr), on one line;
    /// empty when it printed nothing.
    pub printed: String,
    pub how: Unusable,
}

/// How a help call failed to give help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unusable {
    /// The tool could not be started (or conform could not make the run).
    NotStarted,
    /// Every call ended in time and printed nothing at all.
    Silent,
    /// It hit the limit: it waited (on stdin, a terminal, the network, nothing).
    Waited,
    /// It printed a question and ended without an answer.
    Prompted,
    /// It ended on a crash: a traceback, a panic.
    Crashed,
    /// It printed something that is not help.
    NotHelp,
}

impl Unusable {
    /// The verdict in one word, for a warning's context.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Unusable::NotStarted => "not_started",
            Unusable::Silent => "silent",
            Unusable::Waited => "waited",
            Unusable::Prompted => "prompted",
            Unusable::Crashed => "crashed",
            Unusable::NotHelp => "not_help",
        }
    }

    /// Whether the calls showed something the checks can judge: the tool started
    /// and did more than end in silence.
    pub(crate) fn judgeable(self) -> bool {
        !matches!(self, Unusable::NotStarted | Unusable::Silent)
    }
}
