import Foundation
import Testing
import VaultAge
import VaultTestSupport

@testable import VaultCore

#if canImport(Glibc)
    import Glibc
#endif

/// The OpenBao store's safety rails: a dead cluster's message, plain http, and the copies of a
/// value a `get` leaves in memory.
@Suite("OpenBao safety")
struct OpenBaoSafetyTests {
    @Test("with every node down, the store tries again until VAULT_TIMEOUT and then names every node's error")
    func everyNodeDown() throws {
        let server = try OpenBaoDevServer.shared()
        let ports = try (0..<3).map { _ in try freeLoopbackPort() }
        let store = OpenBaoStore.testStore(server, addresses: ports.map { "http://127.0.0.1:\($0)" }, timeout: 1)
        let started = Date()
        let error = try #require(throws: VaultError.self) {
            try store.read(try SecretName(service: "s", account: "x"))
        }
        // Not given up at the first refusal: the nodes were asked again during the timeout.
        #expect(Date().timeIntervalSince(started) > 0.5)
        #expect(error.code == .unavailable)
        #expect(error.message.contains("VAULT_TIMEOUT"), "\(error.message)")
        for port in ports {
            #expect(error.message.contains("127.0.0.1:\(port)"), "\(error.message)")
        }
        #expect(!error.message.contains(server.token))
    }

    @Test("BAO_ADDR over plain http to another host is refused unless VAULT_ALLOW_HTTP=1; messages name origins only")
    func plainHTTP() throws {
        func settings(_ address: String, allow: Bool = false) throws(VaultError) -> OpenBaoSettings {
            var environment = ["BAO_ADDR": address, "BAO_TOKEN": "t-not-shown"]
            if allow { environment["VAULT_ALLOW_HTTP"] = "1" }
            return try StoreFactory(options: GlobalOptions(), environment: environment, prompt: nil).openBaoSettings()
        }
        let remote = "http://someone:pass-not-shown@bao.example.com:8200/under/path-not-shown?query-not-shown=1"
        let refused = try #require(throws: VaultError.self) { try settings(remote) }
        #expect(refused.code == .usage)
        #expect(refused.message.contains("http://bao.example.com:8200"), "\(refused.message)")
        #expect(refused.message.contains("VAULT_ALLOW_HTTP=1"), "\(refused.message)")
        for hidden in ["someone", "pass-not-shown", "path-not-shown", "query-not-shown", "t-not-shown"] {
            #expect(!refused.message.contains(hidden), "\(refused.message)")
        }
        // One remote http node among loopback ones is enough to refuse.
        #expect(throws: VaultError.self) { try settings("http://127.0.0.1:8200,http://10.0.0.2:8200") }
        #expect(throws: VaultError.self) { try settings("http://localhost.example.com:8200") }
        #expect(throws: VaultError.self) { try settings("http://127.0.0.1.example.com:8200") }
        #expect(throws: VaultError.self) { try settings("http://bao:8200", allow: false) }
        #expect(try settings(remote, allow: true).addresses.count == 1)
        for allowed in [
            "https://bao.example.com:8200", "http://127.0.0.1:8200", "http://127.8.9.10", "http://localhost:8200",
            "http://LOCALHOST:1/", "http://[::1]:8200", "https://a:1,https://b:2",
        ] {
            #expect(throws: Never.self, "\(allowed)") { try settings(allowed) }
        }
        // An address that is not a URL is not quoted either: it may hold a password.
        let notURL = try #require(throws: VaultError.self) { try settings("someone:pass-not-shown@bao:8200") }
        #expect(!notURL.message.contains("pass-not-shown"), "\(notURL.message)")
    }

    @Test("after a get, no copy of the value that vault made is left in the process's memory")
    func copiesAfterGet() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        // The value is made and written by a shell, which prints it masked: this process never
        // holds the plain value except where vault's read puts it.
        let put = try runTool(
            "/bin/sh",
            [
                "-c",
                """
                v="\(MemoryScan.prefix)$(od -An -tx1 -N16 /dev/urandom | tr -d ' \\n')"
                "$1" kv put -mount="$2" vault/mem/value value="$v" >/dev/null || exit 1
                "$1" kv put -mount="$2" vault/mem/filler value="$(head -c 3000 /dev/zero | tr '\\0' x)" >/dev/null || exit 1
                printf %s "$v" | tr '\(MemoryScan.alphabet)' '\(MemoryScan.masked)'
                """, "sh", server.bao, mount,
            ], environment: server.environment)
        try #require(put.status == 0, "\(put.stderr)")
        let masked = put.stdout
        try #require(masked.count == MemoryScan.prefix.utf8.count + 32)

        let store = OpenBaoStore.testStore(server, mount: mount)
        do {
            let record = try #require(try store.read(try SecretName(service: "mem", account: "value")))
            #expect(MemoryScan.mask(record.value) == masked)
        }
        let afterGet = try MemoryScan.count(masked: masked)
        // libcurl keeps the last response in its receive buffer until the next request on the
        // session (docs/design.md): the next one overwrites it.
        _ = try store.read(try SecretName(service: "mem", account: "filler"))
        let afterNext = try MemoryScan.count(masked: masked)
        print(
            "OpenBao get: copies of the value in memory: \(afterGet) after the get, \(afterNext) after the next request"
        )
        #expect(afterNext == 0, "copies of the value left after a get and the next request")
        #expect(afterGet <= 1, "copies of the value left after a get (libcurl's receive buffer may hold one)")
    }
}

/// Counts copies of a value in this process's writable memory (`/proc/self/maps` and
/// `/proc/self/mem`), given the value masked, so that the needle itself is not a copy.
///
/// The value is ``prefix`` and 32 hex digits. The mask maps each byte of `alphabet` to the one
/// at the same place in `masked` (a rotation, so no byte maps to itself) and every other byte to
/// itself.
enum MemoryScan {
    static let prefix = "QvaultMemScan"
    static let alphabet = "0-9a-z"
    static let masked = "7-9a-z0-6"

    private static let table: [UInt8] = {
        let from = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        let to = Array("789abcdefghijklmnopqrstuvwxyz0123456".utf8)
        var table = (0...255).map { UInt8($0) }
        for (a, b) in zip(from, to) { table[Int(a)] = b }
        return table
    }()

    static func mask(_ bytes: some Sequence<UInt8>) -> [UInt8] { bytes.map { table[Int($0)] } }

    /// How many times the value masked as `masked` is found in readable, writable memory.
    static func count(masked: [UInt8]) throws -> Int {
        let chunkSize = 1 << 20
        // The scan buffer is outside the heap and left out of the scan: it holds masked memory.
        guard let buffer = mmap(nil, chunkSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            buffer != MAP_FAILED
        else { throw OpenBaoTestError(description: "mmap failed") }
        defer { munmap(buffer, chunkSize) }
        let own = UInt(bitPattern: buffer)
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        let memory = open("/proc/self/mem", O_RDONLY)
        guard memory >= 0 else { throw OpenBaoTestError(description: "cannot open /proc/self/mem") }
        defer { close(memory) }
        var found = 0
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("rw") else { continue }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(String(range[0]), radix: 16),
                let end = UInt(String(range[1]), radix: 16),
                start != own
            else { continue }
            var offset = start
            while offset < end {
                // Chunks overlap by the needle's length, so a copy across a boundary is seen once.
                let length = Int(min(UInt(chunkSize), end - offset))
                let read = pread(memory, buffer, length, off_t(Int64(bitPattern: UInt64(offset))))
                guard read > 0 else { break }
                found += occurrences(of: masked, in: UnsafeRawBufferPointer(start: buffer, count: read))
                if read < length || offset + UInt(read) >= end { break }
                // The overlap: back up by the needle's length less one byte.
                offset += UInt(read - (masked.count - 1))
            }
        }
        return found
    }

    /// Copies of the value: the plain prefix (not secret) is searched for with `memchr` and `memcmp`, and
    /// what follows it is compared masked.
    private static func occurrences(of masked: [UInt8], in haystack: UnsafeRawBufferPointer) -> Int {
        guard let base = haystack.baseAddress else { return 0 }
        let anchor = Array(prefix.utf8)
        let tail = Array(masked[anchor.count...])
        var count = 0
        var position = 0
        while position + masked.count <= haystack.count {
            // memchr for the first byte, then memcmp: memmem is a GNU extension Glibc's module hides.
            guard let hit = memchr(base + position, Int32(anchor[0]), haystack.count - position) else { break }
            if base.distance(to: UnsafeRawPointer(hit)) + masked.count > haystack.count { break }
            if anchor.withUnsafeBytes({ memcmp(hit, $0.baseAddress!, anchor.count) }) != 0 {
                position = base.distance(to: UnsafeRawPointer(hit)) + 1
                continue
            }
            let at = base.distance(to: UnsafeRawPointer(hit))
            guard at + masked.count <= haystack.count else { break }
            let following = UnsafeRawBufferPointer(start: base + at + anchor.count, count: tail.count)
            if zip(following, tail).allSatisfy({ table[Int($0)] == $1 }) { count += 1 }
            position = at + 1
        }
        return count
    }
}
