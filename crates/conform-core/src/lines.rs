//! What a line of output is, in one place: the executor counts lines for a
//! trigger, the stream checks split stdout into lines and init measures a stream,
//! and all three must agree. A line is what a line reader returns (the reference
//! kit's `readline`): the bytes up to a newline, or the bytes left before EOF, so
//! N-1 complete lines and an unterminated Nth are N lines everywhere.

/// Splits `bytes` into lines, newlines dropped.
pub(crate) fn split(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes
        .split_inclusive(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\n").unwrap_or(line))
}

/// The number of lines in `bytes`, as [`split`] counts them.
pub(crate) fn count(bytes: &[u8]) -> u64 {
    let mut counter = Counter::default();
    counter.feed(bytes);
    counter.total_at_eof()
}

/// Counts lines as output arrives in chunks.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counter {
    complete: u64,
    /// Bytes after the last newline: a line still being written.
    partial: bool,
}

impl Counter {
    pub(crate) fn feed(&mut self, chunk: &[u8]) {
        self.complete += chunk.iter().filter(|&&byte| byte == b'\n').count() as u64;
        if let Some(&last) = chunk.last() {
            self.partial = last != b'\n';
        }
    }

    /// Lines known to be complete while the writer may still add to the last one.
    pub(crate) fn complete(&self) -> u64 {
        self.complete
    }

    /// Lines once the output has ended: an unterminated last line counts.
    pub(crate) fn total_at_eof(&self) -> u64 {
        self.complete + u64::from(self.partial)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_final_line_without_a_newline_still_counts() {
        assert_eq!(split(b"a\nb").collect::<Vec<_>>(), [b"a", b"b"]);
        assert_eq!(split(b"a\nb\n").collect::<Vec<_>>(), [b"a", b"b"]);
        assert_eq!(split(b"a\n\nb").collect::<Vec<_>>(), [&b"a"[..], b"", b"b"]);
        assert_eq!(split(b"").count(), 0);
        assert_eq!(split(b"\n").collect::<Vec<_>>(), [b""]);
    }

    #[test]
    fn the_counter_agrees_with_split_however_output_is_chunked() {
        for text in [
            &b"a\nb"[..],
            b"a\nb\n",
            b"a\n\nb",
            b"",
            b"\n",
            b"abc",
            b"x\ny\nzz",
        ] {
            let expected = split(text).count() as u64;
            assert_eq!(count(text), expected, "{text:?}");
            for cut in 0..=text.len() {
                let mut counter = Counter::default();
                counter.feed(&text[..cut]);
                counter.feed(&text[cut..]);
                assert_eq!(counter.total_at_eof(), expected, "{text:?} cut at {cut}");
            }
        }
        let mut counter = Counter::default();
        counter.feed(b"one\ntw");
        assert_eq!(counter.complete(), 1, "the second line may still grow");
        assert_eq!(counter.total_at_eof(), 2);
    }
}
