//! Where an agent meets a danger first: the commands whose names or help say
//! they authenticate, set up, deploy or publish, serve for development, open
//! something (a browser, an editor, the docs, a dashboard), update the tool, or
//! start an interactive session. A prompt that waits forever, a browser, a wait on
//! the network or a change of the world lives there far more than in a `list`, so
//! every phase of `conform check` (help calls, exploration runs, survey, depth)
//! takes them first, whatever the budget leaves out. One rule from words any CLI
//! uses, never a tool's name.

/// Words of a command's path that say it is such a command (each word of the
/// path, and each part of one split at `-`, `_` and `:`).
const DANGER_WORDS: &[&str] = &[
    // Authentication: a browser, a device code, a pasted token.
    "login",
    "logout",
    "signin",
    "signup",
    "auth",
    "authenticate",
    "authorize",
    "register",
    "link",
    "connect",
    // Setting up: wizards that ask.
    "init",
    "setup",
    "configure",
    "onboard",
    "bootstrap",
    "new",
    // Deploying and publishing: the world changes.
    "deploy",
    "publish",
    "release",
    "push",
    "upload",
    "ship",
    "promote",
    "rollback",
    // Serving for development: a server that never ends.
    "dev",
    "serve",
    "start",
    "watch",
    // Opening something.
    "open",
    "browse",
    "docs",
    "dashboard",
    "console",
    "web",
    "ui",
    "studio",
    "edit",
    // Updating the tool itself (see also [`TOOL_UPDATE`]).
    "selfupdate",
    // Interactive sessions.
    "shell",
    "repl",
    "chat",
    "interactive",
    "tui",
    "ssh",
    "attach",
];

/// A top-level command of one of these names updates the tool itself; below the
/// top (`apps update`), the word updates a resource.
const TOOL_UPDATE: &[&str] = &["update", "upgrade", "self-update", "self-upgrade"];

/// Phrases of a command's help summary that say the same.
const DANGER_PHRASES: &[&str] = &[
    "log in",
    "log into",
    "sign in",
    "authenticate",
    "credentials",
    "browser",
    "deploy",
    "publish",
    "set up",
    "interactive",
    "wizard",
    "open the",
    "opens the",
    "upgrade",
    "update the cli",
    "development server",
];

/// Whether a command of this path (its words after the program) or help summary
/// says it is where dangers live.
pub(crate) fn dangerous(path: &[String], summary: &str) -> bool {
    let by_name = path.iter().any(|word| {
        let word = word.to_ascii_lowercase();
        DANGER_WORDS.contains(&word.as_str())
            || word
                .split(['-', '_', ':'])
                .any(|part| DANGER_WORDS.contains(&part))
    });
    let updates_itself =
        matches!(path, [only] if TOOL_UPDATE.contains(&only.to_ascii_lowercase().as_str()));
    let summary = summary.to_ascii_lowercase();
    by_name || updates_itself || DANGER_PHRASES.iter().any(|phrase| says(&summary, phrase))
}

/// Whether `text` holds `phrase` as whole words: "authenticate", not the
/// "authenticated" of "make authenticated requests".
fn says(text: &str, phrase: &str) -> bool {
    text.match_indices(phrase).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + phrase.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(words: &str) -> Vec<String> {
        words.split(' ').map(String::from).collect()
    }

    #[test]
    fn names_and_summaries_of_any_cli_say_where_dangers_are() {
        for danger in [
            "login",
            "auth login",
            "apps:open",
            "self-update",
            "upgrade",
            "templates edit",
            "deploy",
            "dev",
            "init",
        ] {
            assert!(dangerous(&path(danger), ""), "{danger}");
        }
        for read in [
            "list",
            "apps info",
            "status",
            "whoami",
            "config get",
            "logs",
            "apps update",
        ] {
            assert!(!dangerous(&path(read), ""), "{read}");
        }
        assert!(dangerous(&path("account"), "Log in to your account"));
        assert!(dangerous(&path("go"), "Open the dashboard in your browser"));
        assert!(!dangerous(&path("ls"), "List the apps"));
        assert!(!dangerous(
            &path("api"),
            "Make authenticated HTTP requests to the API"
        ));
        assert!(dangerous(&path("auth0"), "Authenticate with the service"));
    }
}
