//! What a run's black-hole proxy was asked for, as the network checks show it and
//! which requests look for a newer version of a tool.

use std::fmt::Write as _;

use crate::exec::ProxyRequest;

/// The hosts the connections asked for, each once, in the order they came:
/// `registry.example:443`, `pypi.org:80/pypi/x/json`, `an unreadable request`, or
/// `a connection closed before any request`.
pub(crate) fn hosts(requests: &[ProxyRequest]) -> String {
    let mut shown: Vec<String> = Vec::new();
    for request in requests {
        let mut one = match &request.host {
            Some(host) => host.clone(),
            None if request.unsent => "a connection closed before any request".to_string(),
            None => "an unreadable request".to_string(),
        };
        if let (Some(_), Some(port)) = (&request.host, request.port) {
            let _ = write!(one, ":{port}");
        }
        if let Some(path) = &request.path {
            one.push_str(path);
        }
        if !shown.contains(&one) {
            shown.push(one);
        }
    }
    shown.join(", ")
}

/// Whether a request asks a registry which versions of a package there are: the
/// npm registry and Homebrew's formulae by host alone (a `CONNECT` shows no path),
/// PyPI's JSON API and GitHub's releases API only with a visible path.
pub(crate) fn asks_for_versions(request: &ProxyRequest) -> bool {
    let Some(host) = request.host.as_deref() else {
        return false;
    };
    let path = request.path.as_deref().unwrap_or_default();
    match host {
        "registry.npmjs.org" | "formulae.brew.sh" => true,
        "pypi.org" => path.starts_with("/pypi/"),
        "api.github.com" => github_releases(path),
        _ => false,
    }
}

/// `/repos/OWNER/NAME/releases`, alone or followed by `/...` or a query.
fn github_releases(path: &str) -> bool {
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let mut parts = path.split('/');
    matches!(
        (parts.next(), parts.next(), parts.next(), parts.next(), parts.next()),
        (Some(""), Some("repos"), Some(owner), Some(name), Some("releases"))
            if !owner.is_empty() && !name.is_empty()
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn request(host: &str, path: Option<&str>) -> ProxyRequest {
        ProxyRequest {
            host: Some(host.into()),
            port: Some(443),
            path: path.map(String::from),
            unsent: false,
            at: Duration::ZERO,
        }
    }

    #[test]
    fn version_lookups_are_known_by_host_or_by_path() {
        for (host, path) in [
            ("registry.npmjs.org", None),
            ("formulae.brew.sh", Some("/api/formula/democli.json")),
            ("pypi.org", Some("/pypi/democli/json")),
            (
                "api.github.com",
                Some("/repos/acme/democli/releases/latest"),
            ),
            (
                "api.github.com",
                Some("/repos/acme/democli/releases?per_page=1"),
            ),
        ] {
            assert!(asks_for_versions(&request(host, path)), "{host} {path:?}");
        }
        for (host, path) in [
            ("pypi.org", None),
            ("pypi.org", Some("/simple/democli/")),
            ("api.github.com", None),
            ("api.github.com", Some("/repos/acme/democli/issues")),
            ("api.github.com", Some("/repos//releases")),
            ("telemetry.democli.invalid", Some("/v1/events")),
        ] {
            assert!(!asks_for_versions(&request(host, path)), "{host} {path:?}");
        }
    }

    #[test]
    fn hosts_are_shown_once_each_in_order() {
        let unreadable = ProxyRequest {
            host: None,
            port: None,
            path: None,
            unsent: false,
            at: Duration::ZERO,
        };
        let requests = [
            request("a.example", None),
            request("b.example", Some("/x")),
            request("a.example", None),
            unreadable,
        ];
        assert_eq!(
            hosts(&requests),
            "a.example:443, b.example:443/x, an unreadable request"
        );
    }
}
