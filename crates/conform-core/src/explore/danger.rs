//! Where an agent meets a danger first: the commands whose names or help say
//! they authenticate, set up, deploy or publish, serve for development, open
//! something (a browser, an editor, the docs, a dashboard), update the tool, or
//! start an interactive session. A prompt that waits forever, a browser, a wait on
//! the network or a change of the world lives there far more than in a `list`, so
//! every phase of `conform check` (help calls, exploration runs, survey, depth)
//! takes them first, whatever the budget leaves out. One rule from words any CLI
//! uses, never a tool's name.

/// Words of a command's path that say it is such a command (each word of the
/// path, and each part of one split at `-`, `_` and `:`), by how soon it is
/// taken: authentication first (a browser, a device code, a pasted token: the
/// danger agents meet most), then setting up (wizards that ask), then opening
/// something or an interactive session, then the world changing (deploying,
/// publishing, serving for development).
const DANGER_WORDS: [&[&str]; 4] = [
    &[
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
    ],
    &["init", "setup", "configure", "onboard", "bootstrap", "new"],
    &[
        "open",
        "browse",
        "docs",
        "dashboard",
        "console",
        "web",
        "ui",
        "studio",
        "edit",
        "shell",
        "repl",
        "chat",
        "interactive",
        "tui",
        "ssh",
        "attach",
    ],
    &[
        "deploy",
        "publish",
        "release",
        "push",
        "upload",
        "ship",
        "promote",
        "rollback",
        "dev",
        "serve",
        "start",
        "watch",
        "selfupdate",
    ],
];

/// A top-level command of one of these names updates the tool itself (the last
/// tier); below the top (`apps update`), the word updates a resource.
const TOOL_UPDATE: &[&str] = &["update", "upgrade", "self-update", "self-upgrade"];

/// Phrases of a command's help summary that say the same, by tier.
const DANGER_PHRASES: [&[&str]; 4] = [
    &[
        "log in",
        "log into",
        "sign in",
        "authenticate",
        "credentials",
    ],
    &["set up", "wizard"],
    &["browser", "interactive", "open the", "opens the"],
    &[
        "deploy",
        "publish",
        "upgrade",
        "update the cli",
        "development server",
    ],
];

/// How soon a command of this path (its words after the program) or help summary
/// is taken, when it says dangers live there: 0 (authentication) to 3.
pub(crate) fn danger(path: &[String], summary: &str) -> Option<u8> {
    let names = |words: &[&str]| {
        path.iter().any(|word| {
            let word = word.to_ascii_lowercase();
            words.contains(&word.as_str())
                || word.split(['-', '_', ':']).any(|p| words.contains(&p))
        })
    };
    let summary = summary.to_ascii_lowercase();
    let tier = (0..DANGER_WORDS.len()).find(|&tier| {
        names(DANGER_WORDS[tier])
            || DANGER_PHRASES[tier]
                .iter()
                .any(|phrase| says(&summary, phrase))
    });
    let updates_itself =
        matches!(path, [only] if TOOL_UPDATE.contains(&only.to_ascii_lowercase().as_str()));
    let tier = tier.or(updates_itself.then_some(DANGER_WORDS.len() - 1))?;
    u8::try_from(tier).ok()
}

/// Whether a command of this path or help summary says dangers live there.
pub(crate) fn dangerous(path: &[String], summary: &str) -> bool {
    danger(path, summary).is_some()
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
    fn authentication_comes_first_then_setting_up() {
        assert_eq!(danger(&path("auth login"), ""), Some(0));
        assert_eq!(danger(&path("init"), ""), Some(1));
        assert_eq!(danger(&path("templates edit"), ""), Some(2));
        assert_eq!(danger(&path("deploy"), ""), Some(3));
        assert_eq!(danger(&path("upgrade"), ""), Some(3));
        assert_eq!(danger(&path("list"), ""), None);
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
