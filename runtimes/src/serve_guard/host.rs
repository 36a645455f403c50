//! The `Host` header as RFC 9112 (section 3.2) has a server check it: an HTTP/1.1 request
//! without one, with more than one, or with one that is not a host and port is answered
//! 400. The Agent Card's URL is built from it, so a request the check lets through cannot
//! make the Card point at a port the server is not on or at no host at all.

use axum::http::uri::Authority;
use axum::http::{HeaderMap, Version, header};

/// Why the request's `Host` header is unacceptable, if it is.
pub(super) fn host_problem(version: Version, headers: &HeaderMap) -> Option<String> {
    let mut hosts = headers.get_all(header::HOST).iter();
    let Some(host) = hosts.next() else {
        return (version == Version::HTTP_11)
            .then(|| "an HTTP/1.1 request must carry a Host header".to_string());
    };
    if hosts.next().is_some() {
        return Some("a request must carry one Host header, not several".to_string());
    }
    let text = String::from_utf8_lossy(host.as_bytes());
    match Authority::try_from(host.as_bytes()) {
        Ok(authority) if !text.is_empty() && !text.contains('@') && authority.host() != "" => None,
        _ => Some(format!("the Host header `{text}` is not a host and port")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with_hosts(hosts: &[&'static str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for host in hosts {
            headers.append(header::HOST, HeaderValue::from_static(host));
        }
        headers
    }

    #[test]
    fn one_host_and_port_passes_and_anything_else_is_named() {
        for good in [&["agent:9000"][..], &["127.0.0.1"], &["[::1]:8080"]] {
            assert_eq!(host_problem(Version::HTTP_11, &with_hosts(good)), None);
        }
        assert_eq!(host_problem(Version::HTTP_10, &with_hosts(&[])), None);
        for (hosts, problem) in [
            (&[][..], "must carry a Host header"),
            (&["a:1", "b:2"], "one Host header, not several"),
            (&[""], "`` is not a host and port"),
            (&["a b"], "`a b` is not a host and port"),
            (&["user@agent:9000"], "is not a host and port"),
        ] {
            let named = host_problem(Version::HTTP_11, &with_hosts(hosts)).unwrap();
            assert!(named.contains(problem), "{hosts:?}: {named}");
        }
    }
}
