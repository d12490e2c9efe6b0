//! The bait: what an exploration run's working directory holds, so that a command
//! that would change a user's project shows it before it is saved. An empty
//! directory gives a formatter nothing to format: its run looks like a read, and
//! a saved read probe then rewrites the user's sources under `conform run`
//! (issue 43). So each run's directory starts as a small project of each common
//! kind, with what a formatter or fixer would change (bad spacing, unsorted
//! imports, trailing whitespace), committed to a git repository when git is on
//! PATH; a [`Snapshot`] (paths, sizes, content hashes, mtimes) is taken before
//! the run and compared after it. A run that created, changed or deleted anything
//! there mutates, and [`Changes::describe`] says what.

use std::collections::BTreeMap;
use std::hash::Hasher;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

/// The bait project's files: a Python module, a JavaScript package, a Rust
/// crate, a Go module and a Markdown file, side by side at the root, where each
/// kind's tools look for them. Every one is valid, and unformatted.
pub(crate) const FILES: &[(&str, &str)] = &[
    (
        "app.py",
        "import sys\nimport os\ndef main( ):\n    x=1   \n    return os.path.join( sys.prefix,str(x) )\n",
    ),
    (
        "package.json",
        "{\"name\":\"bait\",  \"version\":\"1.0.0\",\"main\":\"index.js\"}\n",
    ),
    (
        "index.js",
        "const path=require('path')\nconst fs = require( 'fs' );;\nfunction main(){return path.join(fs.constants?'a':'b','c')}   \nmodule.exports=main\n",
    ),
    (
        "Cargo.toml",
        "[package]\nname = \"bait\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    ),
    (
        "src/lib.rs",
        "use std::fmt;use std::collections::HashMap;\npub fn add(a:i32,b:i32)->i32{a+b}   \npub fn map()->HashMap<String,String>{HashMap::new()}\npub fn show(x:&dyn fmt::Debug)->String{format!(\"{:?}\",x)}\n",
    ),
    ("go.mod", "module example.com/bait\n\ngo 1.21\n"),
    (
        "main.go",
        "package main\nimport (\"os\"\n\"fmt\")\nfunc main(){fmt.Println(  len(os.Args))}   \n",
    ),
    (
        "README.md",
        "#Bait\nA project   \n* one\n+ two\n\n\n\nSome   text with trailing space.   \n",
    ),
];

/// Where the bait is laid once per exploration; each run's directory is a copy.
const TEMPLATE: &str = "bait";

/// The bait laid at `dir` (made if absent): [`FILES`], and a git repository with
/// one commit of them when git is on PATH. Whether there is a repository.
pub(crate) fn lay(dir: &Path) -> io::Result<bool> {
    for (path, text) in FILES {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
    }
    Ok(commit(dir))
}

/// One commit of everything in `dir`, by a fixed author at a fixed time, no
/// user or system configuration read; false when git is absent or failed.
fn commit(dir: &Path) -> bool {
    let git = |args: &[&str]| {
        Command::new("git")
            .args([
                "-c",
                "init.defaultBranch=main",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "conform")
            .env("GIT_AUTHOR_EMAIL", "conform@example.invalid")
            .env("GIT_COMMITTER_NAME", "conform")
            .env("GIT_COMMITTER_EMAIL", "conform@example.invalid")
            .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
            .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    };
    git(&["init", "-q"]) && git(&["add", "-A"]) && git(&["commit", "-q", "-m", "bait"])
}

/// The bait copied into `dir` from its template under `scratch`, laid there first
/// if it is not yet: the snapshot of `dir` before the run, or `None` when the
/// bait could not be laid (the run is then judged by what it left, as before).
pub(crate) fn set(scratch: &Path, dir: &Path) -> Option<Snapshot> {
    let template = scratch.join(TEMPLATE);
    if !template.join(FILES[0].0).is_file() {
        lay(&template).ok()?;
    }
    copy_tree(&template, dir).ok()?;
    Some(Snapshot::take(dir))
}

/// Every file and directory of `from` copied into `to` (symlinks as symlinks).
fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// What a directory held: each entry by its path relative to the directory
/// (directories with a trailing slash).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Snapshot {
    entries: BTreeMap<String, Entry>,
}

/// One entry of a [`Snapshot`]: a directory's only mark is that it is there.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    size: u64,
    hash: u64,
    modified: Option<SystemTime>,
}

impl Snapshot {
    /// `dir` as it is now, without following symlinks.
    pub(crate) fn take(dir: &Path) -> Snapshot {
        let mut snapshot = Snapshot::default();
        snapshot.walk(dir, dir);
        snapshot
    }

    fn walk(&mut self, root: &Path, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let relative = relative(root, &path);
            if meta.is_dir() {
                self.entries.insert(
                    format!("{relative}/"),
                    Entry {
                        size: 0,
                        hash: 0,
                        modified: None,
                    },
                );
                self.walk(root, &path);
                continue;
            }
            let bytes = if meta.is_symlink() {
                std::fs::read_link(&path)
                    .map(|target| target.as_os_str().as_encoded_bytes().to_vec())
                    .unwrap_or_default()
            } else {
                std::fs::read(&path).unwrap_or_default()
            };
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            hasher.write(&bytes);
            self.entries.insert(
                relative,
                Entry {
                    size: meta.len(),
                    hash: hasher.finish(),
                    modified: meta.modified().ok(),
                },
            );
        }
    }

    /// What differs in `after`, a later snapshot of the same directory. Git's
    /// index is not compared: a read such as `git status` refreshes the file
    /// times it caches there.
    pub(crate) fn changes(&self, after: &Snapshot) -> Changes {
        let counted = |path: &&String| !IGNORED.contains(&path.as_str());
        let mut changes = Changes::default();
        for (path, entry) in self.entries.iter().filter(|(p, _)| counted(p)) {
            match after.entries.get(path) {
                None => changes.deleted.push(path.clone()),
                Some(now) if now != entry => changes.changed.push(path.clone()),
                Some(_) => {}
            }
        }
        changes.created = after
            .entries
            .keys()
            .filter(counted)
            .filter(|path| !self.entries.contains_key(*path))
            .cloned()
            .collect();
        changes
    }
}

/// Whether `path`, a path a run created in its fresh directories (`home/.x`,
/// `config/t/`), is the tool's own state rather than a change a saved probe
/// would make to the user's files: its cache and state, wherever the tool put
/// them. The sandbox's `cache/` and `state/` (XDG_CACHE_HOME, XDG_STATE_HOME) are
/// never read as writes; these are the same places under HOME, for tools that
/// ignore the variables. What most commands write is the tool's state too (see
/// exploration's `tool_state`); anything else written in HOME, config or data
/// keeps the command out of a saved profile.
pub(crate) fn own_state(path: &str) -> bool {
    const UNDER_HOME: &[&str] = &["home/.cache/", "home/.local/state/"];
    UNDER_HOME.iter().any(|dir| path.starts_with(dir))
        || ["home/.local/", "home/.local/state/"].contains(&path)
}

/// Paths of the bait a run may change without mutating anything of the user's.
const IGNORED: &[&str] = &[".git/index"];

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .map(PathBuf::from)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// What a run did to the bait, each list sorted, by path relative to the bait
/// (directories with a trailing slash).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Changes {
    pub created: Vec<String>,
    pub changed: Vec<String>,
    pub deleted: Vec<String>,
}

impl Changes {
    pub(crate) fn is_empty(&self) -> bool {
        self.created.is_empty() && self.changed.is_empty() && self.deleted.is_empty()
    }

    /// "changed 2 files in the bait project: README.md, app.py"; with more than one
    /// kind of change, each kind with its files.
    pub(crate) fn describe(&self) -> String {
        const SHOWN: usize = 10;
        // A new or removed directory's own entries say nothing more.
        let outermost = |list: &[String]| -> Vec<String> {
            let dirs: Vec<&String> = list.iter().filter(|p| p.ends_with('/')).collect();
            list.iter()
                .filter(|path| {
                    !dirs
                        .iter()
                        .any(|dir| path.len() > dir.len() && path.starts_with(dir.as_str()))
                })
                .cloned()
                .collect()
        };
        let (created, deleted) = (outermost(&self.created), outermost(&self.deleted));
        let parts: Vec<(&str, &Vec<String>)> = [
            ("changed", &self.changed),
            ("created", &created),
            ("deleted", &deleted),
        ]
        .into_iter()
        .filter(|(_, paths)| !paths.is_empty())
        .collect();
        let listed = |paths: &[String]| {
            let mut shown = paths[..paths.len().min(SHOWN)].join(", ");
            if paths.len() > SHOWN {
                shown.push_str(&format!(" and {} more", paths.len() - SHOWN));
            }
            shown
        };
        let count = |paths: &[String]| {
            format!(
                "{} {}",
                paths.len(),
                if paths.len() == 1 { "file" } else { "files" }
            )
        };
        match parts.as_slice() {
            [] => "changed nothing in the bait project".to_string(),
            [(verb, paths)] => format!(
                "{verb} {} in the bait project: {}",
                count(paths),
                listed(paths)
            ),
            many => {
                let each: Vec<String> = many
                    .iter()
                    .map(|(verb, paths)| format!("{verb} {} ({})", count(paths), listed(paths)))
                    .collect();
                format!("{} in the bait project", each.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bait_is_a_project_of_each_kind_and_a_git_repository_with_one_commit() {
        let scratch = tempfile::tempdir().expect("a scratch directory");
        let run = scratch.path().join("trial-0");
        let before = set(scratch.path(), &run).expect("the bait laid");
        for (path, _) in FILES {
            assert!(run.join(path).is_file(), "{path}");
        }
        let git = Command::new("git")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if git {
            let count = Command::new("git")
                .args(["rev-list", "--count", "HEAD"])
                .current_dir(&run)
                .output()
                .expect("git runs");
            assert_eq!(String::from_utf8_lossy(&count.stdout).trim(), "1");
        }
        // Nothing touched: nothing changed, even after git reads the repository.
        if git {
            let _ = Command::new("git")
                .args(["status", "--porcelain"])
                .current_dir(&run)
                .output();
        }
        assert!(before.changes(&Snapshot::take(&run)).is_empty());
    }

    #[test]
    fn a_snapshot_compared_says_what_was_created_changed_and_deleted() {
        let scratch = tempfile::tempdir().expect("a scratch directory");
        let run = scratch.path().join("trial-0");
        let before = set(scratch.path(), &run).expect("the bait laid");
        // What a formatter does, and a fixer that leaves backups and a cache.
        std::fs::write(run.join("app.py"), "import os\nimport sys\n").expect("write");
        std::fs::write(run.join("README.md"), "# Bait\n").expect("write");
        let changes = before.changes(&Snapshot::take(&run));
        assert_eq!(changes.changed, ["README.md", "app.py"]);
        assert_eq!(
            changes.describe(),
            "changed 2 files in the bait project: README.md, app.py"
        );
        std::fs::remove_file(run.join("go.mod")).expect("remove");
        std::fs::create_dir_all(run.join(".cache/x")).expect("mkdir");
        std::fs::write(run.join(".cache/x/y"), "y").expect("write");
        let changes = before.changes(&Snapshot::take(&run));
        assert_eq!(changes.created, [".cache/", ".cache/x/", ".cache/x/y"]);
        assert_eq!(changes.deleted, ["go.mod"]);
        assert_eq!(
            changes.describe(),
            "changed 2 files (README.md, app.py), created 1 file (.cache/), deleted 1 file (go.mod) in the bait project"
        );
    }

    #[test]
    fn a_file_written_again_with_the_same_bytes_is_a_change_by_its_time() {
        let scratch = tempfile::tempdir().expect("a scratch directory");
        let run = scratch.path().join("trial-0");
        let before = set(scratch.path(), &run).expect("the bait laid");
        let file = std::fs::File::options()
            .write(true)
            .open(run.join("main.go"))
            .expect("open");
        let later = SystemTime::now() + std::time::Duration::from_secs(5);
        file.set_modified(later).expect("set the time");
        let changes = before.changes(&Snapshot::take(&run));
        assert_eq!(changes.changed, ["main.go"]);
    }
}
