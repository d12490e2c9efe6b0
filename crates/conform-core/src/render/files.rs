//! Report files (`--json-report`, `--junit`, `--sarif`, `--markdown`, `--badge`):
//! checked before anything runs, written whole or not at all.

use std::path::Path;

use crate::file::parent;
pub(crate) use crate::file::write_atomic;

/// Where a report will go, checked before anything runs so that a typo does not
/// cost a whole run: not a directory, in an existing directory, and not an existing
/// read-only file (the rename that writes reports atomically would replace it
/// silently, against what its mode says).
pub(crate) fn check_destination(flag: &str, path: &Path) -> Result<(), String> {
    let dir = parent(path);
    if path.is_dir() {
        return Err(format!(
            "{flag} {} is a directory; name a file",
            path.display()
        ));
    }
    if !dir.is_dir() {
        return Err(format!(
            "{flag} {}: directory {} does not exist",
            path.display(),
            dir.display()
        ));
    }
    if let Ok(metadata) = std::fs::metadata(path) {
        if metadata.permissions().readonly() {
            return Err(format!(
                "{flag} {} is a read-only file; make it writable or name another file",
                path.display()
            ));
        }
    }
    Ok(())
}

/// Every report destination checked, and no two reports sent to one file.
pub(crate) fn check_destinations(reports: &[(&str, &Path)]) -> Result<(), String> {
    for (i, (flag, path)) in reports.iter().enumerate() {
        check_destination(flag, path)?;
        if let Some((other, _)) = reports[..i].iter().find(|(_, p)| p == path) {
            return Err(format!(
                "{other} and {flag} both name {}; give each report its own file",
                path.display()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_destinations_are_named_with_their_flag() {
        let dir = tempfile::tempdir().expect("temp dir");
        let missing = dir.path().join("no/such/dir/out.xml");
        let error = check_destination("--junit", &missing).expect_err("missing dir");
        assert!(
            error.starts_with("--junit ") && error.contains("does not exist"),
            "{error}"
        );
        let error = check_destination("--sarif", dir.path()).expect_err("a directory");
        assert!(error.contains("is a directory"), "{error}");
        let read_only = dir.path().join("ro.svg");
        std::fs::write(&read_only, "old").expect("write");
        std::fs::set_permissions(
            &read_only,
            std::os::unix::fs::PermissionsExt::from_mode(0o444),
        )
        .expect("chmod");
        let error = check_destination("--badge", &read_only).expect_err("read-only");
        assert!(error.contains("read-only"), "{error}");
        let out = dir.path().join("out.md");
        let error = check_destinations(&[("--markdown", &out), ("--junit", &out)])
            .expect_err("one file twice");
        assert!(error.contains("--markdown and --junit"), "{error}");
        assert_eq!(check_destinations(&[("--markdown", &out)]), Ok(()));
    }

    #[test]
    fn a_write_replaces_the_file_whole_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("report.xml");
        std::fs::write(&path, "old").expect("write");
        write_atomic(&path, b"new").expect("written");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["report.xml"]);
    }
}
