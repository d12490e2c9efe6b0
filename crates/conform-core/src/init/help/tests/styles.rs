//! Every help style against a fixture modelled on a real tool's help: the exact
//! commands listed, which are groups, and what the usage lines say.

use crate::init::help::commands::{subcommands, HelpEntry};
use crate::init::help::listing::{listing_argvs, read_listing};
use crate::init::help::page::{lists_no_subcommands, read_page, HelpPage};

macro_rules! fixture {
    ($name:literal) => {
        include_str!(concat!("../fixtures/", $name))
    };
}

fn names(entries: &[HelpEntry]) -> Vec<&str> {
    entries.iter().map(|e| e.name.as_str()).collect()
}

/// The entries marked `group`, and those marked `requires_argument`.
fn marked(entries: &[HelpEntry]) -> (Vec<&str>, Vec<&str>) {
    let pick = |keep: fn(&HelpEntry) -> bool| {
        entries
            .iter()
            .filter(|e| keep(e))
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>()
    };
    (pick(|e| e.group), pick(|e| e.requires_argument))
}

fn summary<'a>(page: &'a HelpPage, name: &str) -> &'a str {
    page.entries
        .iter()
        .find(|e| e.name == name)
        .map_or("<not listed>", |e| e.summary.as_str())
}

fn path(page: &HelpPage, name: &str) -> Vec<String> {
    page.entries
        .iter()
        .find(|e| e.name == name)
        .map(|e| e.path.clone())
        .unwrap_or_default()
}

#[test]
fn clap_cargo_and_a_plugin_group() {
    let root = read_page(fixture!("clap-cargo.txt"), &["cargo"]);
    assert_eq!(
        names(&root.entries),
        [
            "build",
            "check",
            "clean",
            "doc",
            "new",
            "init",
            "add",
            "remove",
            "run",
            "test",
            "bench",
            "update",
            "search",
            "publish",
            "install",
            "uninstall"
        ]
    );
    assert_eq!(summary(&root, "build"), "Compile the current package");
    assert!(!root.needs_subcommand, "`cargo [COMMAND]` runs bare");
    assert_eq!(
        listing_argvs(fixture!("clap-cargo.txt"), "cargo"),
        [["--list"]]
    );
    assert!(root.flag("--list").is_some_and(|f| !f.takes_value));
    assert!(root.flag("--color").is_some_and(|f| f.takes_value));

    // `cargo nextest show-config` needs one of its commands: never probe it bare.
    let group = read_page(
        fixture!("clap-nextest-show-config.txt"),
        &["cargo", "nextest", "show-config"],
    );
    assert!(group.needs_subcommand);
    assert_eq!(names(&group.entries), ["version", "test-groups"]);
    assert_eq!(
        path(&group, "test-groups"),
        ["nextest", "show-config", "test-groups"]
    );
    assert_eq!(group.requires_argument, Some(false));
}

#[test]
fn cobra_groups_in_docker_and_kubectl() {
    let docker = subcommands(fixture!("cobra-docker.txt"), &["docker"]);
    assert_eq!(
        names(&docker),
        [
            "run",
            "exec",
            "ps",
            "build",
            "pull",
            "push",
            "images",
            "login",
            "logout",
            "search",
            "version",
            "info",
            "builder",
            "checkpoint",
            "container",
            "context",
            "image",
            "manifest",
            "network",
            "plugin",
            "system",
            "trust",
            "volume",
            "config",
            "node",
            "secret",
            "service",
            "stack",
            "swarm",
            "attach",
            "commit",
            "cp",
            "create",
            "wait"
        ]
    );
    let config = read_page(fixture!("cobra-kubectl-config.txt"), &["kubectl", "config"]);
    assert_eq!(
        names(&config.entries),
        [
            "current-context",
            "delete-cluster",
            "delete-context",
            "delete-user",
            "get-clusters",
            "get-contexts",
            "get-users",
            "rename-context",
            "set",
            "set-cluster",
            "set-context",
            "set-credentials",
            "unset",
            "use-context",
            "view"
        ]
    );
    assert!(config.needs_subcommand, "`kubectl config SUBCOMMAND`");
    assert_eq!(path(&config, "view"), ["config", "view"]);
}

#[test]
fn cobra_gh_grouped_capital_headings() {
    let root = read_page(fixture!("cobra-gh.txt"), &["gh"]);
    assert_eq!(
        names(&root.entries),
        [
            "auth",
            "browse",
            "codespace",
            "gist",
            "issue",
            "org",
            "pr",
            "project",
            "release",
            "repo",
            "cache",
            "run",
            "workflow",
            "co",
            "alias",
            "api",
            "completion",
            "config",
            "extension",
            "search",
            "status"
        ],
        "HELP TOPICS, FLAGS and EXAMPLES are not commands"
    );
    assert_eq!(summary(&root, "co"), "Alias for \"pr checkout\"");
    assert!(root.needs_subcommand, "`gh <command> <subcommand>`");

    let pr = read_page(fixture!("cobra-gh-pr.txt"), &["gh", "pr"]);
    assert_eq!(
        names(&pr.entries),
        ["create", "list", "status", "checkout", "close", "diff", "view"]
    );
    assert!(pr.needs_subcommand);
    assert_eq!(path(&pr, "list"), ["pr", "list"]);

    let list = read_page(fixture!("cobra-gh-pr-list.txt"), &["gh", "pr", "list"]);
    assert!(list.entries.is_empty(), "{:?}", list.entries);
    assert!(!list.needs_subcommand);
    assert_eq!(list.requires_argument, Some(false));
    assert!(list.flag("--web").is_some_and(|f| !f.takes_value));
    assert!(list.flag("--json").is_some_and(|f| f.takes_value));
    assert_eq!(
        list.flag("-R").and_then(|f| f.long.as_deref()),
        Some("--repo")
    );
}

#[test]
fn click_groups_and_commands() {
    let root = read_page(fixture!("click-notes.txt"), &["notes"]);
    assert_eq!(names(&root.entries), ["delete", "list", "show", "tags"]);
    assert!(root.needs_subcommand, "`notes [OPTIONS] COMMAND [ARGS]...`");
    let tags = read_page(fixture!("click-notes-tags.txt"), &["notes", "tags"]);
    assert!(tags.needs_subcommand);
    assert_eq!(names(&tags.entries), ["ls"]);
    assert_eq!(path(&tags, "ls"), ["tags", "ls"]);
    let show = read_page(fixture!("click-notes-show.txt"), &["notes", "show"]);
    assert!(!show.needs_subcommand);
    assert_eq!(show.requires_argument, Some(true), "NOTE_ID");
}

#[test]
fn click_panels_after_commands_list_commands_too() {
    // modal's layout: `Commands:`, then topic panels with more commands; the
    // environment and see-also blocks after them are no commands.
    let root = read_page(fixture!("click-panels-cloudctl.txt"), &["cloudctl"]);
    assert_eq!(
        names(&root.entries),
        [
            "run",
            "deploy",
            "shell",
            "app",
            "container",
            "secret",
            "volume",
            "profile",
            "token",
            "setup",
            "dashboard"
        ]
    );
    assert!(root.needs_subcommand);
    // Without a commands section first, a topic title is not read as one.
    let page = read_page(
        "Usage: t [OPTIONS]\n\nStorage:\n  disk  The disk.\n",
        &["t"],
    );
    assert!(page.entries.is_empty());
}

#[test]
fn typer_boxed_panels() {
    let root = read_page(fixture!("typer-deployctl.txt"), &["deployctl"]);
    assert_eq!(names(&root.entries), ["status", "logs", "config", "whoami"]);
    assert!(root.needs_subcommand);
    assert!(root.flag("--help").is_some_and(|f| !f.takes_value));
    let config = read_page(
        fixture!("typer-deployctl-config.txt"),
        &["deployctl", "config"],
    );
    assert_eq!(names(&config.entries), ["get", "list"]);
    assert!(config.needs_subcommand);
    assert_eq!(summary(&config, "list"), "List every setting.");
}

#[test]
fn argparse_choices_and_the_list_under_them() {
    let root = read_page(fixture!("argparse-pkgtool.txt"), &["pkgtool"]);
    assert_eq!(
        names(&root.entries),
        ["list", "show", "cache", "remove"],
        "`ls` is an alias of list"
    );
    assert_eq!(summary(&root, "list"), "list the installed packages");
    assert_eq!(summary(&root, "cache"), "inspect and manage the cache");
    let cache = read_page(
        fixture!("argparse-pkgtool-cache.txt"),
        &["pkgtool", "cache"],
    );
    assert_eq!(names(&cache.entries), ["dir", "purge"]);
    assert!(cache.needs_subcommand, "`{{dir,purge}} ...`");
    let show = read_page(
        "usage: pkgtool show [-h] name\n\npositional arguments:\n  name\n",
        &["pkgtool", "show"],
    );
    assert!(!show.needs_subcommand);
    assert_eq!(show.requires_argument, Some(true));
}

#[test]
fn commander_placeholders_aliases_and_groups() {
    let root = subcommands(fixture!("commander-shipit.txt"), &["shipit"]);
    assert_eq!(
        names(&root),
        ["status", "get", "login", "config", "deploy", "help"]
    );
    assert_eq!(marked(&root), (vec![], vec!["get"]));
    let config = read_page(
        fixture!("commander-shipit-config.txt"),
        &["shipit", "config"],
    );
    assert_eq!(names(&config.entries), ["list", "set", "help"]);
    assert_eq!(marked(&config.entries), (vec![], vec!["set"]));
    assert!(
        config.needs_subcommand,
        "`shipit config [options] [command]`"
    );
    // firebase's `login` has subcommands and an action of its own, which takes
    // an optional code: it runs bare.
    let login = read_page(
        "Usage: shipit login [options] [command] [auth_code]\n\nCommands:\n  login:ci [options]  make a token\n  login:list          list accounts\n",
        &["shipit", "login"],
    );
    assert_eq!(names(&login.entries), ["login:ci", "login:list"]);
    assert!(!login.needs_subcommand);
    assert_eq!(login.requires_argument, Some(false));
    let deploy = read_page(
        "Usage: shipit deploy|d [options] [target]\n\nOptions:\n  --dry-run   say what would happen\n",
        &["shipit", "deploy|d"],
    );
    assert!(!deploy.needs_subcommand);
    assert!(deploy.flag("--dry-run").is_some());
}

#[test]
fn yargs_commands_and_a_group() {
    let root = read_page(fixture!("yargs-kv.txt"), &["kv"]);
    assert_eq!(names(&root.entries), ["list", "get", "serve", "store"]);
    assert_eq!(marked(&root.entries), (vec!["store"], vec!["get"]));
    assert!(root.needs_subcommand, "`kv <command>`");
    let store = read_page(fixture!("yargs-kv-store.txt"), &["kv", "store"]);
    assert_eq!(names(&store.entries), ["ls", "create"]);
    assert_eq!(path(&store, "create"), ["store", "create"]);
    assert!(store.needs_subcommand);
}

#[test]
fn oclif_topics_and_topic_commands() {
    let root = read_page(fixture!("oclif-herd.txt"), &["herd"]);
    assert_eq!(
        names(&root.entries),
        ["apps", "config", "commands", "login", "status"]
    );
    // `apps` is a topic and a command (it lists apps); `config` only a topic.
    assert_eq!(marked(&root.entries).0, ["config"]);
    assert_eq!(
        listing_argvs(fixture!("oclif-herd.txt"), "herd"),
        [["commands", "--json"]]
    );

    let apps = read_page(fixture!("oclif-herd-apps.txt"), &["herd", "apps"]);
    assert_eq!(
        names(&apps.entries),
        ["apps:favorites", "apps:create", "apps:destroy", "apps:info"]
    );
    assert_eq!(path(&apps, "apps:create"), ["apps:create"]);
    assert!(!apps.needs_subcommand, "`$ herd apps` runs bare");
    assert_eq!(apps.requires_argument, Some(false));

    let config = read_page(fixture!("oclif-herd-config.txt"), &["herd", "config"]);
    assert_eq!(names(&config.entries), ["config:get", "config:set"]);
    assert!(config.needs_subcommand, "`$ herd config:COMMAND`");

    let get = read_page(
        "get a config value for an app\n\nUSAGE\n  $ herd config:get KEY\n",
        &["herd", "config:get"],
    );
    assert_eq!(get.requires_argument, Some(true));
}

#[test]
fn oclif_spaced_topics_with_colon_usage_lines() {
    // twilio lists `api core numbers list` but writes its usage with colons.
    let group = ["relay", "api", "core", "numbers"];
    let numbers = read_page(fixture!("oclif-spaced-relay-numbers.txt"), &group);
    assert_eq!(names(&numbers.entries), ["fetch", "list"]);
    assert_eq!(path(&numbers, "list"), ["api", "core", "numbers", "list"]);
    assert!(
        numbers.needs_subcommand,
        "`$ relay api core numbers COMMAND`"
    );

    let list = read_page(
        fixture!("oclif-spaced-relay-numbers-list.txt"),
        &["relay", "api", "core", "numbers", "list"],
    );
    assert_eq!(
        list.requires_argument,
        Some(false),
        "named as api:core:numbers:list"
    );
    assert!(!list.needs_subcommand);
    let fetch = read_page(
        fixture!("oclif-spaced-relay-numbers-fetch.txt"),
        &["relay", "api", "core", "numbers", "fetch"],
    );
    assert_eq!(
        fetch.requires_argument,
        Some(true),
        "`--sid <value>` is required"
    );
    assert_eq!(
        fetch.operands, None,
        "a required flag is no operand to make up"
    );
}

#[test]
fn vercel_marked_usage_titled_groups_and_piped_aliases() {
    // Help on stderr after a banner and notices; `▲ vercel ...` is the usage line.
    let text = fixture!("vercel.txt");
    assert!(crate::init::help::usage::looks_like_help(text, "vercel"));
    assert_eq!(crate::init::help::usage::program_name(text, "vc"), "vercel");
    let root = read_page(text, &["vercel"]);
    assert_eq!(
        names(&root.entries),
        [
            "deploy",
            "build",
            "cache",
            "env",
            "install",
            "integration-resource",
            "link",
            "list",
            "login",
            "open",
            "httpstat",
            "metrics",
            "remove",
            "teams",
            "whoami"
        ]
    );
    assert_eq!(marked(&root.entries), (vec![], vec!["httpstat", "metrics"]));
    assert_eq!(summary(&root, "list"), "Lists deployments");
    assert!(root
        .flag("--debug")
        .is_some_and(|f| f.short.as_deref() == Some("-d")));

    // `vercel env command`: a group whose bare words are required arguments.
    let env = read_page(fixture!("vercel-env.txt"), &["vercel", "env"]);
    assert_eq!(names(&env.entries), ["add", "list", "pull", "remove"]);
    assert_eq!(marked(&env.entries), (vec![], vec!["add", "remove"]));
    assert_eq!(path(&env, "list"), ["env", "list"]);
    assert!(env.needs_subcommand);
    assert!(env
        .flag("--yes")
        .is_some_and(|f| f.short.as_deref() == Some("-y")));

    let remove = read_page(fixture!("vercel-remove.txt"), &["vercel", "remove"]);
    assert_eq!(remove.requires_argument, Some(true));
    assert!(!remove.needs_subcommand);
}

#[test]
fn netlify_entries_written_as_shell_lines() {
    let root = read_page(fixture!("oclif-netlify.txt"), &["netlify"]);
    assert_eq!(
        names(&root.entries),
        [
            "api",
            "completion",
            "deploy",
            "env",
            "init",
            "login",
            "open",
            "sites",
            "status",
            "switch"
        ]
    );
    assert_eq!(summary(&root, "login"), "Login to your Netlify account");
    let env = read_page(fixture!("oclif-netlify-env.txt"), &["netlify", "env"]);
    // The examples' `$ netlify env:list` lines are no entries.
    assert_eq!(names(&env.entries), ["env:get", "env:list", "env:unset"]);
    assert_eq!(path(&env, "env:list"), ["env:list"]);
    assert!(!env.needs_subcommand, "`$ netlify env [options]` runs bare");
}

#[test]
fn oclif_commands_json() {
    let listed = read_listing(fixture!("oclif-herd-commands.json"), "herd");
    assert_eq!(
        names(&listed),
        [
            "apps",
            "apps:create",
            "apps:destroy",
            "apps:favorites",
            "apps:favorites:add",
            "apps:info",
            "commands",
            "config:get",
            "config:set",
            "login",
            "status",
            "config"
        ],
        "the hidden command is left out; the topic `config` is implied"
    );
    assert_eq!(
        marked(&listed),
        (
            vec!["config"],
            vec!["apps:destroy", "config:get", "config:set"]
        )
    );
    assert_eq!(listed[1].summary, "create a new app");
    assert_eq!(listed[1].path, ["apps:create"]);
    let ids = read_listing(r#"["a:b", "c"]"#, "t");
    assert_eq!(names(&ids), ["a:b", "c", "a"]);
    assert!(read_listing(" ›   Error: command commands not found\n", "t").is_empty());
}

#[test]
fn git_main_help_and_help_all() {
    let root = read_page(fixture!("git.txt"), &["git"]);
    assert_eq!(
        names(&root.entries),
        [
            "clone", "init", "add", "mv", "restore", "rm", "bisect", "diff", "grep", "log", "show",
            "status", "branch", "commit", "merge", "rebase", "reset", "switch", "tag", "fetch",
            "pull", "push"
        ]
    );
    assert!(root.needs_subcommand, "`<command> [<args>]`");
    assert_eq!(listing_argvs(fixture!("git.txt"), "git"), [["help", "-a"]]);
    let all = read_listing(fixture!("git-help-a.txt"), "git");
    assert_eq!(
        names(&all),
        [
            "add",
            "am",
            "archive",
            "bisect",
            "branch",
            "bundle",
            "checkout",
            "cherry-pick",
            "citool",
            "tag",
            "worktree",
            "config",
            "fast-export",
            "fast-import",
            "filter-branch",
            "mergetool",
            "pack-refs",
            "prune",
            "annotate",
            "blame",
            "bugreport",
            "count-objects",
            "diagnose",
            "difftool",
            "fsck",
            "stripspace",
            "credential-netrc"
        ],
        "the guides (attributes, hooks, format-pack) are not commands"
    );
}

#[test]
fn npm_comma_separated_list() {
    let root = read_page(fixture!("npm.txt"), &["npm"]);
    assert_eq!(
        names(&root.entries),
        [
            "access",
            "adduser",
            "approve-scripts",
            "audit",
            "bugs",
            "cache",
            "ci",
            "completion",
            "config",
            "dedupe",
            "deny-scripts",
            "deprecate",
            "diff",
            "dist-tag",
            "docs",
            "doctor",
            "edit",
            "exec",
            "explain",
            "explore",
            "find-dupes",
            "fund",
            "get",
            "help",
            "help-search",
            "init",
            "install",
            "install-ci-test",
            "install-scripts",
            "install-test",
            "link",
            "ll",
            "login",
            "logout",
            "ls",
            "org",
            "outdated",
            "owner",
            "pack",
            "ping",
            "pkg",
            "prefix",
            "profile",
            "prune",
            "publish",
            "query",
            "rebuild",
            "repo",
            "restart",
            "root",
            "run",
            "sbom",
            "search",
            "set",
            "shrinkwrap",
            "stage",
            "star",
            "stars",
            "start",
            "stop",
            "team",
            "test",
            "token",
            "trust",
            "undeprecate",
            "uninstall",
            "unpublish",
            "unstar",
            "update",
            "version",
            "view",
            "whoami"
        ]
    );
    assert!(!lists_no_subcommands(fixture!("npm.txt"), "npm"));
}

#[test]
fn tools_with_options_only() {
    for (text, tool) in [
        (fixture!("curl.txt"), "curl"),
        (fixture!("jq.txt"), "jq"),
        (fixture!("tar.txt"), "tar"),
        (fixture!("grep.txt"), "grep"),
    ] {
        assert!(lists_no_subcommands(text, tool), "{tool}");
        assert!(read_page(text, &[tool]).entries.is_empty(), "{tool}");
    }
    for (text, tool) in [
        (fixture!("clap-cargo.txt"), "cargo"),
        (fixture!("cobra-gh.txt"), "gh"),
        (fixture!("git.txt"), "git"),
        (fixture!("oclif-herd.txt"), "herd"),
        (fixture!("yargs-kv.txt"), "kv"),
        (fixture!("argparse-pkgtool.txt"), "pkgtool"),
        (fixture!("typer-deployctl.txt"), "deployctl"),
    ] {
        assert!(!lists_no_subcommands(text, tool), "{tool}");
    }
    // A group placeholder with no listing still has subcommands; prose is no help.
    assert!(!lists_no_subcommands("Usage: t <command> [args]\n", "t"));
    assert!(!lists_no_subcommands("t: try again\n", "t"));
}

#[test]
fn pip_forms_parted_by_a_blank_line() {
    // pip 24's `pip config --help`: the usage forms in two groups.
    let help = "\nUsage:\n  pip config [<file-option>] list\n  pip config [<file-option>] [--editor <editor-path>] edit\n\n  pip config [<file-option>] get command.option\n  pip config [<file-option>] debug\n\nDescription:\n  Manage local and global configuration.\n";
    let page = read_page(help, &["pip", "config"]);
    assert_eq!(names(&page.entries), ["list", "edit", "get", "debug"]);
    assert_eq!(marked(&page.entries), (vec![], vec!["get"]));
    assert!(page.needs_subcommand);
}

#[test]
fn option_styles() {
    // kubectl writes a boolean's default, terraform one-dash long options.
    let kubectl = "Options:\n    -A, --all-namespaces=false:\n\tIf present, list across all namespaces.\n\n    -o, --output='':\n\tOutput format.\n";
    let page = read_page(kubectl, &["kubectl", "get"]);
    assert!(page.flag("-A").is_some_and(|f| !f.takes_value));
    assert!(page.flag("--output").is_some_and(|f| f.takes_value));
    let terraform = "Global options (use these before the subcommand, if any):\n  -chdir=DIR    Switch to a different working directory.\n  -help         Show this help output.\n";
    let page = read_page(terraform, &["terraform"]);
    assert!(page.flag("-chdir").is_some_and(|f| f.takes_value));
    assert!(page.flag("-help").is_some_and(|f| !f.takes_value));
    let click = "Options:\n  --debug / --no-debug  Set debug mode.\n  -e, --env-file FILE   Load variables.\n";
    let page = read_page(click, &["flask"]);
    assert!(page.flag("--no-debug").is_some_and(|f| !f.takes_value));
    assert!(page
        .flag("-e")
        .is_some_and(|f| f.takes_value && f.long.as_deref() == Some("--env-file")));
}

#[test]
fn a_pointer_to_an_options_list_is_no_command_listing() {
    let kubectl = "Usage:\n  kubectl [flags] [options]\n\nUse \"kubectl <command> --help\" for more information about a given command.\nUse \"kubectl options\" for a list of global command-line options (applies to all commands).\n";
    assert!(listing_argvs(kubectl, "kubectl").is_empty());
    assert_eq!(
        listing_argvs(
            "Usage: t [OPTIONS]\n\nOptions:\n  --help-all  Print help for every command\n",
            "t"
        ),
        [["--help-all"]]
    );
}

#[test]
fn yargs_sections_named_in_capitals() {
    // wrangler groups its commands under capital headings without a colon, the
    // first of them COMMANDS, and names each with the program in front.
    let root = read_page(fixture!("yargs-grouped-edgectl.txt"), &["edgectl"]);
    assert_eq!(
        names(&root.entries),
        [
            "docs",
            "complete",
            "mail",
            "auth",
            "login",
            "whoami",
            "delete",
            "deploy",
            "deployments",
            "tail",
            "db",
            "kv"
        ]
    );
    assert_eq!(path(&root, "kv"), ["kv"]);
    assert_eq!(
        summary(&root, "deployments"),
        "🚢 List the deployments of your worker"
    );
}

#[test]
fn manual_pages_of_the_help_word_as_awscli_writes_them() {
    use crate::init::help::man::{as_help, points_at_help_word};
    // `skyctl --help` prints a usage naming no command, and points at `skyctl help`.
    let usage = fixture!("man-skyctl-usage.txt");
    assert!(points_at_help_word(usage, "skyctl"));
    assert!(!points_at_help_word(fixture!("clap-cargo.txt"), "cargo"));
    assert_eq!(as_help(usage), None, "a usage is not a manual page");

    let root = as_help(fixture!("man-skyctl.txt")).expect("a manual page");
    let page = read_page(&root, &["skyctl"]);
    // The `o name` bullets of AVAILABLE SERVICES; SEE ALSO's and the option
    // values' bullets are not commands.
    assert_eq!(
        names(&page.entries),
        ["configure", "identity", "storage", "help"]
    );
    assert!(page.flag("--output").is_some());

    // A service page has no synopsis: it is a group, read for its commands.
    let service = as_help(fixture!("man-skyctl-identity.txt")).expect("a manual page");
    let page = read_page(&service, &["skyctl", "identity"]);
    assert_eq!(
        names(&page.entries),
        ["assume-role", "get-caller-identity", "help"]
    );
    assert_eq!(path(&page, "assume-role"), ["identity", "assume-role"]);
    assert!(page.needs_subcommand);
    // So is a page whose synopsis is its name alone over a list of commands
    // (`aws history` exits 255, "too few arguments"); `configure` runs bare.
    let history = "HISTORY()\n\nNAME\n       history -\n\nSYNOPSIS\n          history\n\nAVAILABLE COMMANDS\n       o list\n\n       o show\n";
    let page = read_page(
        &as_help(history).expect("a manual page"),
        &["skyctl", "history"],
    );
    assert!(page.needs_subcommand);
    let configure = history.replace(
        "          history\n",
        "          skyctl history [--profile name]\n",
    );
    let page = read_page(
        &as_help(&configure).expect("a manual page"),
        &["skyctl", "history"],
    );
    assert!(!page.needs_subcommand);
    assert_eq!(page.requires_argument, Some(false));

    // An operation's synopsis, one option a line: a bare required option is a
    // required argument, bracketed ones are not.
    let op = as_help(fixture!("man-skyctl-assume-role.txt")).expect("a manual page");
    let page = read_page(&op, &["skyctl", "identity", "assume-role"]);
    assert_eq!(page.requires_argument, Some(true));
    assert_eq!(
        page.operands, None,
        "a required option is no operand to make up"
    );
    let op = as_help(fixture!("man-skyctl-get-caller-identity.txt")).expect("a manual page");
    let page = read_page(&op, &["skyctl", "identity", "get-caller-identity"]);
    assert_eq!(page.requires_argument, Some(false));
    assert!(!page.needs_subcommand);
}
