import Foundation
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultCore
@testable import VaultOpenBao
@testable import VaultStorage
@testable import VaultSystem

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

    @Test("a check-and-set write whose answers were lost is sent again, written once and acknowledged")
    func lostAnswer() throws {
        let server = try OpenBaoDevServer.shared()
        try requireComponent(findExecutable("python3") == nil ? "python3 is not installed" : nil)
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let root = try #require(packageRoot())
        let script = root.appendingPathComponent("Tests/fault-proxy.py").path
        let port = try freeLoopbackPort()
        let pid = try spawnChild(
            try #require(findExecutable("python3")), [script, String(port), server.address, "lose-answers", "2"],
            environment: nil,
            input: .null)
        BackgroundProcesses.register(pid)
        defer { BackgroundProcesses.stop(pid) }
        try #require(waitForLoopbackPort(port, timeout: 20), "the proxy did not listen")

        let store = OpenBaoStore.testStore(server, mount: mount, addresses: ["http://127.0.0.1:\(port)"])
        var record = SecretRecord(
            name: try SecretName(service: "s", account: "lost"), value: Array("landed once".utf8),
            metadata: SecretMetadata(created: .now(), updated: .now(), expires: .now().adding(seconds: 3600)))
        try store.write(record)
        let metadata = try #require(
            try store.metadata(OpenBaoPath.path(of: record.name), deadline: Deadline(seconds: 10)))
        #expect(metadata.version == 1, "the write was made twice")
        let read = try #require(try store.read(record.name))
        #expect(read.value == Array("landed once".utf8))
        #expect(read.metadata.expires != nil, "the metadata patch after the retried write")

        // Another writer's version in between is still a conflict, not taken for this write's.
        record.value = SecureBytes(Array("second".utf8))
        store.beforeWrite = {
            _ = try? server.bao(["kv", "put", "-mount=\(mount)", "vault/s/lost", "value=other"])
        }
        expectFailure(.conflict) { try store.write(record) }
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
        #expect(refused.remedy == .useHTTPS, "\(refused)")
        for hidden in ["someone", "pass-not-shown", "path-not-shown", "query-not-shown", "t-not-shown"] {
            #expect(!refused.message.contains(hidden), "\(refused.message)")
        }
        // One remote http node among loopback ones is enough to refuse.
        for address in [
            "http://127.0.0.1:8200,http://10.0.0.2:8200", "http://localhost.example.com:8200",
            "http://127.0.0.1.example.com:8200", "http://bao:8200",
        ] {
            let error = expectFailure(.usage, "\(address)") { try settings(address) }
            #expect(error?.remedy == .useHTTPS, "\(String(describing: error))")
        }
        #expect(try settings(remote, allow: true).addresses.count == 1)
        for allowed in [
            "https://bao.example.com:8200", "http://127.0.0.1:8200", "http://127.8.9.10", "http://localhost:8200",
            "http://LOCALHOST:1/", "http://[::1]:8200", "https://a:1,https://b:2",
        ] {
            #expect(throws: Never.self, "\(allowed)") { try settings(allowed) }
        }
        // An address that is not a URL is not quoted either: it may hold a password.
        let notURL = try #require(expectFailure(.usage) { try settings("someone:pass-not-shown@bao:8200") })
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
                printf %s "$v" | tr '\(MemoryScan.alphabet)' '\(MemoryScan.masked)'
                """, "sh", server.bao, mount,
            ], environment: server.environment)
        try #require(put.status == 0, "\(put.stderr)")
        let masked = put.stdout
        try #require(masked.count == MemoryScan.prefix.utf8.count + 32)

        let scan = try MemoryScan(masked: masked)
        let name = try SecretName(service: "mem", account: "value")
        var whileHeld = MemoryScan.Copies()
        var afterGet = MemoryScan.Copies()
        var readBack: [UInt8] = []
        do {
            let store = OpenBaoStore.testStore(server, mount: mount)
            do {
                // Nothing allocates between the read and the scan (see MemoryScan).
                let record = try store.read(name)
                whileHeld = scan.count()
                readBack = MemoryScan.mask(record?.value ?? SecureBytes())
            }
            afterGet = scan.count()
        }
        // The store and its libcurl handle are released.
        let afterClose = scan.count()
        print(
            "OpenBao get: copies of the value in memory (vault's + libcurl's receive buffer): \(whileHeld.vault) + \(whileHeld.libcurl) while the record is held, \(afterGet.vault) + \(afterGet.libcurl) after, \(afterClose.vault) + \(afterClose.libcurl) once the store is closed"
        )
        #expect(readBack == masked, "the value read")
        // The scan finds the one copy of vault's there must be: the record's.
        #expect(whileHeld.vault == 1, "copies of the value while the record holds it")
        #expect(afterGet.vault == 0, "copies of the value vault left after a get")
        // libcurl keeps the last response in its receive buffer while its handle is open
        // (docs/design.md), and zeroes it when it frees it (curl_global_init_mem in the shim).
        #expect(afterGet.libcurl <= 1)
        #expect(afterClose == MemoryScan.Copies(), "copies of the value left once the store is closed")
    }
}

/// Counts copies of a value in this process's writable memory (`/proc/self/maps` and
/// `/proc/self/mem`), given the value masked, so that the needle itself is not a copy.
///
/// The value is ``prefix`` and 32 hex digits; the mask maps each of `0-9a-z` to the letter or
/// digit 7 places further (so no byte maps to itself) and every other byte to itself.
/// ``count()`` allocates nothing: a freed, unwiped copy would otherwise be overwritten by the
/// scan's own allocations (glibc hands the last freed chunk of a size out first) before it is
/// seen. Its buffers are mapped once, outside the heap, and left out of the scan.
final class MemoryScan {
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

    private let anchor: [UInt8]
    private let tail: [UInt8]
    private let table = MemoryScan.table
    private let chunkSize = 1 << 20
    private let mapsSize = 1 << 20
    /// The scan buffer, then the buffer /proc/self/maps is read into.
    private let buffers: UnsafeMutableRawPointer
    private let memory: Int32

    init(masked: [UInt8]) throws {
        anchor = Array(Self.prefix.utf8)
        tail = Array(masked[anchor.count...])
        guard let mapped = mmap(nil, chunkSize + mapsSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            mapped != MAP_FAILED
        else { throw OpenBaoTestError(description: "mmap failed") }
        buffers = mapped
        memory = open("/proc/self/mem", O_RDONLY)
        guard memory >= 0 else { throw OpenBaoTestError(description: "cannot open /proc/self/mem") }
    }

    deinit {
        munmap(buffers, chunkSize + mapsSize)
        close(memory)
    }

    /// Copies of the value: vault's, and those in libcurl's receive buffer.
    struct Copies: Equatable {
        var vault = 0
        var libcurl = 0

        mutating func add(_ other: Copies) {
            vault += other.vault
            libcurl += other.libcurl
        }
    }

    /// The copies of the value that readable, writable memory holds.
    func count() -> Copies {
        let maps = buffers + chunkSize
        let file = open("/proc/self/maps", O_RDONLY)
        guard file >= 0 else { return Copies(vault: -1) }
        var length = 0
        while length < mapsSize {
            let count = read(file, maps + length, mapsSize - length)
            guard count > 0 else { break }
            length += count
        }
        close(file)
        let text = UnsafeRawBufferPointer(start: maps, count: length)
        let own = UInt(bitPattern: buffers)
        let ownEnd = own + UInt(chunkSize + mapsSize)
        var found = Copies()
        var position = 0
        // Each line: "start-end perms ...".
        while position < length {
            var start: UInt = 0
            while position < length, let digit = hexValue(text[position]) {
                start = start << 4 | digit
                position += 1
            }
            position += 1  // "-"
            var end: UInt = 0
            while position < length, let digit = hexValue(text[position]) {
                end = end << 4 | digit
                position += 1
            }
            position += 1  // " "
            let writable =
                position + 1 < length && text[position] == UInt8(ascii: "r") && text[position + 1] == UInt8(ascii: "w")
            while position < length, text[position] != UInt8(ascii: "\n") { position += 1 }
            position += 1
            guard writable, start < end else { continue }
            // Around the scan's own buffers.
            if start < own { found.add(scan(from: start, to: min(end, own))) }
            if end > ownEnd { found.add(scan(from: max(start, ownEnd), to: end)) }
        }
        return found
    }

    private func hexValue(_ byte: UInt8) -> UInt? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt(byte - UInt8(ascii: "a") + 10)
        default: nil
        }
    }

    private func scan(from start: UInt, to end: UInt) -> Copies {
        var found = Copies()
        var offset = start
        let needle = anchor.count + tail.count
        while offset < end {
            let length = Int(min(UInt(chunkSize), end - offset))
            let read = pread(memory, buffers, length, off_t(Int64(bitPattern: UInt64(offset))))
            guard read > 0 else { break }
            found.add(occurrences(in: UnsafeRawBufferPointer(start: buffers, count: read)))
            if read < length || offset + UInt(read) >= end { break }
            // Chunks overlap by the needle's length less one byte: a copy across a boundary is
            // seen once.
            offset += UInt(read - (needle - 1))
        }
        return found
    }

    /// Copies in one chunk: the plain prefix (not secret) is found with `memchr` and `memcmp`,
    /// and what follows it is compared masked.
    private func occurrences(in haystack: UnsafeRawBufferPointer) -> Copies {
        guard let base = haystack.baseAddress else { return Copies() }
        let needle = anchor.count + tail.count
        var count = Copies()
        var position = 0
        while position + needle <= haystack.count {
            // memmem is a GNU extension that Glibc's module does not show.
            guard let hit = memchr(base + position, Int32(anchor[0]), haystack.count - position) else { break }
            let at = base.distance(to: UnsafeRawPointer(hit))
            if at + needle > haystack.count { break }
            position = at + 1
            guard anchor.withUnsafeBytes({ memcmp(hit, $0.baseAddress!, anchor.count) }) == 0 else { continue }
            var matches = true
            for index in 0..<tail.count where table[Int(haystack[at + anchor.count + index])] != tail[index] {
                matches = false
                break
            }
            guard matches else { continue }
            if afterHeaders(at, in: haystack) { count.libcurl += 1 } else { count.vault += 1 }
        }
        return count
    }

    /// Whether the copy at `at` is in a raw HTTP response (header lines, an empty line, then the
    /// body): libcurl's receive buffer. vault's buffers hold a body alone (the shim collects
    /// headers and body apart).
    private func afterHeaders(_ at: Int, in haystack: UnsafeRawBufferPointer) -> Bool {
        var index = at - 4
        while index >= max(0, at - 4096) {
            if haystack[index] == 0x0D, haystack[index + 1] == 0x0A, haystack[index + 2] == 0x0D,
                haystack[index + 3] == 0x0A
            {
                return haystack[index + 4] == UInt8(ascii: "{")
            }
            index -= 1
        }
        return false
    }
}
