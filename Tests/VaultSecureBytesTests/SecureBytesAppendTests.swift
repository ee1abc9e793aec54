import Testing
import VaultTestSupport

@testable import VaultSecureBytes

/// Output that holds secrets (a journal entry, `vault export`, a request body) is written into
/// SecureBytes piece by piece, often through generic code (the JSON and form escapers): each
/// piece must not copy, and leave behind, the whole value.
@Suite("SecureBytes appending sequences")
struct SecureBytesAppendTests {
    /// Appends as a generic escaper does: through the collection protocol.
    private static func append(_ piece: some Sequence<UInt8>, to out: inout some RangeReplaceableCollection<UInt8>) {
        out.append(contentsOf: piece)
    }

    @Test("pieces appended through the collection protocol grow by doubling, contiguous or not, and are zeroed")
    func generic() {
        let releases = ReleaseLog()
        var bytes = SecureBytes([0xAA], releaseObserver: releases.observer())
        for index in 0..<400 {
            if index.isMultiple(of: 2) {
                Self.append([UInt8](repeating: 0x55, count: 5), to: &bytes)
            } else {
                Self.append(repeatElement(UInt8(0x66), count: 5), to: &bytes)
            }
            bytes += [0x77]
        }
        #expect(bytes.count == 2401 && bytes.first == 0xAA && bytes.last == 0x77)
        let sixes = bytes.reduce(0) { $0 + ($1 == 0x66 ? 1 : 0) }
        #expect(sixes == 1000)
        #expect(releases.seen.count <= 14, "grows by doubling: \(releases.seen.count) buffers released")
        #expect(releases.seen.allSatisfy { $0.zeroed })
    }
}
