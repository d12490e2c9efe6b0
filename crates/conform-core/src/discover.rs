//! Which profile files a command line names: files as given, directories expanded to
//! the `*.json` files directly inside them, in name order (deterministic reports).

use std::path::{Path, PathBuf};

/// Expand the given paths. A directory that cannot be read, or holds no profile, is
/// returned as an error message naming it.
pub(crate) fn profile_paths(args: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for arg in args {
        if arg.is_dir() {
            let found = json_files(arg)?;
            if found.is_empty() {
                return Err(format!("{} contains no *.json profile", arg.display()));
            }
            out.extend(found);
        } else {
            out.push(arg.clone());
        }
    }
    Ok(out)
}

fn json_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read directory {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    Ok(files)
}
