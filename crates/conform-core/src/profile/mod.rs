//! The conformance profile: model, loading, validation and command resolution.
//!
//! A profile is read as raw JSON first and checked rule by rule (collecting every
//! violation with its JSON pointer and line), and only a document that passed
//! becomes a typed [`Profile`]. The tool is never run for an invalid profile.

mod model;
mod patch;
mod pointer;
mod resolve;
mod spans;
#[cfg(test)]
mod tests;
mod validate;

use std::path::{Path, PathBuf};

pub(crate) use model::{ArgumentOrder, Probe, ProbeKind, Profile};
pub use patch::PatchOperation;
pub(crate) use resolve::{resolve_program, PROGRAM_POINTER};
pub(crate) use spans::Locations;
pub use validate::Violation;
pub(crate) use validate::{validate_document, CONFIRMATION_FLAGS};

/// The profile format's JSON Schema (draft-07), for editors and `conform schema`.
pub(crate) const PROFILE_SCHEMA: &str =
    include_str!("../../schemas/conformance-profile.schema.json");

/// How the path of a profile `conform check` inferred (and did not save) starts:
/// `check:TOOL ARGS...`.
pub(crate) const INFERRED_PATH_PREFIX: &str = "check:";

/// A valid profile with its paths resolved, ready to run.
#[derive(Debug, Clone)]
pub(crate) struct LoadedProfile {
    /// The profile file as given.
    pub path: PathBuf,
    /// The directory the profile lives in: relative commands resolve against it and
    /// every run's working directory is it.
    pub dir: PathBuf,
    pub profile: Profile,
    /// `command[0]` resolved to an executable file.
    pub program: PathBuf,
    /// Where each value is written in the file, by JSON pointer, for reports.
    pub locations: Locations,
}

/// Why a profile cannot be used: every violation found.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{} is not a valid conformance profile ({} violation{})", path.display(), violations.len(), if violations.len() == 1 { "" } else { "s" })]
pub(crate) struct ProfileError {
    pub path: PathBuf,
    pub violations: Vec<Violation>,
}

/// Read, parse, validate and resolve a profile file.
pub(crate) fn load(path: &Path) -> Result<LoadedProfile, ProfileError> {
    load_with(path, None)
}

/// [`load`], running `program` in place of `command[0]` when given (the binary
/// cargo built for a test); the rest of `command` is kept.
pub(crate) fn load_with(
    path: &Path,
    program: Option<&Path>,
) -> Result<LoadedProfile, ProfileError> {
    let fail = |violations: Vec<Violation>| ProfileError {
        path: path.to_path_buf(),
        violations,
    };
    let bytes = std::fs::read(path).map_err(|error| {
        let fix = if error.kind() == std::io::ErrorKind::NotFound {
            "check the path; profiles are usually committed as conformance-profile.json next to the CLI"
        } else {
            "make the file readable"
        };
        fail(vec![Violation::new(
            "",
            format!("cannot read the profile {}: {error}", path.display()),
            fix,
        )])
    })?;
    let text = String::from_utf8(bytes).map_err(|error| {
        fail(vec![Violation::new(
            "",
            format!(
                "the profile is not UTF-8 text (invalid byte at offset {})",
                error.utf8_error().valid_up_to()
            ),
            "save the profile as UTF-8 JSON",
        )])
    })?;
    let dir = profile_dir(path);
    let (profile, program, locations) = parse_with(&text, &dir, program).map_err(fail)?;
    Ok(LoadedProfile {
        path: path.to_path_buf(),
        dir,
        profile,
        program,
        locations,
    })
}

/// Parse and validate profile text whose relative command resolves against `dir`.
/// Returns the profile and its resolved program.
pub(crate) fn parse(text: &str, dir: &Path) -> Result<(Profile, PathBuf), Vec<Violation>> {
    parse_with(text, dir, None).map(|(profile, program, _)| (profile, program))
}

/// [`parse`], keeping the locations its scan found: a large profile is scanned
/// once, not once to validate and again for reports.
fn parse_with(
    text: &str,
    dir: &Path,
    program: Option<&Path>,
) -> Result<(Profile, PathBuf, Locations), Vec<Violation>> {
    let doc: serde_json::Value = serde_json::from_str(text).map_err(|error| {
        let mut v = Violation::new(
            "",
            format!("the profile is not valid JSON: {error}"),
            "fix the JSON syntax at that line and column (a trailing comma or a missing quote is typical)",
        );
        v.line = Some(error.line());
        // serde_json reports column 0 for an error before a line's first character.
        v.column = Some(error.column().max(1));
        vec![v]
    })?;
    let spans = spans::scan(text);
    // serde_json kept the last of each duplicated key without a word; the author may
    // have meant the first.
    let mut violations: Vec<Violation> = spans.duplicates.iter().map(duplicate_key).collect();
    violations.extend(validate_document(&doc));
    // A structurally valid profile always has a string command[0] to resolve.
    let given = program.map(|p| p.to_string_lossy().into_owned());
    let name = given
        .as_deref()
        .or_else(|| doc.pointer("/command/0").and_then(|c| c.as_str()));
    let program = match name {
        // An empty command[0] is the validator's to report.
        Some(name) if !name.is_empty() => resolve_program(name, dir)
            .map_err(|v| violations.push(*v))
            .ok(),
        _ => None,
    };
    let program = match program {
        Some(program) if violations.is_empty() => program,
        _ => return Err(locate(&spans, violations)),
    };
    let profile: Profile = serde_json::from_value(doc).map_err(|error| {
        // Validation accepted something the typed model does not: a bug in conform,
        // reported as a violation rather than a panic.
        vec![Violation::new(
            "",
            format!("internal error: the validated profile does not match the model: {error}"),
            "please report this to conform's maintainers with the profile",
        )]
    })?;
    Ok((profile, program, Locations::from(spans)))
}

/// Give each violation the line and column of its value (a missing member: of its
/// parent) and put them in document order.
fn locate(spans: &spans::Spans, mut violations: Vec<Violation>) -> Vec<Violation> {
    for v in violations.iter_mut().filter(|v| v.line.is_none()) {
        let mut pointer = v.pointer.as_str();
        loop {
            if let Some(&(line, column)) = spans.at.get(pointer) {
                v.line = Some(line);
                v.column = Some(column);
                break;
            }
            match pointer.rfind('/') {
                Some(cut) => pointer = &pointer[..cut],
                None => break,
            }
        }
    }
    // Violations without a location (an unreadable file) stay first.
    violations.sort_by_key(|v| (v.line, v.column));
    violations
}

/// A key given twice, located at its second occurrence.
fn duplicate_key(d: &spans::DuplicateKey) -> Violation {
    let (line, column) = d.first;
    let v = Violation::new(
        d.pointer.clone(),
        format!(
            "duplicate key \"{}\": this object already has it at line {line}, column {column}, and JSON parsers silently keep only one of the two (serde_json and the reference kit's Python json keep this last one)",
            d.key
        ),
        format!(
            "remove one of the two \"{}\" members, or merge them into one",
            d.key
        ),
    );
    let mut v = v.stricter_than_reference("duplicate keys");
    v.line = Some(d.again.0);
    v.column = Some(d.again.1);
    v
}

fn profile_dir(path: &Path) -> PathBuf {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::canonicalize(&parent).unwrap_or(parent)
}
