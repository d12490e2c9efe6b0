//! Files conform writes for the user (report files, a generated profile): whole or
//! not at all.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Write `contents` to `path` through a temporary file beside it and a rename, so a
/// reader (a CI step, an editor) or a crash never sees half a file.
pub(crate) fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), String> {
    let dir = parent(path);
    // Readable like any file the user writes (a temporary file is 0600 by default).
    let mut file = tempfile::Builder::new()
        .prefix(".conform-")
        .permissions(std::fs::Permissions::from_mode(0o644))
        .tempfile_in(dir)
        .map_err(|e| format!("cannot create a file in {}: {e}", dir.display()))?;
    file.write_all(contents)
        .and_then(|()| file.as_file().sync_all())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    file.persist(path)
        .map_err(|e| format!("cannot write {}: {}", path.display(), e.error))?;
    Ok(())
}

/// The directory a file is in (`.` for a bare file name).
pub(crate) fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}
