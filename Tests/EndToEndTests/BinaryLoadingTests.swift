import Foundation
import Testing
import VaultTestSupport

/// What the dynamic loader does for the vault binary under test: it has no run path, so a library
/// put beside a copy of vault is never loaded in place of the system's.
@Suite("Binary loading")
struct BinaryLoadingTests {
    @Test("no RUNPATH or RPATH entry is relative or names $ORIGIN")
    func noLocalRunPath() throws {
        let readelf = findExecutable("readelf")
        try requireComponent(readelf == nil ? "readelf is not installed (binutils)" : nil)
        let dynamic = try runTool(readelf!, ["-d", VaultRunner.binary])
        try #require(dynamic.status == 0, "\(dynamic.stderr)")
        // Lines like: 0x...1d (RUNPATH)  Library runpath: [$ORIGIN:/usr/lib/swift/linux]
        for line in dynamic.stdoutText.split(separator: "\n")
        where line.contains("(RUNPATH)") || line.contains("(RPATH)") {
            let list = line.split(separator: "[", maxSplits: 1).last?.split(separator: "]").first ?? ""
            for entry in list.split(separator: ":") {
                #expect(
                    entry.hasPrefix("/") && !entry.contains("$ORIGIN"),
                    "\(VaultRunner.binary) searches \(entry) for libraries (build with --disable-local-rpath, as the Makefile does)"
                )
            }
        }
    }

    @Test("a libsecret-1.so.0 or libsystemd.so.0 planted beside a copy of vault is not loaded")
    func plantedLibrary() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let copy = vault.path("vault")
        try FileManager.default.copyItem(atPath: VaultRunner.binary, toPath: copy)
        let marker = vault.path("planted-library-loaded")
        do {
            try plantLibrary(at: vault.path("libsecret-1.so.0"), marker: marker)
            try plantLibrary(at: vault.path("libsystemd.so.0"), marker: marker)
        } catch let missing as MissingComponent {
            try requireComponent(missing.description)
        }
        // The Secret Service backend loads libsecret before it looks for a bus, and a get loads
        // sd-bus first (the read without libsecret).
        for command in [["ls"], ["get", "token"]] {
            let result = try vault.runProgram(
                copy, ["--backend", "secret-service"] + command,
                env: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(vault.path("no-bus"))"])
            #expect(result.status != 0, "no Secret Service should answer here")
            #expect(
                !FileManager.default.fileExists(atPath: marker),
                "\(command): a planted library was loaded: \(result.stderr)")
        }
    }
}
