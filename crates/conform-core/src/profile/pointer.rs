//! JSON pointers (RFC 6901) for violation locations.

use std::fmt::Display;

/// `parent` extended by one reference token, escaped (`~` -> `~0`, `/` -> `~1`).
pub(super) fn child(parent: &str, token: impl Display) -> String {
    let token = token.to_string().replace('~', "~0").replace('/', "~1");
    format!("{parent}/{token}")
}
