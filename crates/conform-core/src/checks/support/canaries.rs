//! Where a run showed the canary secrets it was given: stdout, stderr, or a file it
//! left in its sandbox that others may read. Both secret checks read runs this way;
//! a canary is named `<canary NAME>`, never shown.

use crate::canary;
use crate::checks::Judged;

/// A canary seen, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sighting {
    pub name: String,
    /// `stdout`, `stderr`, or `file config/x (mode 0644)`.
    pub place: String,
}

/// Group and other permission bits: a file with none is the tool's private storage.
const SHARED_BITS: u32 = 0o077;

/// Every canary the run was given that shows in its stdout, stderr or in a file it
/// left in its sandbox readable or writable by group or others, in that order.
pub(crate) fn sightings(run: &Judged<'_>) -> Vec<Sighting> {
    let planted = canary::planted(&run.record.env_changes);
    let mut seen = Vec::new();
    for (place, bytes) in [
        ("stdout", &run.record.stdout.bytes),
        ("stderr", &run.record.stderr.bytes),
    ] {
        for name in canary::seen_in(bytes, &planted) {
            seen.push(Sighting {
                name: name.to_string(),
                place: place.to_string(),
            });
        }
    }
    let files = run.record.sandbox.iter().flat_map(|report| &report.holding);
    for file in files.filter(|file| file.mode & SHARED_BITS != 0) {
        for name in &file.needles {
            seen.push(Sighting {
                name: name.clone(),
                place: format!("file {} (mode {:04o})", file.path, file.mode),
            });
        }
    }
    seen
}

/// `<canary A> on stderr, <canary B> in file cache/x (mode 0644)`.
pub(crate) fn describe(seen: &[Sighting]) -> String {
    seen.iter()
        .map(|sighting| {
            let at = if sighting.place.starts_with("file ") {
                "in"
            } else {
                "on"
            };
            format!("<canary {}> {at} {}", sighting.name, sighting.place)
        })
        .collect::<Vec<_>>()
        .join(", ")
}
