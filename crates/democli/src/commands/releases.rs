//! `democli releases`: the latest production release of each service. The one command
//! with network I/O (REQ-C-012): see `net.rs` for what it asks and of whom.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};

use super::{Outcome, Reply};
use crate::defect::Defect;
use crate::error::{CliError, Failure, Status};
use crate::net::{self, Waited, REGISTRY_URL};
use crate::output::table;
use crate::parse::Parsed;
use crate::spec::{self, DEFAULT_TIMEOUT};
use crate::store::{self, Deployment, Store};

pub fn run(args: &Parsed, ctx: &super::Ctx) -> Result<Outcome, Failure> {
    let faults = ctx.ui.faults;
    let given = args.text("timeout");
    // Validated by the parser; `0` means no limit.
    let timeout = spec::parse_duration(given.unwrap_or(DEFAULT_TIMEOUT))
        .filter(|timeout| !timeout.is_zero())
        .filter(|_| !(given.is_none() && faults.on(Defect::NoDefaultNetworkTimeout)));
    // The environment is checked before anything is read or sent.
    let proxy = net::registry_proxy()?;
    let store = Store::load(&store::home()?)?;

    let mut warnings = Vec::new();
    if let Some(proxy) = proxy {
        let timeout =
            timeout.filter(|_| !(given.is_some() && faults.on(Defect::TimeoutIgnoredBehindProxy)));
        match net::ask(&proxy, timeout) {
            Waited::TimedOut => return Err(timed_out(&proxy, timeout).into()),
            Waited::Interrupted(signal) => return Err(CliError::interrupted(signal).into()),
            Waited::Answered(status) => warnings.push(unavailable(
                &proxy,
                &format!("the proxy answered \"{status}\", and democli has no TLS client to use a tunnel"),
            )),
            Waited::Unreachable(reason) => warnings.push(unavailable(&proxy, &reason)),
        }
    }

    let releases = latest_releases(&store.data.deployments);
    let rows: Vec<Vec<String>> = releases
        .iter()
        .map(|(service, d)| {
            vec![
                (*service).to_owned(),
                d.version.clone(),
                d.created_at.clone(),
                d.id.clone(),
            ]
        })
        .collect();
    let mut plain = table(
        &["SERVICE", "VERSION", "RELEASED_AT", "DEPLOYMENT"],
        &rows,
        ctx.ui.stdout_paint(),
        usize::MAX,
    );
    plain.push_str("(from the local data file)\n");
    let data = json!({
        "source": "local",
        "registry": REGISTRY_URL,
        "releases": releases
            .iter()
            .map(|(service, d)| json!({
                "service": service,
                "version": d.version,
                "released_at": d.created_at,
                "deployment_id": d.id,
            }))
            .collect::<Vec<Value>>(),
    });
    Ok(Outcome::Reply(Box::new(Reply {
        data,
        plain,
        warnings,
        ..Reply::default()
    })))
}

/// Per service, its most recent succeeded production deployment.
fn latest_releases(deployments: &[Deployment]) -> BTreeMap<&str, &Deployment> {
    let mut latest: BTreeMap<&str, &Deployment> = BTreeMap::new();
    for deployment in deployments
        .iter()
        .filter(|d| d.env == "production" && d.status == "succeeded")
    {
        let newer = latest
            .get(deployment.service.as_str())
            .is_none_or(|seen| deployment.created_at > seen.created_at);
        if newer {
            latest.insert(&deployment.service, deployment);
        }
    }
    latest
}

fn timed_out(proxy: &net::Proxy, timeout: Option<Duration>) -> CliError {
    let waited_ms = timeout.map_or(0, |t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX));
    CliError::execution(
        Status::Timeout,
        "TIMEOUT",
        format!(
            "the proxy {} (from {}) gave no answer within {waited_ms} ms",
            proxy.shown, proxy.variable
        ),
    )
    .retryable()
    .suggest("Retry later, pass a longer --timeout, or unset the proxy variables to answer from the local data file")
    .context(json!({
        "proxy": proxy.shown,
        "variable": proxy.variable,
        "timeout_ms": waited_ms,
        "registry": REGISTRY_URL,
    }))
}

fn unavailable(proxy: &net::Proxy, reason: &str) -> Value {
    json!({
        "code": "REGISTRY_UNAVAILABLE",
        "message": format!("the registry could not be reached through {} ({reason}); the releases come from the local data file", proxy.variable),
        "context": { "proxy": proxy.shown, "variable": proxy.variable, "registry": REGISTRY_URL },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latest_succeeded_production_release_per_service() {
        let data = store::seed();
        let latest = latest_releases(&data.deployments);
        let versions: Vec<(&str, &str)> = latest
            .iter()
            .map(|(service, d)| (*service, d.version.as_str()))
            .collect();
        assert_eq!(
            versions,
            [
                ("api", "1.4.0"),
                ("billing", "0.2.9"),
                ("web", "1.0.0"),
                ("worker", "2.0.4")
            ]
        );
    }
}
