//! What a command's name says about its side effects.

/// Names that read as side-effect free.
const READ_VERBS: &[&str] = &[
    "list", "ls", "get", "show", "status", "info", "describe", "search", "version", "whoami", "me",
    "config", "view",
];

/// Names that read as deleting something.
const DESTRUCTIVE_VERBS: &[&str] = &[
    "delete",
    "remove",
    "rm",
    "destroy",
    "drop",
    "purge",
    "uninstall",
    "prune",
    "wipe",
    "erase",
    "clean",
    "clear",
    "kill",
    "terminate",
    "revoke",
    "reset",
    "truncate",
];

/// Names that read as changing state, or as reaching out (network, browser): their
/// help is never asked for, since a command that ignores `--help` would act.
const MUTATING_VERBS: &[&str] = &[
    "add",
    "apply",
    "create",
    "new",
    "deploy",
    "publish",
    "push",
    "pull",
    "fetch",
    "clone",
    "install",
    "init",
    "login",
    "logout",
    "set",
    "update",
    "upgrade",
    "edit",
    "write",
    "commit",
    "merge",
    "rebase",
    "revert",
    "restore",
    "move",
    "mv",
    "rename",
    "run",
    "exec",
    "start",
    "stop",
    "restart",
    "serve",
    "send",
    "upload",
    "download",
    "import",
    "sync",
    "checkout",
    "switch",
    "link",
    "unlink",
    "open",
    "enable",
    "disable",
    "register",
    "deregister",
    "unregister",
    "associate",
    "disassociate",
    "attach",
    "detach",
    "put",
    "modify",
    "cancel",
    "invoke",
    "execute",
    "submit",
    "authorize",
    "grant",
    "reboot",
    "replace",
    // Each ships, changes or starts something beyond this run: a release, an
    // upgrade of the project's dependencies or config, a container.
    "release",
    "autoupdate",
    "docker",
];

/// Words a command's summary opens with that say it changes the world
/// whatever its name: `ship   Deploy the site`, `go   Create a container`.
const MUTATING_SUMMARY_WORDS: &[&str] = &[
    "deploy",
    "deploys",
    "publish",
    "publishes",
    "create",
    "creates",
    "rewrite",
    "rewrites",
    "upload",
    "uploads",
    "container",
    "containers",
    "install",
    "installs",
    "release",
    "releases",
];

/// Framework commands that are not the tool's own.
const FRAMEWORK_COMMANDS: &[&str] = &["help", "completion", "completions"];

/// What a command's name says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    Framework,
    Destructive,
    Mutating,
    Read,
    /// Nothing: maybe a group (`projects`) whose subcommands say more.
    Other,
}

/// oclif's `apps:create` is classified by its last segment, the verb.
pub(super) fn classify(name: &str) -> Class {
    let name = name.rsplit(':').next().unwrap_or(name);
    if FRAMEWORK_COMMANDS.contains(&name) {
        Class::Framework
    } else if matches_verb(name, DESTRUCTIVE_VERBS) {
        Class::Destructive
    } else if matches_verb(name, MUTATING_VERBS)
        || ends_with_verb(name, MUTATING_VERBS)
        || crate::init::saving::writes_by_name(name).is_some()
    {
        Class::Mutating
    } else if matches_verb(name, READ_VERBS) {
        Class::Read
    } else {
        Class::Other
    }
}

/// What a command says about it, the same for `conform init` and `conform
/// check`: by its own name (its alias's target, for cargo's `r   alias: run`);
/// a name that says nothing takes the verb of the group it is in (`publish
/// heroku` publishes) and then what its summary says it does (`Deploy the app`).
pub(super) fn classify_command(path: &[String], summary: &str) -> Class {
    let name = path.last().map_or("", String::as_str);
    let own = match summary.strip_prefix("alias:") {
        Some(target) => classify(target.split_whitespace().next().unwrap_or(name)),
        None => classify(name),
    };
    if own != Class::Other {
        return own;
    }
    let by_group = path[..path.len().saturating_sub(1)]
        .iter()
        .flat_map(|word| word.split(':'))
        .map(classify)
        .find(|class| matches!(class, Class::Destructive | Class::Mutating));
    if let Some(class) = by_group {
        return class;
    }
    if says_it_mutates(summary) {
        Class::Mutating
    } else {
        Class::Other
    }
}

/// Whether a summary opens with a word that says the command changes the world
/// (`Deploy the app`, `Auto-update the hooks`); a group's `View and create
/// contacts` opens with a read.
fn says_it_mutates(summary: &str) -> bool {
    let first = summary
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    first
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| MUTATING_SUMMARY_WORDS.contains(&word) || word == "update")
}

/// `name` is one of `verbs`, or starts with one and a separator (`show-branch`).
fn matches_verb(name: &str, verbs: &[&str]) -> bool {
    let name = name.to_ascii_lowercase();
    verbs.iter().any(|verb| {
        name == *verb
            || name
                .strip_prefix(verb)
                .is_some_and(|rest| rest.starts_with('-') || rest.starts_with('_'))
    })
}

/// `name` ends with a separator and one of `verbs` (`self-update`, `docker-run`).
fn ends_with_verb(name: &str, verbs: &[&str]) -> bool {
    let name = name.to_ascii_lowercase();
    verbs.iter().any(|verb| {
        name.strip_suffix(verb)
            .is_some_and(|rest| rest.ends_with('-') || rest.ends_with('_'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_command_that_ships_or_starts_something_is_never_a_read() {
        for name in [
            "publish",
            "autoupdate",
            "docker",
            "docker-run",
            "self-update",
            "release",
        ] {
            assert_eq!(
                classify_command(&path(&[name]), ""),
                Class::Mutating,
                "{name}"
            );
        }
        // A name that says nothing takes its group's verb, then its summary's.
        assert_eq!(
            classify_command(&path(&["publish", "heroku"]), ""),
            Class::Mutating
        );
        assert_eq!(
            classify_command(&path(&["apps:destroy", "x"]), ""),
            Class::Destructive
        );
        assert_eq!(
            classify_command(&path(&["ship"]), "Deploy the site to production"),
            Class::Mutating
        );
        // A read keeps its name's word: `gh run list`, `release list`.
        assert_eq!(classify_command(&path(&["run", "list"]), ""), Class::Read);
        assert_eq!(
            classify_command(&path(&["containers"]), "Show the running ones"),
            Class::Other
        );
        assert_eq!(
            classify_command(&path(&["check"]), "Check the files"),
            Class::Other
        );
    }
}
