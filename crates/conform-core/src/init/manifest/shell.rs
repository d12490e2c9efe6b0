//! Shell lines of a manifest's examples: their words, and what they pipe into.

/// Shell-like words: whitespace-separated, with '...' and "..." quoting.
pub(super) fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Whether the shell line runs `path` with something on its stdin: after a `|`,
/// with a `<` redirection, or with `-` as an argument.
pub(super) fn feeds_stdin(line: &str, path: &[String]) -> bool {
    pipeline(line).iter().any(|(after_pipe, words)| {
        (0..words.len())
            .find(|&i| words[i..].starts_with(path))
            .is_some_and(|at| {
                *after_pipe
                    || words[at + path.len()..]
                        .iter()
                        .any(|w| w == "-" || w.starts_with('<'))
            })
    })
}

/// The commands of a shell line, each with whether it follows a `|` (not `||`):
/// words split as [`split_words`] does, an unquoted `<` starting a word of its own.
fn pipeline(line: &str) -> Vec<(bool, Vec<String>)> {
    let mut out = Vec::new();
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut after_pipe = false;
    let mut chars = line.chars().peekable();
    fn end_word(word: &mut String, in_word: &mut bool, words: &mut Vec<String>) {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    }
    while let Some(c) = chars.next() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c == '|' || c == ';' || c == '&' => {
                end_word(&mut word, &mut in_word, &mut words);
                let doubled = chars.peek() == Some(&c);
                if doubled {
                    chars.next();
                }
                out.push((after_pipe, std::mem::take(&mut words)));
                after_pipe = c == '|' && !doubled;
            }
            None if c == '<' => {
                end_word(&mut word, &mut in_word, &mut words);
                word.push(c);
                in_word = true;
            }
            None if c.is_whitespace() => end_word(&mut word, &mut in_word, &mut words),
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    end_word(&mut word, &mut in_word, &mut words);
    out.push((after_pipe, words));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(
            split_words(r#"tool get "a b" 'c' --x=1"#),
            vec!["tool", "get", "a b", "c", "--x=1"]
        );
        assert_eq!(split_words("  "), Vec::<String>::new());
        assert_eq!(split_words("t ''"), vec!["t", ""]);
    }

    #[test]
    fn input_on_stdin_is_seen_in_examples() {
        let path = |p: &str| p.split(' ').map(str::to_string).collect::<Vec<_>>();
        assert!(feeds_stdin("cat plan.json | app exec", &path("exec")));
        assert!(feeds_stdin("app exec < plan.json", &path("exec")));
        assert!(feeds_stdin("app exec<plan.json", &path("exec")));
        assert!(feeds_stdin("app items import -", &path("items import")));
        assert!(!feeds_stdin("app exec plan.json | jq .data", &path("exec")));
        assert!(!feeds_stdin("app login || app exec", &path("exec")));
        assert!(!feeds_stdin("echo 'a | app exec'", &path("exec")));
        assert!(!feeds_stdin("app list --filter 'x<y'", &path("list")));
    }
}
