//! Paths of the written profile: its directory, and the tool relative to it.

use std::path::{Component, Path, PathBuf};

pub(crate) use crate::file::parent;

/// `path` made absolute against `cwd`, with `.` and `..` resolved lexically (the
/// profile records the path the user typed, not where its symlinks lead).
pub(super) fn absolute(cwd: &Path, path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in cwd.join(path).components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// `command[0]` for the tool at absolute `tool`, relative to the profile directory
/// `dir` (both absolute). Always contains a `/`: a bare name would resolve via PATH.
pub(super) fn relative_command(tool: &Path, dir: &Path) -> String {
    let tool_parts: Vec<Component> = tool.components().collect();
    let dir_parts: Vec<Component> = dir.components().collect();
    let common = tool_parts
        .iter()
        .zip(&dir_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut rel = PathBuf::new();
    for _ in common..dir_parts.len() {
        rel.push("..");
    }
    for part in &tool_parts[common..] {
        rel.push(part);
    }
    let text = rel.to_string_lossy().into_owned();
    if text.contains('/') {
        text
    } else {
        format!("./{text}")
    }
}

/// The profile's `tool`: the program's file name.
pub(super) fn tool_name(tool: &str) -> String {
    Path::new(tool)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| tool.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_relative_to_the_profile_directory() {
        let tool = Path::new("/w/benchmark/cli/democli");
        assert_eq!(
            relative_command(tool, Path::new("/w/conformance/profiles")),
            "../../benchmark/cli/democli"
        );
        assert_eq!(
            relative_command(tool, Path::new("/w/benchmark/cli")),
            "./democli"
        );
        assert_eq!(
            relative_command(tool, Path::new("/w")),
            "benchmark/cli/democli"
        );
    }

    #[test]
    fn absolute_paths_resolve_dots() {
        assert_eq!(
            absolute(Path::new("/w/a"), Path::new("../b/./c")),
            PathBuf::from("/w/b/c")
        );
        assert_eq!(
            absolute(Path::new("/w"), Path::new("/x/y")),
            PathBuf::from("/x/y")
        );
    }

    #[test]
    fn tool_names() {
        assert_eq!(tool_name("../bin/conform"), "conform");
        assert_eq!(tool_name("git"), "git");
    }
}
