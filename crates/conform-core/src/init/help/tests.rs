use std::collections::HashMap;

use super::classify::{classify, Class};
use super::commands::usage_subcommands;
use super::usage::requires_argument;
use super::*;
use crate::init::tool::Measured;

fn names(help: &str, path: &[&str]) -> Vec<String> {
    subcommands(help, path)
        .into_iter()
        .map(|e| e.name)
        .collect()
}

#[test]
fn clap_and_cargo_sections() {
    let help = "Usage: t [OPTIONS] <COMMAND>\n\nCommands:\n  list  List things\n          wrapped line\n  help  Print help\n\nOptions:\n  -h, --help  Print help\n";
    assert_eq!(names(help, &["t"]), ["list", "help"]);
    let cargo =
        "Commands:\n    build, b    Compile\n    ...         See all commands with --list\n";
    assert_eq!(names(cargo, &["cargo"]), ["build"]);
}

#[test]
fn git_groups_stay_in_the_section() {
    let help = "usage: git [-v]\n\nThese are common Git commands used in various situations:\n\nstart a working area (see also: git help tutorial)\n   clone     Clone\n\nexamine the history\n   status    Show\n\n'git help -a' lists more.\n";
    assert_eq!(names(help, &["git"]), ["clone", "status"]);
}

#[test]
fn git_full_list_titles_start_sections() {
    let help = "See 'git help <command>' to read about a specific subcommand\n\nMain Porcelain Commands\n   add        Add file contents\n   status     Show the status\n\nAncillary Commands / Interrogators\n   version    Display version information\n";
    assert_eq!(names(help, &["git"]), ["add", "status", "version"]);
}

#[test]
fn argparse_choices() {
    let help = "usage: t [-h] {list,get} ...\n\npositional arguments:\n  {list,get}\n    list      List\n    get       Get one\n  id          An id\n\noptions:\n  --format {json,plain}  Format\n";
    assert_eq!(names(help, &["t"]), ["list", "get"]);
    let titled = "usage: t [-h] {list,get} ...\n\ncommands:\n  {list,get}\n    list      List\n    get       Get one\n";
    assert_eq!(names(titled, &["t"]), ["list", "get"]);
}

#[test]
fn commander_placeholders() {
    let entries = subcommands(
        "Commands:\n  get <id>        Get\n  list [options]  List\n",
        &["t"],
    );
    assert!(entries[0].requires_argument);
    assert!(!entries[1].requires_argument);
}

#[test]
fn yargs_as_neonctl_wraps_it() {
    // neonctl 2: each command flush left after the program's name, its description
    // after `└───>`, wrapped mid-word onto lines of their own.
    let help = "neonctl <command> [options]\n\nCommands:\nneonctl auth\n└──────────>    Authenticate [aliases: login]\nneonctl projects\n└──────────>    Manage projects\nneonctl init\n└──────────>    Initialize a project with Neon using your AI coding assist\n                ant\nneonctl checkout [id|name]\n└──────────>    Pin a branch so subsequent co\n                mmands target it\n\nGlobal options:\n-o, --output\n└──────────>  Set output format\n";
    assert_eq!(
        names(help, &["neonctl"]),
        ["auth", "projects", "init", "checkout"]
    );
    let nested = "neonctl projects <sub-command> [options]\n\nCommands:\nneonctl projects list\n└──────────>    List projects\nneonctl projects get <id>\n└──────────>    Get a project\n";
    let entries = subcommands(nested, &["neonctl", "projects"]);
    assert_eq!(entries[0].name, "list");
    assert!(!entries[0].requires_argument);
    assert_eq!(entries[1].name, "get");
    assert!(entries[1].requires_argument);
    assert_eq!(
        requires_argument("neonctl me\n\nShow current user\n", "me", "neonctl"),
        Some(false)
    );
}

#[test]
fn yargs_in_its_own_layout() {
    let help = "mycli <command>\n\nCommands:\n  mycli serve [port]  start the server\n  mycli list          list the things, in a description that\n                      wraps\n\nOptions:\n  --version  Show version number  [boolean]\n\nExamples:\n  mycli serve 8080  start on port 8080\n";
    assert_eq!(names(help, &["mycli"]), ["serve", "list"]);
}

#[test]
fn typer_boxes() {
    let help = " Usage: hevn [OPTIONS] COMMAND [ARGS]...\n\n HEVN backend CLI\n\n╭─ Options ───────────────────────────────╮\n│ --json          Emit JSON.              │\n│ --help          Show this message.      │\n╰─────────────────────────────────────────╯\n╭─ Commands ──────────────────────────────╮\n│ login      Authenticate the CLI: pass   │\n│            --api-key or sign in.        │\n│ whoami     Introspect the API key.      │\n│ contacts   View and create contacts     │\n╰─────────────────────────────────────────╯\n╭─ Account ───────────────────────────────╮\n│ balance    Show balances.               │\n╰─────────────────────────────────────────╯\n";
    assert_eq!(
        names(help, &["hevn"]),
        ["login", "whoami", "contacts", "balance"]
    );
    assert_eq!(
        requires_argument(help, "hevn", "hevn"),
        Some(true),
        "COMMAND is required"
    );
    assert!(looks_like_help(help, "hevn"));
}

#[test]
fn examples_usage_and_prose_are_not_commands() {
    let help = "Usage: t [OPTIONS] COMMAND\n\nCommands:\n  list      List things\n  Run 't COMMAND --help' for more information on a command.\n  t list --all   an example line under the listing\n  $ t get 1      another\n  --verbose  an option where it does not belong\n\nExamples:\n  show     would look like an entry\n";
    assert_eq!(names(help, &["t"]), ["list"]);
}

#[test]
fn usage_lines() {
    assert_eq!(
        requires_argument(
            "usage: git status [<options>] [--] [<pathspec>...]\n",
            "status",
            "git"
        ),
        Some(false)
    );
    assert_eq!(
        requires_argument("Usage: t get [OPTIONS] <ID>\n", "get", "t"),
        Some(true)
    );
    assert_eq!(
        requires_argument("Usage:\n  t list [flags]\n", "list", "t"),
        Some(false)
    );
    assert_eq!(
        requires_argument("usage: t get [-h] id\n", "get", "t"),
        Some(true)
    );
    assert_eq!(requires_argument("no usage here\n", "get", "t"), None);
    let git_show =
        "usage: git log [<options>] [<revision-range>]\n   or: git show [<options>] <object>...\n";
    assert_eq!(requires_argument(git_show, "show", "git"), Some(true));
    let wrapped =
        "usage: git status [<options>]\n                  [--] <pathspec>\n\nusage statistics\n";
    assert_eq!(requires_argument(wrapped, "status", "git"), Some(true));
}

#[test]
fn subcommands_spelled_out_in_usage_lines() {
    let git = "usage: git config list [<file-option>] [<display-option>] [--includes]\n   or: git config get [<file-option>] [--all] <name>\n   or: git config set [<file-option>] <name> <value>\n   or: git config [<file-option>] --get-colorbool <name> [<stdout-is-tty>]\n";
    let subs = usage_subcommands(git, "config", "git");
    let shown: Vec<(&str, bool)> = subs
        .iter()
        .map(|s| (s.name.as_str(), s.requires_argument))
        .collect();
    assert_eq!(shown, [("list", false), ("get", true), ("set", true)]);
    let pip = "\nUsage:   \n  pip config [<file-option>] list\n  pip config [<file-option>] [--editor <editor-path>] edit\n  pip config [<file-option>] get command.option\n\nDescription:\n  Manage local and global configuration.\n";
    let subs = usage_subcommands(pip, "config", "pip");
    let shown: Vec<(&str, bool)> = subs
        .iter()
        .map(|s| (s.name.as_str(), s.requires_argument))
        .collect();
    assert_eq!(shown, [("list", false), ("edit", false), ("get", true)]);
}

#[test]
fn full_command_lists_named_in_the_help() {
    let git = "'git help -a' and 'git help -g' list available subcommands and some\nconcept guides. See 'git help <command>' or 'git help <concept>'\n";
    assert_eq!(
        full_list_argv(git, "git"),
        Some(vec!["help".into(), "-a".into()])
    );
    let cargo =
        "Commands:\n    build, b    Compile\n    ...         See all commands with --list\n";
    assert_eq!(full_list_argv(cargo, "cargo"), Some(vec!["--list".into()]));
    assert_eq!(full_list_argv("Commands:\n  list  List\n", "t"), None);
}

#[test]
fn overstrike_and_colour_are_removed() {
    assert_eq!(
        clean(b"N\x08NA\x08AM\x08ME\x08E \x1b[1mbold\x1b[0m\r"),
        "NAME bold"
    );
}

#[test]
fn names_are_classified() {
    assert_eq!(classify("list"), Class::Read);
    assert_eq!(classify("show-branch"), Class::Read);
    assert_eq!(classify("get-skill"), Class::Read);
    assert_eq!(classify("whoami"), Class::Read);
    assert_eq!(classify("delete"), Class::Destructive);
    assert_eq!(classify("remove-section"), Class::Destructive);
    assert_eq!(classify("push"), Class::Mutating);
    assert_eq!(classify("set-context"), Class::Mutating);
    // awscli's operations that change state without a create, set or delete.
    for changes in [
        "disable-outbound-web-identity-federation",
        "enable-mfa-device",
        "deregister-identity-provider",
        "put-bucket-policy",
        "modify-instance-attribute",
    ] {
        assert_eq!(classify(changes), Class::Mutating, "{changes}");
    }
    assert_eq!(classify("projects"), Class::Other);
    assert_eq!(classify("help"), Class::Framework);
}

/// A tool of canned help texts; every trial passes unless named in `failing`.
#[derive(Default)]
struct Canned {
    help: HashMap<String, String>,
    failing: HashMap<String, String>,
    asked: Vec<String>,
    tried: Vec<String>,
}

impl Tool for Canned {
    fn help(&mut self, args: &[String], _: &str) -> Result<String, String> {
        let key = args.join(" ");
        self.asked.push(key.clone());
        self.help
            .get(&key)
            .cloned()
            .ok_or_else(|| format!("no help for {key:?}"))
    }

    fn listing(&mut self, args: &[String]) -> Result<String, String> {
        self.help(args, "t")
    }

    fn try_read(&mut self, argv: &[String]) -> Trial {
        let key = argv.join(" ");
        self.tried.push(key.clone());
        match self.failing.get(&key) {
            Some(reason) => Trial::Failed {
                reason: reason.clone(),
                network: false,
            },
            None => Trial::Passed,
        }
    }

    fn measure(&mut self, _: &[String]) -> Measured {
        Measured::Failed
    }
}

fn argvs(body: &Body) -> Vec<String> {
    body.probes
        .iter()
        .map(|p| {
            p["argv"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default()
        })
        .collect()
}

#[test]
fn groups_are_searched_for_read_commands_and_candidates_are_tried() {
    let mut tool = Canned::default();
    let texts = [
        ("", "Usage: t <command>\n\nCommands:\n  r         alias: run\n  projects  Manage projects\n  config    Manage configuration\n  whoami    Show the user\n  status    Show the status\n  deploy    Deploy things\n  purge     Remove everything\n  help      Help\n"),
        ("projects", "Usage: t projects <command>\n\nCommands:\n  list      List projects\n  get <id>  Get one\n  delete    Delete one\n"),
        ("projects list", "Usage: t projects list [options]\n"),
        ("config", "usage: t config list [--global]\n   or: t config get <key>\n"),
        ("whoami", "Usage: t whoami\n"),
        ("status", "Usage: t status\n"),
    ];
    for (key, text) in texts {
        tool.help.insert(key.into(), text.into());
    }
    tool.failing
        .insert("status".into(), "its trial run exited 128".into());
    let body = profile_from(&mut tool, "t").expect("profile");
    assert_eq!(
        argvs(&body),
        [
            "config list",
            "projects list",
            "whoami",
            "config list --conform-no-such-flag"
        ]
    );
    assert_eq!(
        tool.tried,
        ["config list", "projects list", "status", "whoami"]
    );
    for never in ["deploy", "purge", "help", "projects delete", "r"] {
        assert!(!tool.asked.iter().any(|a| a == never), "asked {never}");
    }
    let codes: Vec<(&str, &str)> = body
        .warnings
        .iter()
        .map(|w| (w.code, w.message.as_str()))
        .collect();
    assert!(
        codes
            .iter()
            .any(|(c, m)| *c == "CANDIDATE_DROPPED" && m.starts_with("status:")),
        "{codes:?}"
    );
    assert!(
        codes
            .iter()
            .any(|(c, m)| *c == "DESTRUCTIVE_CANDIDATE" && m.starts_with("purge")),
        "{codes:?}"
    );
    assert!(
        codes
            .iter()
            .any(|(c, m)| *c == "COMMANDS_NOT_CALLED" && m.contains("deploy")),
        "{codes:?}"
    );
    assert!(
        codes
            .iter()
            .any(|(c, m)| *c == "COMMAND_SKIPPED" && m.starts_with("projects get")),
        "{codes:?}"
    );
}

mod styles;

#[test]
fn bare_operand_placeholders_can_be_made_up_and_options_cannot() {
    let operands = |help: &str, path: &[&str]| page::read_page(help, path).operands;
    // click (llm keys set), clap, commander.
    assert_eq!(
        operands(
            "Usage: llm keys set [OPTIONS] NAME\n",
            &["llm", "keys", "set"]
        ),
        Some(1)
    );
    assert_eq!(
        operands("Usage: t show <ID> <FIELD>\n", &["t", "show"]),
        Some(2)
    );
    assert_eq!(
        operands("Usage: t add <paths>...\n", &["t", "add"]),
        Some(1)
    );
    // A required option, a choice or a literal is nothing a made-up value fills.
    assert_eq!(
        operands("Usage: t get --name <NAME>\n", &["t", "get"]),
        None
    );
    assert_eq!(operands("Usage: t mode {on,off}\n", &["t", "mode"]), None);
}
