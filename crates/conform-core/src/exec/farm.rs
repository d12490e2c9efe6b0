//! What every sandbox of a session shares, made once and then only read by tools:
//! the sentinel script and the symlink farms that name it (`vars/PAGER`,
//! `bin-0/xdg-open`, ...). A run's sandbox points its variables and `PATH` here and
//! tells the sentinel where that run's log is (`CONFORM_SENTINEL_LOG`), so a run
//! makes no link and writes no script of its own.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The variable that tells the sentinel which run's log to append to.
pub(crate) const LOG_VAR: &str = "CONFORM_SENTINEL_LOG";

/// Where the sentinel logs a call when [`LOG_VAR`] did not reach it (a tool that
/// cleared its environment before starting a pager): one log for the session,
/// each record led by the caller's process group, which names the run.
const UNROUTED_LOG: &str = "unrouted";

/// The session's shared sentinel and farms, under `dir`.
#[derive(Debug)]
pub(super) struct Farm {
    dir: PathBuf,
    made: Mutex<Made>,
}

#[derive(Debug, Default)]
struct Made {
    /// Variable names linked under `vars/`.
    vars: BTreeSet<&'static str>,
    /// Each distinct list of opener and installer names, and its directory.
    bins: BTreeMap<&'static [&'static str], PathBuf>,
}

impl Farm {
    /// Makes the sentinel script in `dir` (which must not exist yet).
    pub(super) fn make(dir: PathBuf) -> io::Result<Farm> {
        fs::create_dir(&dir)?;
        fs::create_dir(dir.join("vars"))?;
        let sentinel = dir.join("sentinel");
        fs::write(&sentinel, sentinel_script(&dir.join(UNROUTED_LOG)))?;
        fs::set_permissions(&sentinel, fs::Permissions::from_mode(0o755))?;
        Ok(Farm {
            dir,
            made: Mutex::default(),
        })
    }

    /// The link a variable such as `PAGER` is set to; the sentinel learns the name
    /// it was called by from `$0`.
    pub(super) fn var(&self, name: &'static str) -> io::Result<PathBuf> {
        let link = self.dir.join("vars").join(name);
        let mut made = self.lock();
        if !made.vars.contains(name) {
            symlink(self.dir.join("sentinel"), &link)?;
            made.vars.insert(name);
        }
        Ok(link)
    }

    /// A directory holding the sentinel under each of `names`, to put first on
    /// `PATH`. One per distinct list: sandboxes that stand in for the same programs
    /// share it.
    pub(super) fn bin(&self, names: &'static [&'static str]) -> io::Result<PathBuf> {
        let mut made = self.lock();
        if let Some(dir) = made.bins.get(names) {
            return Ok(dir.clone());
        }
        let dir = self.dir.join(format!("bin-{}", made.bins.len()));
        fs::create_dir(&dir)?;
        for name in names {
            symlink(self.dir.join("sentinel"), dir.join(name))?;
        }
        made.bins.insert(names, dir.clone());
        Ok(dir)
    }

    /// The session's log of calls whose run could not be told by [`LOG_VAR`].
    pub(super) fn unrouted_log(&self) -> PathBuf {
        self.dir.join(UNROUTED_LOG)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Made> {
        self.made
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A shell script that appends its name and argv to its run's log (fields separated
/// by US, records ended by RS, so arguments may hold spaces and newlines) and exits
/// 1 without reading stdin, as a pager or editor that failed at once would. Without
/// [`LOG_VAR`] it writes to `unrouted` instead, its process group first.
fn sentinel_script(unrouted: &Path) -> String {
    let quoted = unrouted.to_string_lossy().replace('\'', r"'\''");
    format!(
        "#!/bin/sh\n\
         # conform's sentinel: records that it ran and how, then fails.\n\
         us=$(printf '\\037')\n\
         record=${{0##*/}}\n\
         for arg in \"$@\"; do record=\"$record$us$arg\"; done\n\
         if [ -n \"${{{LOG_VAR}:-}}\" ]; then\n\
         \x20   printf '%s\\036' \"$record\" >> \"${LOG_VAR}\"\n\
         else\n\
         \x20   read -r stat < /proc/$$/stat\n\
         \x20   set -- ${{stat##*) }}\n\
         \x20   printf '%s\\036' \"$3$us$record\" >> '{quoted}'\n\
         fi\n\
         exit 1\n"
    )
}
