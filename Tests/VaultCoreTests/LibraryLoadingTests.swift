import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore
@testable import VaultSecretService
@testable import VaultStorage

/// How the shim opens libsecret: never by a path relative to the current directory.
@Suite("Loading libsecret")
struct LibraryLoadingTests {
    @Test("a relative library path is refused without being opened; an absolute one is opened")
    func relativePath() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let marker = directory.appendingPathComponent("loaded").path
        let library = directory.appendingPathComponent("libsecret-1.so.0").path
        do {
            try plantLibrary(at: library, marker: marker)
        } catch let missing as MissingComponent {
            try requireComponent(missing.description)
        }
        // The same library, named relative to the current directory.
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        let relative = String(repeating: "../", count: depth) + library.dropFirst()
        let refused = expectFailure(.unavailable) {
            _ = try SecretServiceStore(timeout: 1, library: relative, directLibrary: nil).list(service: nil)
        }
        #expect(refused?.message.contains("a relative path") == true, "\(String(describing: refused))")
        #expect(!FileManager.default.fileExists(atPath: marker), "the library was opened")
        // Named by its absolute path it is opened (and lacks libsecret's functions): the marker
        // shows that this test sees a load when there is one.
        expectFailure(.unavailable) {
            _ = try SecretServiceStore(timeout: 1, library: library, directLibrary: nil).list(service: nil)
        }
        #expect(FileManager.default.fileExists(atPath: marker))
    }
}
