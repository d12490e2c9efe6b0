//! What the profile builders ask of the tool, and what its runs showed: the
//! interface between reading a manifest or help text and running the tool.

/// What the profile builders ask of the tool: [`Runner`](super::runner::Runner)
/// answers by running it, a unit test with canned text.
pub(super) trait Tool {
    /// The help of the tool followed by `args` (`[]`: the tool itself), or why
    /// there is none. `program` is the tool's name as its help writes it.
    fn help(&mut self, args: &[String], program: &str) -> Result<String, String>;
    /// What the tool prints for `args` when that exits 0 (`git help -a`).
    fn listing(&mut self, args: &[String]) -> Result<String, String>;
    /// The trial of a candidate read probe.
    fn try_read(&mut self, argv: &[String]) -> Trial;
    /// One run of a stream, as `conform run` makes it, to count its lines.
    fn measure(&mut self, argv: &[String]) -> Measured;
    /// Every run is hermetic (`conform check`): a run that goes for the network
    /// meets a black hole of its own, whatever the machine's network.
    fn hermetic(&self) -> bool {
        false
    }
    /// The help of each of `paths`, as [`Tool::help`] gives it; a runner makes
    /// the calls at once.
    fn helps(&mut self, paths: &[Vec<String>], program: &str) -> Vec<Result<String, String>> {
        paths.iter().map(|path| self.help(path, program)).collect()
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
    /// What it left in its HOME, config or data directories (`home/.tool/`) or
    /// its working directory (`cwd/.terraform/`).
    pub wrote: Vec<String>,
}

impl Default for Explored {
    fn default() -> Self {
        Explored {
            error: None,
            finished: true,
            exit_code: None,
            network: false,
            wrote: Vec::new(),
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
