//! JSON pointers (RFC 6901) for violation locations.

use std::fmt::{Display, Write};

/// `parent` extended by one reference token, escaped (`~` -> `~0`, `/` -> `~1`).
pub(super) fn child(parent: &str, token: impl Display) -> String {
    let mut pointer = String::with_capacity(parent.len() + 8);
    pointer.push_str(parent);
    pointer.push('/');
    let start = pointer.len();
    // Writing to a String cannot fail.
    let _ = write!(pointer, "{token}");
    // Most tokens need no escape; only those that do pay for the copy.
    if pointer[start..].contains(['~', '/']) {
        let escaped = pointer[start..].replace('~', "~0").replace('/', "~1");
        pointer.truncate(start);
        pointer.push_str(&escaped);
    }
    pointer
}
