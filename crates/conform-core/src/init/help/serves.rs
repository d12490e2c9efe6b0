//! What a command waits on by design, as its help says.
//!
//! Servers (a language server on stdin, a proxy, a local web UI, a file watcher)
//! wait for clients or changes until stopped, which is what they are for, so
//! exploration does not probe them as reads (a probe's run must end by itself);
//! the census says why each was left out. A command whose help says it reads stdin
//! (`--file -`, a `-` operand, "from stdin") may wait on an open pipe; it must
//! still end when stdin is closed.

/// Command names (the last word, or an oclif id's last segment) that serve.
const SERVER_NAMES: &[&str] = &[
    "serve",
    "server",
    "proxy",
    "daemon",
    "lsp",
    "language-server",
    "tunnel",
    "port-forward",
    "listen",
    "watch",
];

/// A summary's first word that says the command serves or watches.
const SERVER_VERBS: &[&str] = &[
    "serve", "serves", "serving", "proxy", "proxies", "watch", "watches", "listen", "listens",
    "tunnel",
];

/// Phrases of a summary that say the command serves until stopped.
const SERVER_PHRASES: &[&str] = &[
    "language server",
    "development server",
    "dev server",
    "local server",
    "web server",
    "http server",
    "proxy server",
    "listens on",
    "listen on",
    "web ui",
    "web interface",
    "until interrupted",
    "until stopped",
];

/// Verbs that, followed closely by a server noun, say the command starts one.
const START_VERBS: &[&str] = &["start", "starts", "run", "runs", "launch", "launches"];
const SERVER_NOUNS: &[&str] = &["server", "daemon", "proxy", "ui", "dashboard"];

/// Why the command serves by design, in words quoting what says so, if it does.
pub(super) fn serves(name: &str, summary: &str) -> Option<String> {
    let last = name.rsplit(':').next().unwrap_or(name).to_ascii_lowercase();
    if SERVER_NAMES.contains(&last.as_str()) {
        return Some(format!("its name is `{last}`"));
    }
    let lower = summary.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|word| !word.is_empty())
        .collect();
    let says = || Some(format!("its help says \"{}\"", summary.trim()));
    if words
        .first()
        .is_some_and(|first| SERVER_VERBS.contains(first))
    {
        return says();
    }
    if SERVER_PHRASES.iter().any(|phrase| lower.contains(phrase)) {
        return says();
    }
    let starts = words.iter().enumerate().any(|(at, word)| {
        START_VERBS.contains(word)
            && words[at + 1..]
                .iter()
                .take(5)
                .any(|next| SERVER_NOUNS.contains(next))
    });
    if starts {
        return says();
    }
    None
}

/// Phrases of a command's help that say it reads stdin when asked to, or by
/// default.
const STDIN_PHRASES: &[&str] = &[
    "from stdin",
    "from standard input",
    "from the standard input",
    "reads stdin",
    "read stdin",
    "- for stdin",
    "'-' for stdin",
    "`-` for stdin",
    "\"-\" for stdin",
    "- to read from",
    "default: -",
    "default: \"-\"",
    "defaults to stdin",
    "defaults to standard input",
];

/// The line of `help` that says the command reads stdin, trimmed, if one does.
pub(super) fn reads_stdin(help: &str) -> Option<String> {
    help.lines()
        .find(|line| {
            let lower = line.to_ascii_lowercase();
            STDIN_PHRASES.iter().any(|phrase| lower.contains(phrase))
        })
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::{reads_stdin, serves};

    #[test]
    fn a_help_that_says_it_reads_stdin_is_quoted() {
        let help = "Usage: t lint [FILE]\n\nOptions:\n  --file <PATH>  Input file [default: -]\n";
        assert_eq!(
            reads_stdin(help).as_deref(),
            Some("--file <PATH> Input file [default: -]")
        );
        assert!(
            reads_stdin("Usage: t check [PATHS]...\n  -  Read the source from stdin\n").is_some()
        );
        assert_eq!(
            reads_stdin("Usage: t list\n  --all  List every item\n"),
            None
        );
    }

    #[test]
    fn servers_are_named_by_their_name_or_their_summary() {
        for (name, summary) in [
            ("server", "Run the language server"),
            ("proxy", "Run a proxy to the Kubernetes API server"),
            ("apps:serve", ""),
            ("ui", "Start a local web UI to explore deployments"),
            ("dev", "Starts the local development server"),
            ("lsp", ""),
            ("preview", "Serve the built site locally"),
        ] {
            assert!(serves(name, summary).is_some(), "{name}: {summary}");
        }
    }

    #[test]
    fn commands_about_servers_are_not_servers() {
        for (name, summary) in [
            ("servers", "List MCP servers"),
            ("list", "List the servers of the project"),
            ("status", "Show the server's status"),
            ("info", "Print information about the proxy configuration"),
            ("logs", "Show the logs of a running server"),
            ("run", "Run a script defined in the project"),
        ] {
            assert_eq!(serves(name, summary), None, "{name}: {summary}");
        }
    }
}
