//! What some CLIs do for the person at a desktop, and an agent must never meet: a
//! pager, an editor, a browser, files written where they were not asked for. Only
//! the broken-CLI defects call these (see `defect.rs`).
//!
//! Each is guarded so that running the corpus on a developer's machine stays
//! harmless: nothing is written unless the XDG variable points somewhere (the kit's
//! sandboxes set them), and no browser opens where there is a display.

use std::io::{IsTerminal as _, Write as _};
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::stat::{fstat, SFlag};
use serde_json::json;

use crate::error::{CliError, Status};

/// The token variable of the waits-for-device-code defect's manifest.
pub const TOKEN_ENV: &str = "DEMOCLI_TOKEN";

/// Pipes `text` through `$PAGER` when it is set; returns whether it did. A pager
/// that ends without reading is a write error, ignored as a pager's exit would be.
pub fn page(text: &str) -> bool {
    let Some(pager) = std::env::var_os("PAGER").filter(|p| !p.is_empty()) else {
        return false;
    };
    let Ok(mut child) = Command::new("sh")
        .arg("-c")
        .arg(pager)
        .stdin(Stdio::piped())
        .spawn()
    else {
        return false;
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(text.as_bytes());
    }
    let _ = child.wait();
    true
}

/// Pipes `text` through `less` found on `PATH` when stdout is a terminal, whatever
/// `$PAGER` says; returns whether it did (a `less` that cannot start pages nothing).
pub fn page_with_less(text: &str) -> bool {
    if !std::io::stdout().is_terminal() {
        return false;
    }
    let Ok(mut child) = Command::new("less").stdin(Stdio::piped()).spawn() else {
        return false;
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(text.as_bytes());
    }
    let _ = child.wait();
    true
}

/// Opens `$EDITOR` on a file to fix the call in, as `git commit` does.
pub fn open_editor() {
    let Some(editor) = std::env::var_os("EDITOR").filter(|e| !e.is_empty()) else {
        return;
    };
    let _ = Command::new("sh")
        .arg("-c")
        .arg(r#"$DEMOCLI_EDITOR "$@""#)
        .arg("sh")
        .arg("democli-fix-this-call.txt")
        .env("DEMOCLI_EDITOR", editor)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// `xdg-open` on the dashboard, where there is no display (a headless login, where
/// it falls back to a text browser that waits for keys).
pub fn open_dashboard() {
    let display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()));
    if display {
        return;
    }
    // Waited for, so the opener has done its work before democli exits.
    let _ = Command::new("xdg-open")
        .arg("https://democli.example/deployments")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// `$XDG_CONFIG_HOME/democli`, made on first use.
pub fn create_config_dir() {
    if let Some(config) = std::env::var_os("XDG_CONFIG_HOME").filter(|c| !c.is_empty()) {
        let _ = std::fs::create_dir_all(std::path::Path::new(&config).join("democli"));
    }
}

/// `$XDG_CACHE_HOME/democli/last-args`: the call, cached before it was validated.
pub fn write_cache(args: &[String]) {
    if let Some(cache) = std::env::var_os("XDG_CACHE_HOME").filter(|c| !c.is_empty()) {
        let dir = std::path::Path::new(&cache).join("democli");
        if std::fs::create_dir_all(&dir).is_ok() {
            let _ = std::fs::write(dir.join("last-args"), args.join("\n"));
        }
    }
}

/// An interactive session on stdin, prompt on stderr as Python's is: each line read
/// is answered with a prompt again, and only EOF (or `exit`) ends it.
pub fn repl() {
    let stdin = std::io::stdin();
    let mut line = String::new();
    loop {
        eprint!("democli> ");
        line.clear();
        match stdin.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line.trim() == "exit" => break,
            Ok(_) => {}
        }
    }
    eprintln!();
}

/// A login that needs a person: with no `DEMOCLI_TOKEN` and no `democli/token` file in
/// the config directory, it asks on stderr for the code a browser shows and reads
/// stdin for it, even when stdin is a pipe. Only a pipe that is open and silent is
/// waited on (an agent's); a closed stdin or a terminal goes on anonymously. Only EOF
/// before a code ends the wait, as UNAUTHENTICATED naming the token variable.
pub fn device_code_login() -> Result<(), CliError> {
    if !anonymous_on_silent_pipe() {
        return Ok(());
    }
    eprint!(
        "democli: not logged in. Open https://democli.example/device, enter code \
         WDJB-MJHT, then paste the code it shows here: "
    );
    let mut code = String::new();
    let read = std::io::stdin().read_line(&mut code);
    if read.is_ok_and(|bytes| bytes > 0) && !code.trim().is_empty() {
        return Ok(());
    }
    // Nobody typed the newline that ends the prompt's line.
    eprintln!();
    Err(CliError::execution(
        Status::Unauthenticated,
        "UNAUTHENTICATED",
        "no device code was pasted before stdin ended",
    )
    .fix(format!(
        "Set {TOKEN_ENV} to an API token, or log in once at a terminal"
    ))
    .context(json!({ "env_vars": [TOKEN_ENV] })))
}

/// `$XDG_CONFIG_HOME/democli/token`, else `$HOME/.config/democli/token`.
fn login_file() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    let config = var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(config.join("democli").join("token"))
}

/// No token and no login, with stdin an open, silent pipe: how an agent's sandbox
/// runs democli headless.
pub fn anonymous_on_silent_pipe() -> bool {
    let token = std::env::var_os(TOKEN_ENV).is_some_and(|token| !token.is_empty());
    !token && !login_file().is_some_and(|file| file.is_file()) && stdin_is_silent_pipe()
}

/// stdin is a pipe whose writer is still there and has written nothing yet.
fn stdin_is_silent_pipe() -> bool {
    let stdin = std::io::stdin();
    let fifo = fstat(stdin.as_fd()).is_ok_and(|stat| {
        SFlag::from_bits_truncate(stat.st_mode & SFlag::S_IFMT.bits()) == SFlag::S_IFIFO
    });
    let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
    fifo && poll(&mut fds, PollTimeout::ZERO).is_ok_and(|ready| ready == 0)
}
