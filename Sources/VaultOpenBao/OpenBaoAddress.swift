package import VaultStorage
import VaultSystem

/// Reading `BAO_ADDR`: the nodes' addresses, and whether a token may be sent to them.
package enum OpenBaoAddress {
    /// The addresses in `list` (comma-separated, spaces and trailing `/` dropped).
    ///
    /// Every request carries the token, so an `http://` address to a host that is not this
    /// machine (a loopback address or `localhost`) would send it in clear over the network: it
    /// is refused unless `allowHTTP` (`VAULT_ALLOW_HTTP=1`). Messages name an address's origin
    /// only, never its user information, path or query.
    package static func parse(_ list: String, variable: String, allowHTTP: Bool) throws(VaultError) -> [String] {
        var addresses: [String] = []
        for part in list.split(separator: ",") {
            var node = String(part.filter { $0 != " " && $0 != "\t" })
            while node.hasSuffix("/") { node.removeLast() }
            guard HTTPURL.isHTTP(node) else {
                throw VaultError(
                    .usage, "\(variable) holds an address that is not an http:// or https:// URL",
                    remedy: .giveAccepted(forms: "http:// or https:// addresses, separated by commas"))
            }
            if !allowHTTP, node.lowercased().hasPrefix("http://"), !HTTPURL.isLoopback(host: HTTPURL.host(of: node)) {
                throw VaultError(
                    .usage,
                    "\(variable) holds \(HTTPURL.origin(of: node)): plain http would send the token in clear over the network",
                    remedy: .useHTTPS)
            }
            addresses.append(node)
        }
        guard !addresses.isEmpty else { throw VaultError(.usage, "\(variable) holds no address") }
        return addresses
    }
}
