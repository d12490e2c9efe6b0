//! The deployments data file, `$DEMOCLI_HOME/deployments.json`.
//!
//! A missing file reads as the built-in seed, so read commands never write; the
//! first deletion materialises it. Writes go to a temporary file that is renamed
//! over the old one (REQ-F-070), so a reader sees the old or the new file, never half.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::error::{CliError, Status};

pub const HOME_ENV: &str = "DEMOCLI_HOME";
const FILE_NAME: &str = "deployments.json";
const FORMAT: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Deployment {
    pub id: String,
    pub env: String,
    pub service: String,
    pub version: String,
    pub status: String,
    pub created_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Event {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub deployment_id: String,
    pub env: String,
    pub service: String,
    pub version: String,
    pub occurred_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Data {
    pub format: u32,
    /// Bumped by every write; a preview reports the revision it was computed from.
    pub revision: u64,
    pub deployments: Vec<Deployment>,
    /// Append-only event log.
    pub events: Vec<Event>,
}

#[derive(Debug)]
pub struct Store {
    pub path: PathBuf,
    /// False while the seed has never been written.
    pub exists: bool,
    pub data: Data,
}

/// The data directory: `DEMOCLI_HOME`, else `$XDG_DATA_HOME/democli`, else
/// `~/.local/share/democli`. Always absolute (REQ-F-040).
pub fn home() -> Result<PathBuf, CliError> {
    if let Some(dir) = non_empty_var(HOME_ENV) {
        let dir = PathBuf::from(dir);
        if dir.is_absolute() {
            return Ok(dir);
        }
        let cwd = std::env::current_dir().map_err(|error| {
            CliError::execution(
                Status::Precondition,
                "NO_DATA_DIRECTORY",
                format!("{HOME_ENV} is relative and the working directory is unreadable: {error}"),
            )
            .fix(format!("Set {HOME_ENV} to an absolute path"))
        })?;
        return Ok(cwd.join(dir));
    }
    // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
    if let Some(xdg) = non_empty_var("XDG_DATA_HOME").map(PathBuf::from) {
        if xdg.is_absolute() {
            return Ok(xdg.join("democli"));
        }
    }
    match non_empty_var("HOME") {
        Some(home) => Ok(PathBuf::from(home).join(".local/share/democli")),
        None => Err(CliError::execution(
            Status::Precondition,
            "NO_DATA_DIRECTORY",
            "no data directory: DEMOCLI_HOME, XDG_DATA_HOME and HOME are all unset",
        )
        .fix(format!("Set {HOME_ENV} to a writable directory"))),
    }
}

fn non_empty_var(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|value| !value.is_empty())
}

impl Store {
    pub fn load(home: &Path) -> Result<Store, CliError> {
        let path = home.join(FILE_NAME);
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                return Ok(Store {
                    path,
                    exists: false,
                    data: seed(),
                })
            }
            Err(error) => {
                return Err(CliError::execution(
                    Status::GeneralError,
                    "STORE_UNREADABLE",
                    format!("cannot read {}: {error}", path.display()),
                )
                .context(json!({ "path": path.display().to_string() })))
            }
        };
        let corrupt = |reason: String| {
            CliError::execution(
                Status::GeneralError,
                "STORE_CORRUPT",
                format!("{} is not a democli data file: {reason}", path.display()),
            )
            .fix(format!(
                "Move {} aside; democli re-seeds a missing data file",
                path.display()
            ))
            .context(json!({ "path": path.display().to_string() }))
        };
        let data: Data = serde_json::from_str(&text).map_err(|error| corrupt(error.to_string()))?;
        if data.format != FORMAT {
            return Err(corrupt(format!("unsupported format {}", data.format)));
        }
        Ok(Store {
            path,
            exists: true,
            data,
        })
    }

    /// Bump the revision and replace the file atomically.
    pub fn save(&mut self) -> Result<(), CliError> {
        self.data.revision += 1;
        let write_failed = |error: io::Error| {
            CliError::execution(
                Status::GeneralError,
                "STORE_WRITE_FAILED",
                format!("cannot write {}: {error}", self.path.display()),
            )
            .context(json!({ "path": self.path.display().to_string() }))
        };
        let dir = self.path.parent().unwrap_or_else(|| Path::new("."));
        fs::create_dir_all(dir).map_err(write_failed)?;
        // The temporary name carries the pid, so concurrent writers never share one.
        let temp = dir.join(format!(".{FILE_NAME}.{}.tmp", std::process::id()));
        let mut text = serde_json::to_string_pretty(&self.data)
            .map_err(io::Error::other)
            .map_err(write_failed)?;
        text.push('\n');
        let written = fs::File::create(&temp).and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.sync_all()
        });
        if let Err(error) = written.and_then(|()| fs::rename(&temp, &self.path)) {
            // Leave no stray temporary file behind; the old file is untouched.
            let _ = fs::remove_file(&temp);
            return Err(write_failed(error));
        }
        self.exists = true;
        Ok(())
    }
}

/// Twenty deployments over three environments; staging has eight, so its list spans
/// two pages at the default limit of five.
const SEED: [(&str, &str, &str, &str, &str); 20] = [
    (
        "staging",
        "api",
        "1.4.0",
        "succeeded",
        "2026-01-05T09:12:00Z",
    ),
    (
        "production",
        "api",
        "1.3.2",
        "succeeded",
        "2026-01-06T10:30:00Z",
    ),
    ("dev", "web", "0.9.0", "succeeded", "2026-01-08T14:05:00Z"),
    ("staging", "web", "0.9.1", "failed", "2026-01-09T16:40:00Z"),
    (
        "staging",
        "worker",
        "2.1.0",
        "succeeded",
        "2026-01-12T08:20:00Z",
    ),
    (
        "production",
        "worker",
        "2.0.4",
        "succeeded",
        "2026-01-13T11:00:00Z",
    ),
    ("dev", "billing", "0.3.0", "running", "2026-01-15T09:45:00Z"),
    (
        "staging",
        "billing",
        "0.3.0",
        "succeeded",
        "2026-01-16T13:10:00Z",
    ),
    (
        "production",
        "web",
        "0.8.7",
        "rolled_back",
        "2026-01-19T17:25:00Z",
    ),
    (
        "staging",
        "api",
        "1.5.0",
        "succeeded",
        "2026-01-21T10:00:00Z",
    ),
    ("dev", "api", "1.6.0-rc.1", "failed", "2026-01-23T15:30:00Z"),
    (
        "production",
        "api",
        "1.4.0",
        "succeeded",
        "2026-01-26T09:00:00Z",
    ),
    (
        "staging",
        "web",
        "1.0.0",
        "succeeded",
        "2026-01-28T12:15:00Z",
    ),
    (
        "dev",
        "worker",
        "2.2.0-beta.1",
        "succeeded",
        "2026-02-02T08:50:00Z",
    ),
    (
        "production",
        "billing",
        "0.2.9",
        "succeeded",
        "2026-02-04T14:20:00Z",
    ),
    (
        "staging",
        "worker",
        "2.2.0",
        "running",
        "2026-02-06T10:35:00Z",
    ),
    (
        "production",
        "web",
        "1.0.0",
        "succeeded",
        "2026-02-09T16:00:00Z",
    ),
    (
        "dev",
        "web",
        "1.1.0-rc.1",
        "succeeded",
        "2026-02-11T11:45:00Z",
    ),
    (
        "staging",
        "billing",
        "0.4.0",
        "failed",
        "2026-02-13T09:05:00Z",
    ),
    (
        "production",
        "worker",
        "2.2.0",
        "running",
        "2026-02-16T13:30:00Z",
    ),
];

pub fn seed() -> Data {
    let deployments: Vec<Deployment> = SEED
        .iter()
        .enumerate()
        .map(
            |(index, (env, service, version, status, created_at))| Deployment {
                id: format!("dep-{:03}", index + 1),
                env: (*env).to_owned(),
                service: (*service).to_owned(),
                version: (*version).to_owned(),
                status: (*status).to_owned(),
                created_at: (*created_at).to_owned(),
            },
        )
        .collect();
    let events = deployments
        .iter()
        .enumerate()
        .map(|(index, deployment)| {
            let kind = match deployment.status.as_str() {
                "running" => "deployment.started".to_owned(),
                status => format!("deployment.{status}"),
            };
            event(index + 1, &kind, deployment, &deployment.created_at)
        })
        .collect();
    Data {
        format: FORMAT,
        revision: 0,
        deployments,
        events,
    }
}

/// An event about `deployment`, numbered `number` in the log.
pub fn event(number: usize, kind: &str, deployment: &Deployment, at: &str) -> Event {
    Event {
        id: format!("evt-{number:04}"),
        kind: kind.to_owned(),
        deployment_id: deployment.id.clone(),
        env: deployment.env.clone(),
        service: deployment.service.clone(),
        version: deployment.version.clone(),
        occurred_at: at.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_spans_environments_with_two_staging_pages() {
        let data = seed();
        assert_eq!(data.deployments.len(), 20);
        let staging = data
            .deployments
            .iter()
            .filter(|d| d.env == "staging")
            .count();
        assert!(staging > crate::spec::DEFAULT_LIMIT as usize);
        assert_eq!(data.events.len(), 20);
    }

    #[test]
    fn missing_file_reads_as_seed_and_save_is_atomic() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let mut store = Store::load(dir.path()).map_err(|e| e.message)?;
        assert!(!store.exists);
        assert!(!dir.path().join(FILE_NAME).exists(), "reads never write");
        store.data.deployments.truncate(3);
        store.save().map_err(|e| e.message)?;
        let reloaded = Store::load(dir.path()).map_err(|e| e.message)?;
        assert!(reloaded.exists);
        assert_eq!(reloaded.data.revision, 1);
        assert_eq!(reloaded.data.deployments.len(), 3);
        let leftovers: Vec<_> = fs::read_dir(dir.path())?
            .filter_map(Result::ok)
            .filter(|entry| entry.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
        Ok(())
    }

    #[test]
    fn corrupt_file_is_reported_not_replaced() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        fs::write(dir.path().join(FILE_NAME), "{not json")?;
        let error = Store::load(dir.path()).err().map(|e| e.code);
        assert_eq!(error, Some("STORE_CORRUPT"));
        Ok(())
    }
}
