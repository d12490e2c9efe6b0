//! Line and column of every value in a JSON text, by JSON pointer, so that a
//! violation can point into the profile file. serde_json keeps no spans, so this is a
//! small scanner run over text that serde_json has already accepted.

use std::collections::HashMap;

use super::pointer::child;

/// 1-based (line, column) of each value's first character, keyed by JSON pointer.
/// Object members are located at their key, which is where an editor should jump.
pub fn locate(text: &str) -> HashMap<String, (usize, usize)> {
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        pos: 0,
        line: 1,
        column: 1,
        spans: HashMap::new(),
    };
    scanner.skip_ws();
    let here = scanner.here();
    scanner.spans.insert(String::new(), here);
    scanner.value("");
    scanner.spans
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: usize,
    /// 1-based column in characters, kept as the scanner moves (not recounted).
    column: usize,
    spans: HashMap<String, (usize, usize)>,
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
                            self.spans.insert(member.clone(), key_at);
                            self.value(&member);
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
                            self.spans.insert(element.clone(), here);
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
        let literal = String::from_utf8_lossy(&self.bytes[start..self.pos]);
        serde_json::from_str(&literal).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_members_and_elements() {
        let text = "{\n  \"a\": [1, {\"b/c\": true}],\n  \"é\": \"x\"\n}";
        let spans = locate(text);
        assert_eq!(spans.get("/a"), Some(&(2, 3)));
        assert_eq!(spans.get("/a/1"), Some(&(2, 12)));
        assert_eq!(spans.get("/a/1/b~1c"), Some(&(2, 13)));
        assert_eq!(spans.get("/é"), Some(&(3, 3)));
    }
}
