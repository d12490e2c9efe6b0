//! Canary secrets: a value per variable name, random and new in every conform
//! process, planted in a run's environment to see whether the tool prints or stores
//! it. The planner sets them; the secret checks look for them. A canary is never
//! shown: evidence names it `<canary NAME>`.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::io::Read;
use std::sync::{Mutex, OnceLock};

use crate::exec::Needle;

/// What every canary starts with.
pub(crate) const PREFIX: &str = "conform-canary-";
/// Random characters after the prefix.
const RANDOM_LEN: usize = 24;
/// A run of this many consecutive random characters counts as the canary seen: a
/// tool that cuts or masks part of a secret still leaks the rest.
pub(crate) const SEEN_RUN: usize = 12;
const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// The canary of variable `name` in this process: the same on every call, different
/// for every name.
pub(crate) fn value_for(name: &str) -> String {
    static VALUES: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    let mut values = VALUES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    loop {
        if let Some(value) = values.get(name) {
            return value.clone();
        }
        let value = format!("{PREFIX}{}", random_text(RANDOM_LEN));
        // Two names never share a value (nor, practically, any run of one).
        if values.values().all(|known| *known != value) {
            values.insert(name.to_string(), value);
        }
    }
}

/// `len` characters of [`ALPHABET`] from the OS's random source, or, where
/// `/dev/urandom` cannot be read, from the randomly keyed hasher std seeds from it.
fn random_text(len: usize) -> String {
    let mut out = String::with_capacity(len);
    let mut urandom = std::fs::File::open("/dev/urandom").ok();
    let mut fallback = std::collections::hash_map::RandomState::new().build_hasher();
    let mut counter: u64 = 0;
    while out.len() < len {
        let mut byte = [0u8; 1];
        let from_os = urandom
            .as_mut()
            .is_some_and(|file| file.read_exact(&mut byte).is_ok());
        if !from_os {
            counter += 1;
            fallback.write_u64(counter);
            byte[0] = fallback.finish().to_le_bytes()[0];
        }
        // Bytes past the largest multiple of the alphabet's size are dropped, so
        // every character is equally likely.
        let usable = 256 - 256 % ALPHABET.len();
        if usize::from(byte[0]) < usable {
            out.push(char::from(ALPHABET[usize::from(byte[0]) % ALPHABET.len()]));
        }
    }
    out
}

/// Whether `value` is shaped as a canary (what the planner sets).
pub(crate) fn is_canary(value: &str) -> bool {
    value.strip_prefix(PREFIX).is_some_and(|random| {
        random.len() == RANDOM_LEN && random.bytes().all(|b| ALPHABET.contains(&b))
    })
}

/// Every run of [`SEEN_RUN`] random characters of `value`: a text holding any of
/// them has seen the canary (the whole value holds them all).
pub(crate) fn runs_of(value: &str) -> Vec<&[u8]> {
    let random = value.strip_prefix(PREFIX).unwrap_or(value).as_bytes();
    random.windows(SEEN_RUN).collect()
}

/// The needles a sandbox looks for in the files a run leaves: every run of every
/// canary, named by its variable.
pub(crate) fn needles(canaries: &[(String, String)]) -> Vec<Needle> {
    canaries
        .iter()
        .flat_map(|(name, value)| {
            runs_of(value).into_iter().map(|run| Needle {
                name: name.clone(),
                bytes: run.to_vec(),
            })
        })
        .collect()
}

/// The canaries a run was made with, read from its environment changes
/// (`NAME=value`), in order.
pub(crate) fn planted(env_changes: &[String]) -> Vec<(String, String)> {
    env_changes
        .iter()
        .filter_map(|change| change.split_once('='))
        .filter(|(_, value)| is_canary(value))
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect()
}

/// The names of the canaries `bytes` holds, whole or by any run, each once, in the
/// order of `canaries`.
pub(crate) fn seen_in<'c>(bytes: &[u8], canaries: &'c [(String, String)]) -> Vec<&'c str> {
    canaries
        .iter()
        .filter(|(_, value)| {
            runs_of(value)
                .iter()
                .any(|run| bytes.windows(run.len()).any(|window| window == *run))
        })
        .map(|(name, _)| name.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_canary_is_the_prefix_and_24_random_characters_fixed_per_name() {
        let token = value_for("CANARY_TEST_TOKEN");
        assert!(is_canary(&token), "{token}");
        assert_eq!(token, value_for("CANARY_TEST_TOKEN"));
        assert_ne!(token, value_for("CANARY_TEST_KEY"));
        assert!(!is_canary("conform-canary-short"));
    }

    #[test]
    fn a_canary_is_seen_whole_or_by_any_run_of_12_and_never_by_a_shorter_one() {
        let canaries = vec![
            ("A".to_string(), format!("{PREFIX}ABCDEFGHIJKLMNOPQRSTUVWX")),
            ("B".to_string(), format!("{PREFIX}abcdefghijklmnopqrstuvwx")),
        ];
        assert_eq!(
            seen_in(b"token=conform-canary-ABCDEFGHIJKLMNOPQRSTUVWX", &canaries),
            ["A"]
        );
        assert_eq!(seen_in(b"...MNOPQRSTUVWX", &canaries), ["A"]);
        assert_eq!(seen_in(b"xx defghijklmno yy", &canaries), ["B"]);
        assert!(
            seen_in(b"NOPQRSTUVWX", &canaries).is_empty(),
            "11 characters"
        );
        // Canary-shaped, but not one that was planted.
        assert!(seen_in(b"conform-canary-ZZZZZZZZZZZZZZZZZZZZZZZZ", &canaries).is_empty());
        assert_eq!(needles(&canaries).len(), 2 * 13);
    }

    #[test]
    fn the_planted_canaries_are_read_back_from_the_environment_changes() {
        let value = value_for("CANARY_TEST_PLANTED");
        let changes = vec![
            "TERM=xterm-256color".to_string(),
            format!("CANARY_TEST_PLANTED={value}"),
            "HOME=<sandbox>/home".to_string(),
        ];
        assert_eq!(
            planted(&changes),
            [("CANARY_TEST_PLANTED".to_string(), value)]
        );
    }
}
