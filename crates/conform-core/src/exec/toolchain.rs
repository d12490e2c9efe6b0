//! The variables that locate installed toolchains, which an isolated run keeps.
//!
//! What a fresh HOME hides is the user's config, caches and state, not the installed
//! toolchains: a tool started through rustup's `cargo` proxy, a pyenv shim or a
//! Volta shim finds its toolchain under the user's HOME when the variable that
//! locates it is unset, and would fail in the sandbox for the sandbox's sake. So an
//! isolated run keeps the variables in [`TOOLCHAIN_HOMES`]: those set in conform's
//! environment pass through as they are, and those unset are set to the location
//! the tool would have found under the real HOME, where that directory exists.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Where a toolchain variable points when it is unset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unset {
    /// This directory under the real HOME.
    Home(&'static str),
    /// This directory under `XDG_DATA_HOME` as conform has it, else under
    /// `~/.local/share`.
    DataHome(&'static str),
    /// No default the sandbox could hide: the variable only passes through when set.
    None,
}

/// Variables that locate installed toolchains and version managers, which an
/// isolated run keeps (module docs). Config, caches and state stay hidden: the
/// sandbox's HOME and XDG directories are fresh whatever these say.
pub(super) const TOOLCHAIN_HOMES: &[(&str, Unset)] = &[
    // rustup's proxies (`cargo`, `rustc`) read the default toolchain from
    // RUSTUP_HOME; cargo keeps installed binaries and the registry in CARGO_HOME.
    ("RUSTUP_HOME", Unset::Home(".rustup")),
    ("CARGO_HOME", Unset::Home(".cargo")),
    // Version managers whose shims resolve the version from their own directory.
    ("PYENV_ROOT", Unset::Home(".pyenv")),
    ("RBENV_ROOT", Unset::Home(".rbenv")),
    ("NODENV_ROOT", Unset::Home(".nodenv")),
    ("GOENV_ROOT", Unset::Home(".goenv")),
    ("NVM_DIR", Unset::Home(".nvm")),
    ("VOLTA_HOME", Unset::Home(".volta")),
    ("SDKMAN_DIR", Unset::Home(".sdkman")),
    ("ASDF_DATA_DIR", Unset::Home(".asdf")),
    ("MISE_DATA_DIR", Unset::DataHome("mise")),
    // Go's installed modules and binaries; Python's `pip install --user` packages.
    ("GOPATH", Unset::Home("go")),
    ("PYTHONUSERBASE", Unset::Home(".local")),
    // Set by hand or by an installer, never derived from HOME.
    ("GOROOT", Unset::None),
    ("JAVA_HOME", Unset::None),
    ("DOTNET_ROOT", Unset::None),
    ("ASDF_DIR", Unset::None),
    ("GEM_HOME", Unset::None),
    ("GEM_PATH", Unset::None),
    ("PNPM_HOME", Unset::None),
    ("BUN_INSTALL", Unset::None),
];

/// The toolchain variables an isolated run must set, given conform's environment
/// (`var`) and the real HOME: each unset one whose default directory exists, set to
/// that directory. The others pass through, inherited as they are.
pub(super) fn toolchain_env(
    var: impl Fn(&str) -> Option<OsString>,
    home: Option<&Path>,
) -> Vec<(&'static str, PathBuf)> {
    let set = |name: &str| var(name).filter(|value| !value.is_empty());
    let mut found = Vec::new();
    for &(name, unset) in TOOLCHAIN_HOMES {
        if set(name).is_some() {
            continue;
        }
        let path = match unset {
            Unset::Home(dir) => home.map(|home| home.join(dir)),
            Unset::DataHome(dir) => set("XDG_DATA_HOME")
                .map(PathBuf::from)
                .filter(|data| data.is_absolute())
                .or_else(|| home.map(|home| home.join(".local/share")))
                .map(|data| data.join(dir)),
            Unset::None => None,
        };
        if let Some(path) = path.filter(|path| path.is_dir()) {
            found.push((name, path));
        }
    }
    found
}

/// The HOME conform's own tools would use: `$HOME` when set to an absolute path,
/// else the user's home directory from the password database.
pub(super) fn real_home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|home| home.is_absolute())
        .or_else(|| {
            nix::unistd::User::from_uid(nix::unistd::getuid())
                .ok()
                .flatten()
                .map(|user| user.dir)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn unset_toolchain_variables_point_where_the_real_home_has_them() {
        let home = tempfile::tempdir().expect("home");
        for dir in [".rustup", ".cargo", "go", ".local/share/mise"] {
            fs::create_dir_all(home.path().join(dir)).expect("mkdir");
        }
        // Set in conform's environment: inherited as it is, not set again.
        let inherited = |name: &str| match name {
            "PYENV_ROOT" | "JAVA_HOME" => Some(OsString::from("/opt/somewhere")),
            // Empty is unset, as rustup and the other tools read it.
            "CARGO_HOME" => Some(OsString::new()),
            _ => None,
        };
        let found = toolchain_env(inherited, Some(home.path()));
        let names: Vec<&str> = found.iter().map(|(name, _)| *name).collect();
        assert_eq!(
            names,
            [
                "RUSTUP_HOME",
                "CARGO_HOME",
                "MISE_DATA_DIR",
                "GOPATH",
                "PYTHONUSERBASE"
            ],
            "only unset variables whose directory exists: {found:?}"
        );
        assert_eq!(found[0].1, home.path().join(".rustup"));
        assert_eq!(found[2].1, home.path().join(".local/share/mise"));
        // A directory under conform's own XDG_DATA_HOME wins over ~/.local/share.
        let data = tempfile::tempdir().expect("data home");
        fs::create_dir(data.path().join("mise")).expect("mkdir");
        let data_home = data.path().as_os_str().to_owned();
        let found = toolchain_env(
            |name| (name == "XDG_DATA_HOME").then(|| data_home.clone()),
            Some(home.path()),
        );
        assert!(
            found.contains(&("MISE_DATA_DIR", data.path().join("mise"))),
            "{found:?}"
        );
        // No HOME to resolve against: nothing is made up.
        assert_eq!(toolchain_env(|_| None, None), []);
    }
}
