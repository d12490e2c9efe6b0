//! Line and column of every value in a JSON text, by JSON pointer, so that a
//! violation can point into the profile file. serde_json keeps no spans, so this is a
//! small scanner run over text that serde_json has already accepted.

use std::collections::HashMap;
use std::ops::Range;

use super::pointer::child;

/// What one pass over a JSON text finds.
#[derive(Debug, Default)]
pub(super) struct Spans {
    /// 1-based (line, column) of each value's first character, keyed by JSON pointer.
    /// Object members are located at their key, which is where an editor should jump.
    /// A duplicated member is located at its last occurrence, the one serde_json keeps.
    pub at: HashMap<String, (usize, usize)>,
    /// Every member whose key its object already has, in document order.
    pub duplicates: Vec<DuplicateKey>,
}

/// A key given twice in one object: serde_json keeps the last value silently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct DuplicateKey {
    /// JSON pointer of the member.
    pub pointer: String,
    pub key: String,
    /// (line, column) of the earlier key.
    pub first: (usize, usize),
    /// (line, column) of this key.
    pub again: (usize, usize),
}

/// Where each value of a loaded profile was written, kept so that reports can turn a
/// run's JSON pointer into a line and column of the profile file.
#[derive(Debug, Clone, Default)]
pub(crate) struct Locations(HashMap<String, (usize, usize)>);

impl Locations {
    /// The locations of every value in `text`, which serde_json has already accepted.
    pub(crate) fn scan(text: &str) -> Locations {
        Locations(scan(text).at)
    }

    /// These locations less those of the probes from index `first` on: a run whose
    /// later probes are not the file's locates them at `/probes`.
    pub(crate) fn without_probes_from(mut self, first: usize) -> Locations {
        self.0.retain(|pointer, _| {
            let Some(rest) = pointer.strip_prefix("/probes/") else {
                return true;
            };
            let index = rest.split('/').next().and_then(|n| n.parse::<usize>().ok());
            index.is_none_or(|index| index < first)
        });
        self
    }

    /// 1-based (line, column) of the value at `pointer`; columns count Unicode code
    /// points. A pointer the text lacks is located at its nearest located parent.
    pub(crate) fn locate(&self, pointer: &str) -> Option<(usize, usize)> {
        let mut pointer = pointer;
        loop {
            if let Some(&at) = self.0.get(pointer) {
                return Some(at);
            }
            pointer = &pointer[..pointer.rfind('/')?];
        }
    }
}

impl From<Spans> for Locations {
    fn from(spans: Spans) -> Locations {
        Locations(spans.at)
    }
}

/// Scan `text`, which serde_json has already accepted.
pub(super) fn scan(text: &str) -> Spans {
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        pos: 0,
        line: 1,
        column: 1,
        found: Vec::new(),
        duplicates: Vec::new(),
    };
    scanner.skip_ws();
    let here = scanner.here();
    scanner.found.push(Some((String::new(), here)));
    scanner.value("");
    let mut at = HashMap::with_capacity(scanner.found.len());
    at.extend(scanner.found.into_iter().flatten());
    Spans {
        at,
        duplicates: scanner.duplicates,
    }
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: usize,
    /// 1-based column in characters, kept as the scanner moves (not recounted).
    column: usize,
    /// Every located value in document order, a member's value right after it; a
    /// discarded duplicate's entries are emptied in place. Kept as a list rather
    /// than a map so that discarding one member costs the size of its value, not
    /// of the whole document.
    found: Vec<Option<(String, (usize, usize))>>,
    duplicates: Vec<DuplicateKey>,
}

impl Scanner<'_> {
    fn here(&self) -> (usize, usize) {
        (self.line, self.column)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn bump(&mut self) {
        match self.peek() {
            Some(b'\n') => {
                self.line += 1;
                self.column = 1;
            }
            // Columns count characters: UTF-8 continuation bytes add none.
            Some(b) if b & 0xC0 != 0x80 => self.column += 1,
            _ => {}
        }
        self.pos += 1;
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.bump();
        }
    }

    /// Scan one value starting at the current position (after whitespace).
    fn value(&mut self, at: &str) {
        match self.peek() {
            Some(b'{') => {
                self.bump();
                // Keys of this object: where each was first seen, and the entries of
                // `found` its last occurrence made.
                let mut keys: HashMap<String, ((usize, usize), Range<usize>)> = HashMap::new();
                loop {
                    self.skip_ws();
                    match self.peek() {
                        Some(b'"') => {
                            let key_at = self.here();
                            let key = self.string();
                            let member = child(at, &key);
                            self.skip_ws();
                            if self.peek() == Some(b':') {
                                self.bump();
                            }
                            self.skip_ws();
                            if let Some((first, earlier)) = keys.get(&key) {
                                // serde_json keeps this value: the earlier one's
                                // locations are gone with it.
                                for entry in &mut self.found[earlier.clone()] {
                                    *entry = None;
                                }
                                self.duplicates.push(DuplicateKey {
                                    pointer: member.clone(),
                                    key: key.clone(),
                                    first: *first,
                                    again: key_at,
                                });
                            }
                            let start = self.found.len();
                            self.found.push(Some((member.clone(), key_at)));
                            self.value(&member);
                            let made = start..self.found.len();
                            keys.entry(key)
                                .and_modify(|(_, last)| *last = made.clone())
                                .or_insert((key_at, made));
                            self.skip_ws();
                            if self.peek() == Some(b',') {
                                self.bump();
                            }
                        }
                        Some(b'}') => {
                            self.bump();
                            return;
                        }
                        // Unreachable on text serde_json accepted; stop rather than loop.
                        _ => return,
                    }
                }
            }
            Some(b'[') => {
                self.bump();
                let mut index = 0usize;
                loop {
                    self.skip_ws();
                    match self.peek() {
                        Some(b']') => {
                            self.bump();
                            return;
                        }
                        Some(_) => {
                            let element = child(at, index);
                            let here = self.here();
                            self.found.push(Some((element.clone(), here)));
                            let before = self.pos;
                            self.value(&element);
                            if self.pos == before {
                                return;
                            }
                            self.skip_ws();
                            if self.peek() == Some(b',') {
                                self.bump();
                            }
                            index += 1;
                        }
                        None => return,
                    }
                }
            }
            Some(b'"') => {
                self.string();
            }
            Some(_) => {
                while matches!(self.peek(), Some(c) if !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'))
                {
                    self.bump();
                }
            }
            None => {}
        }
    }

    /// Scan a string literal and return its decoded text.
    fn string(&mut self) -> String {
        let start = self.pos;
        self.bump();
        while let Some(c) = self.peek() {
            match c {
                b'\\' => {
                    self.bump();
                    self.bump();
                }
                b'"' => {
                    self.bump();
                    break;
                }
                _ => self.bump(),
            }
        }
        let literal = &self.bytes[start..self.pos];
        // Most keys and values have no escape: their text between the quotes is
        // the string itself, with no decoding to pay for.
        if !literal.contains(&b'\\') && literal.len() >= 2 {
            if let Ok(plain) = std::str::from_utf8(&literal[1..literal.len() - 1]) {
                return plain.to_string();
            }
        }
        serde_json::from_str(&String::from_utf8_lossy(literal)).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_fall_back_to_the_nearest_parent() {
        let locations = Locations::scan("{\n  \"probes\": [\n    {\"name\": \"x\"}\n  ]\n}");
        assert_eq!(locations.locate("/probes/0"), Some((3, 5)));
        assert_eq!(locations.locate("/probes/0/argv"), Some((3, 5)));
        assert_eq!(locations.locate("/manifest"), Some((1, 1)));
    }

    #[test]
    fn probes_past_the_shared_ones_are_located_at_the_probes() {
        let text = "{\n  \"probes\": [\n    {\"name\": \"x\"},\n    {\"name\": \"y\"}\n  ]\n}";
        let all = Locations::scan(text);
        assert_eq!(all.locate("/probes/1/name"), Some((4, 6)));
        let shared = all.without_probes_from(1);
        assert_eq!(shared.locate("/probes/0/name"), Some((3, 6)));
        assert_eq!(shared.locate("/probes/1/name"), shared.locate("/probes"));
        assert_ne!(shared.locate("/probes"), None);
    }

    #[test]
    fn locates_members_and_elements() {
        let text = "{\n  \"a\": [1, {\"b/c\": true}],\n  \"é\": \"x\"\n}";
        let spans = scan(text).at;
        assert_eq!(spans.get("/a"), Some(&(2, 3)));
        assert_eq!(spans.get("/a/1"), Some(&(2, 12)));
        assert_eq!(spans.get("/a/1/b~1c"), Some(&(2, 13)));
        assert_eq!(spans.get("/é"), Some(&(3, 3)));
    }

    #[test]
    fn finds_duplicate_keys_at_any_depth_and_keeps_the_last() {
        let text = "{\"a\": {\"k\": [1, 2], \"k\": 3},\n \"b\": 1, \"a\\u0062\": 2, \"b\": 4}";
        let spans = scan(text);
        let found: Vec<_> = spans
            .duplicates
            .iter()
            .map(|d| (d.pointer.as_str(), d.first, d.again))
            .collect();
        // "a\u0062" is the key "ab", not a duplicate of "a" or "b".
        assert_eq!(found, [("/a/k", (1, 8), (1, 21)), ("/b", (2, 2), (2, 24))]);
        assert_eq!(spans.at.get("/a/k"), Some(&(1, 21)));
        // The discarded array's elements are not located.
        assert_eq!(spans.at.get("/a/k/0"), None);
    }

    #[test]
    fn a_key_given_three_times_keeps_only_the_last_values_locations() {
        let text = "{\"a\": [1], \"a\": {\"x\": 1}, \"a\": [2, 3]}";
        let spans = scan(text);
        let again: Vec<_> = spans
            .duplicates
            .iter()
            .map(|d| (d.first, d.again))
            .collect();
        // Both later keys name the first as the one the object already had.
        assert_eq!(again, [((1, 2), (1, 12)), ((1, 2), (1, 27))]);
        assert_eq!(spans.at.get("/a"), Some(&(1, 27)));
        assert_eq!(spans.at.get("/a/1"), Some(&(1, 36)));
        assert_eq!(spans.at.get("/a/x"), None);
        // The middle value's members are gone, the last value's kept.
        assert_eq!(spans.at.get("/a/0"), Some(&(1, 33)));
    }

    #[test]
    fn tokens_with_a_slash_or_tilde_are_escaped() {
        assert_eq!(child("/probes", 3), "/probes/3");
        assert_eq!(child("", "a/b~c"), "/a~1b~0c");
    }
}
