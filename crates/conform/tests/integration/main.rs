//! conform's integration tests: the real binaries against real profiles, the
//! reference CLI, the broken CLIs and hostile tools.

mod action;
mod agents_guide;
mod broken_clis;
mod broken_clis_under_check;
mod budget;
mod check;
mod discovery;
mod docs_pages;
mod editors;
mod explore;
mod findings;
mod hostile;
mod hostile_env;
mod init;
mod init_bait;
mod merge;
mod network;
mod partition;
mod profile_validation;
mod real_tools;
mod reference_cli;
mod replay;
mod reports;
mod requirements;
mod scorecard;
mod stream;
mod support;
mod trust;
mod unprivileged;
