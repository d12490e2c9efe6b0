//! The encodings democli needs, from well-kept crates: base64 for cursors, SHA-256 for
//! the manifest etag, RFC 3339 for timestamps.

use std::time::SystemTime;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use sha2::{Digest, Sha256};

/// Standard base64 with padding.
pub fn base64_encode(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Strict standard base64: padded, no whitespace. `None` for anything else.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    STANDARD.decode(text).ok().filter(|bytes| !bytes.is_empty())
}

/// SHA-256 of `data` as lowercase hex.
pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The current time as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_and_matches_the_profile_cursor() {
        assert_eq!(base64_encode(b"page2"), "cGFnZTI=");
        assert_eq!(base64_decode("cGFnZTI=").as_deref(), Some(&b"page2"[..]));
    }

    #[test]
    fn base64_rejects_malformed_text() {
        for text in ["", "abc", "a===", "Zm8=Zm8=", "Zm9v!mFy", "Zm 8="] {
            assert_eq!(base64_decode(text), None, "{text:?}");
        }
    }

    #[test]
    fn sha256_is_lowercase_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn now_is_rfc3339_utc() {
        let now = now_rfc3339();
        assert_eq!(now.len(), "1970-01-01T00:00:00Z".len(), "{now}");
        assert!(now.ends_with('Z'));
    }
}
