import VaultStorage
import VaultSystem

/// What `vault doctor` shows for the OpenBao backend.
extension OpenBaoStore {
    /// One line: the server, whether it answers, whether it is sealed, how vault logs in (and
    /// whether the token came from the login cache), the token's remaining TTL and the mount's
    /// KV version; `usable` when vault can read and write through it.
    public func diagnose() -> (usable: Bool, detail: String) {
        let deadline = client.deadline()
        var parts: [String] = []
        do throws(VaultError) {
            let health = try client.send(
                "GET", "sys/health?standbyok=true&sealedcode=200&uninitcode=200", deadline: deadline)
            parts.append("\(health.server) reachable")
            if health.json?["sealed"]?.bool == true {
                return (false, (parts + ["sealed; unseal it (bao operator unseal)"]).joined(separator: ", "))
            }
            parts.append("unsealed")
            let login = "login: \(client.settings.credentials.method)"
            parts.append(login)
            let token = try client.send("GET", "auth/token/lookup-self", deadline: deadline)
            if client.usesCachedToken { parts[parts.count - 1] = login + " (token from the login cache)" }
            guard token.status == 200, let ttl = token.json?["data"]?["ttl"]?.integer else {
                throw client.unexpected(token, doing: "the token lookup")
            }
            parts.append(ttl == 0 ? "token does not expire" : "token TTL \(ttl) s")
            let mountPath = "sys/internal/ui/mounts/" + client.settings.mount
            let mount = try client.send("GET", mountPath, deadline: deadline)
            let version = mount.json?["data"]?["options"]?["version"]?.string
            guard mount.status == 200, mount.json?["data"]?["type"]?.string == "kv" else {
                return (
                    false, (parts + ["no KV mount at \(client.settings.mount)/ (BAO_KV_MOUNT)"]).joined(separator: ", ")
                )
            }
            guard version == "2" else {
                return (
                    false,
                    (parts + ["mount \(client.settings.mount)/ is KV version \(version ?? "1"), not 2"]).joined(
                        separator: ", ")
                )
            }
            parts.append("mount \(client.settings.mount)/ is KV version 2")
            return (true, parts.joined(separator: ", "))
        } catch {
            return (false, (parts + [error.message]).joined(separator: ", "))
        }
    }
}
