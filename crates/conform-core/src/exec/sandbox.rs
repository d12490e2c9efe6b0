//! Sandboxes for the isolated and terminal runs: fresh, empty HOME, XDG directories
//! and TMPDIR, and a sentinel program standing in for pagers, editors and browsers.
//!
//! What a fresh HOME hides is the user's config, caches and state, not the installed
//! toolchains: an isolated run keeps the variables that locate them (`toolchain.rs`).
//!
//! Every sandbox lives in its session's scratch directory (`conform-<pid>-...`, on a
//! tmpfs where there is one: `session::root`). The sentinel and its links are
//! shared by the session (`farm.rs`); a run's own part is only what it may write.
//! A sandbox is made just before its run is spawned (its fresh directories most
//! often made ahead by the session's helper thread, `janitor.rs`) and handed back
//! for removal when the run's record is taken, which happens on every path a run
//! can end by (exit, limit, cancel, internal error); a dropped sandbox is handed
//! back too, and the scratch directory goes with the session, for what an
//! interrupted kit could not reach.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::farm::{self, Farm};
use super::janitor::Discard;
use super::session::Scratch;
use super::toolchain::{real_home, toolchain_env};

/// Variables a pager is found by.
pub(crate) const PAGER_VARS: &[&str] = &["PAGER", "GIT_PAGER", "MANPAGER"];
/// Variables an editor is found by.
pub(crate) const EDITOR_VARS: &[&str] = &["EDITOR", "VISUAL", "GIT_EDITOR"];
/// Variables set to the sentinel in every run `conform check` makes: no real editor
/// or browser ever opens there.
pub(crate) const EDITOR_AND_BROWSER_VARS: [&str; EDITOR_VARS.len() + 1] =
    joined(EDITOR_VARS, &["BROWSER"]);
/// Every variable set to the sentinel in an isolated run.
pub(crate) const SENTINEL_VARS: &[&str] = &joined::<
    { PAGER_VARS.len() + EDITOR_AND_BROWSER_VARS.len() },
>(PAGER_VARS, &EDITOR_AND_BROWSER_VARS);
/// Programs that open a URL or file in a browser or desktop application; the
/// sentinel stands in for each, first on `PATH`.
pub(crate) const OPENERS: &[&str] = &["xdg-open", "open", "sensible-browser", "www-browser", "gio"];
/// Package managers and installers a tool could update itself with; in an isolated
/// run the sentinel stands in for each, first on `PATH`, so that nothing installs.
/// Runtimes (`node`, `python3`, `ruby`) stay real: a tool still finds the one it runs on.
pub(crate) const INSTALLERS: &[&str] = &[
    "npm", "npx", "pnpm", "yarn", "pip", "pip3", "pipx", "uv", "brew", "apt-get", "apt", "gem",
    "cargo", "go",
];
/// The command-line tools of deploy and cloud platforms a tool may shell out to
/// (a `publish heroku` that creates an app with the user's credentials); in an
/// isolated run the sentinel stands in for each, so that nothing is deployed and
/// the call is recorded.
pub(crate) const DEPLOYERS: &[&str] = &[
    "heroku",
    "gcloud",
    "gsutil",
    "aws",
    "az",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "flyctl",
    "fly",
    "vercel",
    "netlify",
    "wrangler",
    "firebase",
    "terraform",
];
const INSTALLERS_AND_DEPLOYERS: [&str; INSTALLERS.len() + DEPLOYERS.len()] =
    joined(INSTALLERS, DEPLOYERS);
/// The names the sentinel answers to on an isolated run's `PATH`.
/// The openers and the deployers: what every run of `conform check` finds first on
/// PATH, whatever its sandbox, so that no run of an unvetted command reaches a real
/// cloud CLI with the user's credentials.
pub(crate) const OPENERS_AND_DEPLOYERS: [&str; OPENERS.len() + DEPLOYERS.len()] =
    joined(OPENERS, DEPLOYERS);

const ISOLATED_SHIMS: [&str; OPENERS.len() + INSTALLERS_AND_DEPLOYERS.len()] =
    joined(OPENERS, &INSTALLERS_AND_DEPLOYERS);

/// `first` then `second`, as one array (a const, so the shim lists stay data).
const fn joined<const N: usize>(
    first: &[&'static str],
    second: &[&'static str],
) -> [&'static str; N] {
    let mut all = [""; N];
    let mut i = 0;
    while i < N {
        all[i] = if i < first.len() {
            first[i]
        } else {
            second[i - first.len()]
        };
        i += 1;
    }
    all
}

/// The tool's fresh directories: variable, and the directory's name in the sandbox
/// (what `created` paths start with).
pub(super) const FRESH_DIRS: [(&str, &str); 6] = [
    ("HOME", "home"),
    ("XDG_CONFIG_HOME", "config"),
    ("XDG_DATA_HOME", "data"),
    ("XDG_CACHE_HOME", "cache"),
    ("XDG_STATE_HOME", "state"),
    ("TMPDIR", "tmp"),
];

/// Entries of `created` kept for the evidence; the rest are counted.
const CREATED_SHOWN: usize = 50;
/// Bytes of the sentinel's log read back: enough for any honest number of calls.
const MARKER_READ: u64 = 64 * 1024;
/// Bytes of each file read when looking for needles, and how many files are read.
const NEEDLE_READ: u64 = 1024 * 1024;
const NEEDLE_FILES: usize = 200;

/// What an argument names the run's sandbox by: in a sandboxed run with fresh
/// directories, `<sandbox>/tmp/x` in an argument becomes the real path of its
/// TMPDIR's `x` when the run is spawned; the record keeps the mark, as its
/// environment does.
pub(crate) const SANDBOX_MARK: &str = "<sandbox>/";

/// What a run's sandbox holds, as data: the planner says what, the executor makes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sandbox {
    /// Fresh empty HOME, XDG_CONFIG/DATA/CACHE/STATE_HOME and TMPDIR, diffed after
    /// the run.
    pub fresh_dirs: bool,
    /// Variables set to the sentinel.
    pub sentinel_vars: &'static [&'static str],
    /// Names the sentinel answers to in a directory first on `PATH`.
    pub shims: &'static [&'static str],
    /// Byte strings looked for in the files the run leaves in its fresh
    /// directories: each file holding one is reported with its mode
    /// ([`SandboxReport::holding`]). Empty: no file is read.
    pub needles: Vec<Needle>,
}

/// A byte string looked for in the files a run left behind, and the name it is
/// reported by (so that the evidence never shows the bytes themselves).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Needle {
    pub name: String,
    pub bytes: Vec<u8>,
}

impl Sandbox {
    /// The isolated run: everything.
    pub(crate) fn isolated() -> Sandbox {
        Sandbox {
            fresh_dirs: true,
            sentinel_vars: SENTINEL_VARS,
            shims: &ISOLATED_SHIMS,
            needles: Vec::new(),
        }
    }

    /// The terminal run: only the pager sentinels, in the tool's usual directories.
    pub(crate) fn pagers() -> Sandbox {
        Sandbox {
            fresh_dirs: false,
            sentinel_vars: PAGER_VARS,
            shims: &[],
            needles: Vec::new(),
        }
    }
}

/// One call of the sentinel: the name it was called by (a variable such as `PAGER`,
/// or an opener such as `xdg-open`) and its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SentinelCall {
    pub name: String,
    pub argv: Vec<String>,
}

/// What happened in a run's sandbox.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct SandboxReport {
    pub sentinel_calls: Vec<SentinelCall>,
    /// Files and directories that appeared in the fresh directories, relative to the
    /// sandbox (`config/tool/`, directories with a trailing slash), sorted.
    pub created: Vec<String>,
    /// Entries created beyond those listed.
    pub created_more: usize,
    /// The files left in the fresh directories that hold one of the sandbox's
    /// needles, sorted by path.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub holding: Vec<HoldingFile>,
}

/// A file left in a sandbox that holds needles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct HoldingFile {
    /// Relative to the sandbox, as in `created`.
    pub path: String,
    /// Its permission bits (`0o600`).
    pub mode: u32,
    /// The names of the needles it holds, each once.
    pub needles: Vec<String>,
}

/// A sandbox on disk, removed (off the reactor's thread) when dropped.
pub(super) struct Made {
    dir: PathBuf,
    fresh_dirs: bool,
    /// The session's log of sentinel calls that came without their run's log.
    unrouted: PathBuf,
    discard: Discard,
    needles: Vec<Needle>,
    /// Variables for the tool's environment.
    pub(super) env: Vec<(String, OsString)>,
    /// The same, as the evidence shows them (no per-run paths, so reports compare).
    pub(super) described: Vec<String>,
}

/// Makes a run's sandbox: only its writable directories are its own (its log's
/// directory and, for an isolated run, the fresh HOME, XDG directories and TMPDIR,
/// most often made ahead of time); the sentinel and its links are the session's.
pub(super) fn make(sandbox: &Sandbox, scratch: &Scratch) -> io::Result<Made> {
    let farm = scratch.farm()?;
    let dir = if sandbox.fresh_dirs {
        scratch.fresh_set()?
    } else {
        let dir = scratch.run_dir()?;
        fs::create_dir(&dir)?;
        dir
    };
    // From here on, a failure removes what was made (Drop).
    let mut made = Made {
        dir,
        fresh_dirs: sandbox.fresh_dirs,
        unrouted: farm.unrouted_log(),
        discard: scratch.discard(),
        needles: sandbox.needles.clone(),
        env: Vec::new(),
        described: Vec::new(),
    };
    made.fill(sandbox, &farm)?;
    Ok(made)
}

impl Made {
    fn fill(&mut self, sandbox: &Sandbox, farm: &Farm) -> io::Result<()> {
        let log = self.dir.join("calls");
        self.set(
            farm::LOG_VAR,
            log.into_os_string(),
            "<sandbox>/calls".into(),
        );
        for name in sandbox.sentinel_vars {
            let link = farm.var(name)?;
            self.set(
                name,
                link.into_os_string(),
                format!("<sandbox>/vars/{name}"),
            );
        }
        if !sandbox.shims.is_empty() {
            let mut path = farm.bin(sandbox.shims)?.into_os_string();
            if let Some(inherited) = std::env::var_os("PATH") {
                path.push(":");
                path.push(inherited);
            }
            self.set("PATH", path, "<sandbox>/bin:$PATH".into());
        }
        if sandbox.fresh_dirs {
            for (name, sub) in FRESH_DIRS {
                let path = self.dir.join(sub);
                self.set(name, path.into_os_string(), format!("<sandbox>/{sub}"));
            }
            for (name, path) in toolchain_env(|name| std::env::var_os(name), real_home().as_deref())
            {
                let described = path.display().to_string();
                self.set(name, path.into_os_string(), described);
            }
        }
        Ok(())
    }

    /// `args` with [`SANDBOX_MARK`] made the sandbox's real path; `None` when none
    /// names it (or the sandbox has no fresh directories to name).
    pub(super) fn resolve_args(&self, args: &[String]) -> Option<Vec<String>> {
        if !self.fresh_dirs || !args.iter().any(|arg| arg.contains(SANDBOX_MARK)) {
            return None;
        }
        let real = format!("{}/", self.dir.display());
        Some(
            args.iter()
                .map(|arg| arg.replace(SANDBOX_MARK, &real))
                .collect(),
        )
    }

    fn set(&mut self, name: &str, value: OsString, described: String) {
        self.env.push((name.to_string(), value));
        self.described.push(format!("{name}={described}"));
    }

    /// What the sentinel logged for the run whose process group is `group`, and what
    /// appeared in the fresh directories; then the sandbox is handed over for
    /// removal.
    pub(super) fn finish(self, group: i32) -> SandboxReport {
        let mut sentinel_calls = read_calls(&self.dir.join("calls"));
        sentinel_calls.extend(read_unrouted(&self.unrouted, group));
        let mut report = SandboxReport {
            sentinel_calls,
            ..SandboxReport::default()
        };
        if self.fresh_dirs {
            let mut created = Vec::new();
            for (_, sub) in FRESH_DIRS {
                list(&self.dir, &self.dir.join(sub), &mut created);
            }
            created.sort();
            report.created_more = created.len().saturating_sub(CREATED_SHOWN);
            if !self.needles.is_empty() {
                report.holding = holding(&self.dir, &created, &self.needles);
            }
            created.truncate(CREATED_SHOWN);
            report.created = created;
        }
        report
    }
}

impl Drop for Made {
    fn drop(&mut self) {
        self.discard.remove(std::mem::take(&mut self.dir));
    }
}

fn read_calls(marker: &Path) -> Vec<SentinelCall> {
    records(marker).iter().map(|record| call(record)).collect()
}

/// The calls in the session's unrouted log made from process group `group`: each
/// record there is led by the caller's group.
fn read_unrouted(log: &Path, group: i32) -> Vec<SentinelCall> {
    let group = group.to_string();
    records(log)
        .iter()
        .filter_map(|record| record.split_once('\u{1f}'))
        .filter(|(from, _)| *from == group)
        .map(|(_, rest)| call(rest))
        .collect()
}

/// One record: the name the sentinel was called by, then its arguments, split by US.
fn call(record: &str) -> SentinelCall {
    let mut fields = record.split('\u{1f}').map(String::from);
    SentinelCall {
        name: fields.next().unwrap_or_default(),
        argv: fields.collect(),
    }
}

/// The records of a sentinel log, each ended by RS; none when it is absent.
fn records(log: &Path) -> Vec<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    if let Ok(file) = fs::File::open(log) {
        // Unreadable means no call was logged.
        let _ = file.take(MARKER_READ).read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes)
        .split('\u{1e}')
        .filter(|record| !record.is_empty())
        .map(String::from)
        .collect()
}

/// The files among `created` (relative to `root`) that hold any of `needles`, with
/// their modes; symlinks are not followed.
fn holding(root: &Path, created: &[String], needles: &[Needle]) -> Vec<HoldingFile> {
    use std::collections::HashMap;
    use std::io::Read;
    // One pass over a file per needle length, each window looked up.
    let mut by_len: HashMap<usize, HashMap<&[u8], &str>> = HashMap::new();
    for needle in needles.iter().filter(|needle| !needle.bytes.is_empty()) {
        by_len
            .entry(needle.bytes.len())
            .or_default()
            .insert(&needle.bytes, &needle.name);
    }
    let mut found = Vec::new();
    for path in created
        .iter()
        .filter(|path| !path.ends_with('/'))
        .take(NEEDLE_FILES)
    {
        let full = root.join(path);
        let Ok(meta) = fs::symlink_metadata(&full) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let mut bytes = Vec::new();
        let Ok(file) = fs::File::open(&full) else {
            continue;
        };
        // What cannot be read is judged by what could.
        let _ = file.take(NEEDLE_READ).read_to_end(&mut bytes);
        let mut names: Vec<String> = Vec::new();
        for (len, of_len) in &by_len {
            for window in bytes.windows(*len) {
                if let Some(name) = of_len.get(window) {
                    if !names.iter().any(|known| known == name) {
                        names.push(name.to_string());
                    }
                }
            }
        }
        names.sort();
        if !names.is_empty() {
            found.push(HoldingFile {
                path: path.clone(),
                mode: meta.permissions().mode() & 0o7777,
                needles: names,
            });
        }
    }
    found
}

/// Every entry under `dir`, relative to `root`, without following symlinks.
fn list(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let relative = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            out.push(format!("{relative}/"));
            list(root, &path, out);
        } else {
            out.push(relative);
        }
    }
}

/// Removes a tree; a tool that made a directory unwritable cannot keep it there.
pub(super) fn remove_tree(path: &Path) {
    if fs::remove_dir_all(path).is_ok() || !path.exists() {
        return;
    }
    make_writable(path);
    let _ = fs::remove_dir_all(path);
}

fn make_writable(dir: &Path) {
    let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                make_writable(&entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::toolchain::TOOLCHAIN_HOMES;
    use super::*;
    use std::process::Command;

    #[test]
    fn an_isolated_run_keeps_the_real_toolchains_but_not_the_real_home() {
        let scratch = Scratch::default();
        let made = make(&Sandbox::isolated(), &scratch).expect("sandbox");
        let home = made
            .env
            .iter()
            .find(|(name, _)| name == "HOME")
            .map(|(_, value)| PathBuf::from(value))
            .expect("HOME is set");
        assert!(home.starts_with(&made.dir), "{home:?} is the sandbox's");
        let expected = toolchain_env(|name| std::env::var_os(name), real_home().as_deref());
        for (name, path) in &expected {
            assert!(
                made.env
                    .iter()
                    .any(|(set, value)| set == name && value == path.as_os_str()),
                "{name} is not {path:?} in {:?}",
                made.env
            );
            assert!(
                made.described
                    .contains(&format!("{name}={}", path.display())),
                "{:?}",
                made.described
            );
        }
        // The terminal run keeps the tool's own HOME, so it needs none of them.
        let pagers = make(&Sandbox::pagers(), &scratch).expect("sandbox");
        assert!(!pagers
            .env
            .iter()
            .any(|(name, _)| name == "HOME" || TOOLCHAIN_HOMES.iter().any(|(var, _)| var == name)));
    }

    #[test]
    fn the_sentinel_logs_its_name_and_argv_and_the_sandbox_is_removed() {
        let scratch = Scratch::default();
        let made = make(&Sandbox::isolated(), &scratch).expect("sandbox");
        let dir = made.dir.clone();
        let env = |name: &str| {
            made.env
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
                .expect(name)
        };
        let status = Command::new(env("PAGER"))
            .args(["a b", "line\nbreak"])
            .env(farm::LOG_VAR, env(farm::LOG_VAR))
            .status()
            .expect("sentinel runs");
        assert_eq!(status.code(), Some(1));
        // A tool that cleared the variable: the call is found by its process group.
        let opened = Command::new("xdg-open")
            .arg("https://example.com")
            .env("PATH", env("PATH"))
            .env_remove(farm::LOG_VAR)
            .status()
            .expect("shim runs");
        assert_eq!(opened.code(), Some(1));
        fs::create_dir(dir.join("config/tool")).expect("mkdir");
        fs::write(dir.join("config/tool/x"), "").expect("write");
        let group = nix::unistd::getpgrp().as_raw();
        let report = made.finish(group);
        assert_eq!(
            report.sentinel_calls,
            vec![
                SentinelCall {
                    name: "PAGER".into(),
                    argv: vec!["a b".into(), "line\nbreak".into()]
                },
                SentinelCall {
                    name: "xdg-open".into(),
                    argv: vec!["https://example.com".into()]
                },
            ]
        );
        assert_eq!(report.created, ["config/tool/", "config/tool/x"]);
        // Removed off the reactor's thread; the session waits for it.
        drop(scratch);
        assert!(!dir.exists(), "removed after the run");
    }

    #[test]
    fn package_managers_are_sentinels_on_the_isolated_path_and_runtimes_are_not() {
        let scratch = Scratch::default();
        let made = make(&Sandbox::isolated(), &scratch).expect("sandbox");
        let path = made
            .env
            .iter()
            .find(|(name, _)| name == "PATH")
            .map(|(_, value)| value.clone())
            .expect("PATH is set");
        let bin = std::env::split_paths(&path)
            .next()
            .expect("a first directory");
        for name in INSTALLERS.iter().chain(OPENERS).chain(DEPLOYERS) {
            assert!(bin.join(name).exists(), "{name} is no sentinel");
        }
        for runtime in ["node", "python3", "ruby", "sh"] {
            assert!(!bin.join(runtime).exists(), "{runtime} is shadowed");
        }
        let log = made
            .env
            .iter()
            .find(|(name, _)| name == farm::LOG_VAR)
            .map(|(_, value)| value.clone())
            .expect("the sentinel's log is set");
        let status = Command::new("npm")
            .args(["install", "-g", "tool@latest"])
            .env("PATH", path)
            .env(farm::LOG_VAR, log)
            .output()
            .expect("the sentinel runs");
        assert_eq!(status.status.code(), Some(1));
        assert!(
            status.stdout.is_empty() && status.stderr.is_empty(),
            "{status:?}"
        );
        let report = made.finish(0);
        assert_eq!(
            report.sentinel_calls,
            [SentinelCall {
                name: "npm".into(),
                argv: vec!["install".into(), "-g".into(), "tool@latest".into()]
            }]
        );
        // The terminal run's sandbox has no PATH of its own: nothing is shadowed.
        assert!(Sandbox::pagers().shims.is_empty());
    }
}
