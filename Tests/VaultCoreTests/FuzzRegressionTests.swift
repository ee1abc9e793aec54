import Foundation
import Testing
import VaultTestSupport

/// Replays the fuzz seed corpus and every input the fuzzers ever crashed on (Tests/Fuzz) through
/// `FuzzHarness`, the same checks `make fuzz` runs, so a fixed bug stays fixed in every `swift test`.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static func inputs(_ target: String) throws -> [(String, [UInt8])] {
        let root = try #require(packageRoot()).appendingPathComponent("Tests/Fuzz")
        var inputs: [(String, [UInt8])] = []
        for folder in ["Corpus", "Regressions"] {
            let directory = root.appendingPathComponent(folder).appendingPathComponent(target)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            for name in names.sorted() where !name.hasPrefix(".") {
                inputs.append(
                    (
                        "\(folder)/\(target)/\(name)",
                        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
                    ))
            }
        }
        return inputs
    }

    @Test("the age layer: seeds and past crashes")
    func age() throws {
        let inputs = try Self.inputs("age")
        #expect(inputs.count >= 5)
        for (name, bytes) in inputs {
            #expect(FuzzHarness.age(bytes) == nil, "\(name): \(FuzzHarness.age(bytes) ?? "")")
        }
    }

    @Test("the SSH key parsers: seeds and past crashes")
    func sshKey() throws {
        let inputs = try Self.inputs("sshkey")
        #expect(inputs.count >= 4)
        for (name, bytes) in inputs {
            #expect(FuzzHarness.sshKey(bytes) == nil, "\(name): \(FuzzHarness.sshKey(bytes) ?? "")")
        }
    }

    @Test("the age plugin protocol: seeds and past crashes")
    func plugin() throws {
        let inputs = try Self.inputs("plugin")
        #expect(inputs.count >= 3)
        for (name, bytes) in inputs {
            #expect(FuzzHarness.plugin(bytes) == nil, "\(name): \(FuzzHarness.plugin(bytes) ?? "")")
        }
    }

    @Test("the vault document: seeds and past crashes")
    func document() throws {
        let inputs = try Self.inputs("document")
        #expect(inputs.count >= 3)
        for (name, bytes) in inputs {
            #expect(FuzzHarness.document(bytes) == nil, "\(name): \(FuzzHarness.document(bytes) ?? "")")
        }
        // Too big to keep as a file: a key of a megabyte must not make a megabyte error message.
        let longKey =
            Array("{\"vault\":1}\n{\"".utf8) + [UInt8](repeating: 0x6B, count: 1 << 20) + Array("\":1}\n".utf8)
        #expect(FuzzHarness.document(longKey) == nil)
    }
}
