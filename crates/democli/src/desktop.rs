//! What some CLIs do for the person at a desktop, and an agent must never meet: a
//! pager, an editor, a browser, files written where they were not asked for. Only
//! the broken-CLI defects call these (see `defect.rs`).
//!
//! Each is guarded so that running the corpus on a developer's machine stays
//! harmless: nothing is written unless the XDG variable points somewhere (the kit's
//! sandboxes set them), and no browser opens where there is a display.

use std::io::Write as _;
use std::process::{Command, Stdio};

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
