//! Resolving `command[0]` to an executable file, as the reference kit does: a name
//! containing `/` resolves against the profile's directory, a bare name through PATH.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use nix::unistd::{access, AccessFlags};

use super::Violation;

/// Where a program that cannot run is reported.
pub(crate) const PROGRAM_POINTER: &str = "/command/0";
const AT: &str = PROGRAM_POINTER;

/// Resolve `name` against the profile directory `dir` or PATH. The violation is
/// boxed: it is the rare path, and a Violation is large.
pub(crate) fn resolve_program(name: &str, dir: &Path) -> Result<PathBuf, Box<Violation>> {
    if name.is_empty() {
        return Err(Box::new(Violation::new(
            AT,
            "command[0] is empty",
            "give the program to run",
        )));
    }
    if name.contains('/') {
        let candidate = if Path::new(name).is_absolute() {
            PathBuf::from(name)
        } else {
            dir.join(name)
        };
        let shown = std::fs::canonicalize(&candidate).unwrap_or_else(|_| normalize(&candidate));
        let against = if Path::new(name).is_absolute() {
            String::new()
        } else {
            format!(
                " (\"{name}\" against the profile directory {})",
                dir.display()
            )
        };
        if !candidate.exists() {
            return Err(Box::new(Violation::new(
                AT,
                format!("command \"{name}\" does not exist: resolved to {}{against}", shown.display()),
                "relative commands resolve against the profile's directory, not the working directory; fix the path or build the tool first",
            )));
        }
        if !candidate.is_file() {
            return Err(Box::new(Violation::new(
                AT,
                format!(
                    "command \"{name}\" is not a file: resolved to {}{against}",
                    shown.display()
                ),
                "point command[0] at the executable itself",
            )));
        }
        if !is_executable(&candidate) {
            return Err(Box::new(Violation::new(
                AT,
                format!(
                    "command \"{name}\" is not executable: {}{against}",
                    shown.display()
                ),
                format!("make it executable (chmod +x {})", shown.display()),
            )));
        }
        return Ok(shown);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let cwd = std::env::current_dir().ok();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter_map(|d| search_dir(d, cwd.as_deref()))
        .collect();
    for d in &dirs {
        let candidate = d.join(name);
        if candidate.is_file() && is_executable(&candidate) {
            return Ok(candidate);
        }
    }
    Err(Box::new(Violation::new(
        AT,
        format!(
            "command \"{name}\" was not found on PATH (searched {} director{}: {})",
            dirs.len(),
            if dirs.len() == 1 { "y" } else { "ies" },
            std::env::join_paths(&dirs)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_else(|_| OsStr::new("?").to_string_lossy().into_owned())
        ),
        "install the tool, add its directory to PATH, or give a path containing '/' relative to the profile",
    )))
}

/// A PATH entry as an absolute directory. The shell that set `PATH=bin:$PATH` (or an
/// empty entry, the working directory) finds commands relative to the directory
/// conform was started in, but every run happens in the profile's directory: resolved
/// here, the program found is the program run. `None` when the working directory is
/// gone and the entry is relative.
fn search_dir(entry: PathBuf, cwd: Option<&Path>) -> Option<PathBuf> {
    if entry.is_absolute() {
        return Some(entry);
    }
    // Collecting the components drops the `.` of an empty entry or of `./bin`.
    Some(cwd?.join(entry).components().collect())
}

/// `a/b/../c` -> `a/c` without touching the file system (for paths that do not exist).
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn is_executable(path: &Path) -> bool {
    access(path, AccessFlags::X_OK).is_ok()
}
