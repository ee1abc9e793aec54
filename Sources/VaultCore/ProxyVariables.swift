import VaultSystem

/// The glue's reading of the proxy variables, by libcurl's rules.
extension HTTPProxy.Variables {
    /// `http_proxy` (lower case only, as curl: `HTTP_PROXY` can be set by a CGI request) for
    /// http, `https_proxy`/`HTTPS_PROXY` for https, then `all_proxy`/`ALL_PROXY`;
    /// `no_proxy`/`NO_PROXY`. Empty counts as unset.
    init(environment: [String: String]) {
        func value(_ name: String) -> String? { Configuration.value(name, in: environment) }
        self.init(
            http: value("http_proxy"), https: value("https_proxy") ?? value("HTTPS_PROXY"),
            all: value("all_proxy") ?? value("ALL_PROXY"), noProxy: value("no_proxy") ?? value("NO_PROXY"))
    }
}

extension HTTPProxy {
    /// The proxy `environment` gives for `url` (the glue's reading, then libcurl's choice).
    init(environment: [String: String], url: String) {
        self.init(Variables(environment: environment), url: url)
    }
}
