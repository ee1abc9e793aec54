import FoundationEssentials
import Testing
import VaultTestSupport

@testable import VaultSecureBytes

/// Secret bytes zero their storage when released, and copies are independent (copy-on-write).
@Suite("SecureBytes")
struct SecureBytesTests {
    private static func address(_ bytes: SecureBytes) -> UInt {
        bytes.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
    }

    @Test("the storage is zeroed when the last copy is released")
    func zeroedOnRelease() {
        let releases = ReleaseLog()
        var address: UInt = 0
        do {
            let secret = SecureBytes(Array("hunter2".utf8), releaseObserver: releases.observer())
            address = Self.address(secret)
            let copy = secret
            #expect(Self.address(copy) == address, "a copy shares the storage")
            #expect(Array(copy) == Array("hunter2".utf8))
        }
        #expect(releases.seen.count == 1)
        #expect(releases.seen.first?.address == address)
        #expect(releases.seen.first?.zeroed == true)
    }

    @Test("writing to a copy copies the storage; the original is unchanged; both are zeroed")
    func copyOnWrite() {
        let releases = ReleaseLog()
        var original = SecureBytes([1, 2, 3], releaseObserver: releases.observer())
        do {
            var copy = original
            copy[0] = 9
            copy.append(4)
            #expect(Self.address(copy) != Self.address(original))
            #expect(copy == [9, 2, 3, 4])
            #expect(original == [1, 2, 3])
        }
        // The copy's two buffers: the one the write made, and the larger one the append made.
        #expect(releases.seen.count == 2 && releases.seen.allSatisfy(\.zeroed), "the copy")
        let first = Self.address(original)
        original[1] = 7  // held alone: written in place
        #expect(Self.address(original) == first && original == [1, 7, 3])
        original = SecureBytes()
        #expect(releases.seen.count == 3 && releases.seen.allSatisfy(\.zeroed))
        #expect(releases.seen.last?.address == first)
    }

    @Test("growing moves the bytes to a larger buffer and zeroes the old one")
    func growing() {
        let releases = ReleaseLog()
        var bytes = SecureBytes([0xAA], releaseObserver: releases.observer())
        for index in 0..<1000 { bytes.append(UInt8(truncatingIfNeeded: index)) }
        #expect(bytes.count == 1001 && bytes.first == 0xAA && bytes.last == UInt8(truncatingIfNeeded: 999))
        #expect(releases.seen.count >= 5 && releases.seen.allSatisfy(\.zeroed))
        bytes.removeSubrange(1...)
        #expect(bytes == [0xAA])
        bytes.withUnsafeBytes { buffer in
            // The removed tail, still inside the storage, holds nothing of the secret.
            let spare = UnsafeRawBufferPointer(start: buffer.baseAddress! + 1, count: bytes.storage.capacity - 1)
            #expect(spare.allSatisfy { $0 == 0 })
        }
    }

    @Test("appending raw chunks: one copy each, by doubling, zeroing every outgrown buffer, copy-on-write")
    func appendingChunks() {
        let releases = ReleaseLog()
        var bytes = SecureBytes([0xAA], releaseObserver: releases.observer())
        let shared = bytes
        let chunk = [UInt8](repeating: 0x55, count: 100)
        for _ in 0..<20 { chunk.withUnsafeBytes { bytes.append(contentsOf: $0) } }
        #expect(bytes.count == 2001 && bytes.first == 0xAA && bytes.allSatisfy { $0 == 0xAA || $0 == 0x55 })
        #expect(shared == [0xAA], "the copy taken before is unchanged")
        #expect(releases.seen.count >= 3 && releases.seen.count <= 8, "grows by doubling: \(releases.seen.count)")
        #expect(releases.seen.allSatisfy { $0.zeroed })
    }

    @Test("taking an array copies it and zeroes the array")
    func takingAnArray() {
        var array = Array("hunter2".utf8)
        let bytes = SecureBytes(taking: &array)
        #expect(bytes == Array("hunter2".utf8))
        #expect(array == [UInt8](repeating: 0, count: 7))
    }

    @Test("taking Data copies it and zeroes the Data; wiping Data zeroes it in place")
    func takingData() {
        var data = Data("hunter2".utf8)
        let bytes = SecureBytes(taking: &data)
        #expect(bytes == Array("hunter2".utf8))
        #expect(data == Data(count: 7))
        var other = Data("s3cret".utf8)
        wipe(&other)
        #expect(other == Data(count: 6))
    }

    @Test("collection behaviour matches an array's")
    func collection() {
        var bytes = SecureBytes(Array("abcdef".utf8))
        bytes.replaceSubrange(1..<3, with: Array("XYZ".utf8))
        #expect(Array(bytes) == Array("aXYZdef".utf8))
        #expect(bytes == Array("aXYZdef".utf8) && bytes != Array("aXYZde".utf8))
        #expect(SecureBytes([1, 2]) == SecureBytes([1, 2]) && SecureBytes([1, 2]) != SecureBytes([1, 3]))
        #expect(Set([SecureBytes([1]), SecureBytes([1]), SecureBytes([2])]).count == 2)
        #expect(bytes.unprotectedArray == Array("aXYZdef".utf8))
        #expect(SecureBytes(zeros: 3) == [0, 0, 0] && SecureBytes().isEmpty)
        #expect("\(SecureBytes([1, 2, 3]))" == "3 secret bytes")
        #expect(bytes.withContiguousStorageIfAvailable { Array($0) } == Array("aXYZdef".utf8))
    }
}

/// Values that share an arena's buffers, and base64 read and written in place.
@Suite("SecureBytes arena and base64")
struct SecureBytesArenaTests {
    @Test("arena values are slices of one buffer, zeroed when the arena and the last slice are released")
    func arenaSlices() {
        let releases = ReleaseLog()
        var kept: SecureBytes?
        var address: UInt = 0
        do {
            var arena = SecureBytes.Arena(bufferSize: 64, releaseObserver: releases.observer())
            let first = arena.make(maximumCount: 4) { room in
                room.copyBytes(from: [1, 2, 3])
                return 3
            }
            let second = arena.make(maximumCount: 2) { room in
                room.copyBytes(from: [4, 5])
                return 2
            }
            #expect(first == [1, 2, 3] && second == [4, 5])
            let start = first!.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
            address = start
            #expect(second!.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) } == start + 3, "one buffer, no gap")
            let failed = arena.make(maximumCount: 3) { room in
                room.copyBytes(from: [9, 9])
                return nil
            }
            #expect(failed == nil)
            let third = arena.make(maximumCount: 1) { room in
                room[0] = 6
                return 1
            }
            // The failed value's room was zeroed and handed out again; what follows it is zeros.
            #expect(third == [6])
            #expect(third!.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) } == start + 5)
            #expect(
                UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: start + 6), count: 2).allSatisfy { $0 == 0 })
            kept = second
            var written = first!
            written[0] = 7  // a slice is shared: writing copies it
            #expect(written == [7, 2, 3] && first == [1, 2, 3])
            #expect(written.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) } != start)
        }
        // Only the written copy is gone: a slice still holds the shared buffer.
        #expect(releases.seen.count == 1 && releases.seen.first?.address != address)
        #expect(kept == [4, 5])
        kept = nil
        #expect(releases.seen.count == 2 && releases.seen.last?.address == address)
        #expect(releases.seen.allSatisfy { $0.zeroed })
    }

    @Test("base64 written in place reads back; only canonical padded base64 is read")
    func base64() {
        var arena = SecureBytes.Arena(bufferSize: 1024)
        for length in 0..<40 {
            let bytes = SecureBytes((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
            var text = SecureBytes()
            text.appendBase64(of: bytes)
            #expect(text.unprotectedArray == Base64.encodePadded(bytes.unprotectedArray))
            let decoded = text.withUnsafeBytes { arena.decodingBase64($0) }
            #expect(decoded == bytes.unprotectedArray)
        }
        for text in ["YR==", "YQ", "YQ=", "Y===", "====", "YQ==YQ==", "Y Q==", "YQ==\n", "Zm9v!"] {
            #expect(Array(text.utf8).withUnsafeBytes { arena.decodingBase64($0) } == nil, "\(text)")
        }
    }
}
