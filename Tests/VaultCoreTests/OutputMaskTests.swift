import Foundation
import Testing

@testable import VaultCore
@testable import VaultFeatures
@testable import VaultSystem

/// `vault exec`'s output mask in process: the Aho–Corasick automaton, the stream that feeds it
/// piece by piece, and the forms of a value.
@Suite("Output mask")
struct OutputMaskTests {
    /// `input` through a fresh stream of `patterns`, cut into pieces of `piece` bytes (0: one
    /// piece), then flushed.
    func masked(_ input: [UInt8], _ patterns: [[UInt8]], piece: Int = 0) -> [UInt8] {
        var stream = MaskStream(MaskAutomaton(patterns: patterns))
        var output: [UInt8] = []
        let size = piece == 0 ? max(input.count, 1) : piece
        var index = 0
        while index < input.count {
            input[index..<min(index + size, input.count)].withUnsafeBytes { stream.feed($0, into: &output) }
            index += size
        }
        stream.flush(into: &output)
        return output
    }

    func masked(_ input: String, _ patterns: [String], piece: Int = 0) -> String {
        String(decoding: masked(Array(input.utf8), patterns.map { Array($0.utf8) }, piece: piece), as: UTF8.self)
    }

    /// The same masking done the slow way: every occurrence of every pattern, overlapping ones
    /// joined, each run replaced once.
    func reference(_ input: [UInt8], _ patterns: [[UInt8]]) -> [UInt8] {
        var covered = [Bool](repeating: false, count: input.count + 1)
        for pattern in patterns where !pattern.isEmpty && pattern.count <= input.count {
            for start in 0...(input.count - pattern.count) where Array(input[start..<start + pattern.count]) == pattern
            {
                for index in start..<start + pattern.count { covered[index] = true }
            }
        }
        var output: [UInt8] = []
        var index = 0
        while index < input.count {
            if covered[index] {
                output += MaskStream.replacement
                while index < input.count && covered[index] { index += 1 }
            } else {
                output.append(input[index])
                index += 1
            }
        }
        return output
    }

    @Test("each pattern is replaced wherever it is, in one piece or one byte at a time")
    func basics() {
        for piece in [0, 1, 2, 3, 7] {
            #expect(masked("token=s3cret-value end", ["s3cret-value"], piece: piece) == "token=*** end")
            #expect(masked("s3cret-values3cret-value", ["s3cret-value"], piece: piece) == "***")
            #expect(masked("abcd abcdef bcde", ["abcd", "bcdef", "zzzz"], piece: piece) == "*** *** bcde")
            #expect(masked("nothing here", ["s3cret-value"], piece: piece) == "nothing here")
            // A prefix of a pattern at the end is given out as it is.
            #expect(masked("ends with s3cret-va", ["s3cret-value"], piece: piece) == "ends with s3cret-va")
        }
        // Overlapping patterns are one replacement; a longer one that starts earlier wins.
        #expect(masked("xxabcdefyy", ["cdef", "abcdef", "bcd"]) == "xx***yy")
    }

    @Test("bytes without a secret pass unchanged, binary included, however they are cut")
    func binaryPassesThrough() {
        var generator = SystemRandomNumberGenerator()
        let input = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let patterns = [Array("secret-one".utf8), [0xFF, 0x00, 0xFE, 0x01, 0x7F]]
        for piece in [0, 1, 13, 4096] {
            #expect(masked(input, patterns, piece: piece) == reference(input, patterns))
        }
    }

    @Test("random text over a small alphabet: the same as masking by brute force", arguments: [0, 1, 5])
    func matchesReference(piece: Int) {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let patterns = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                (0..<Int.random(in: 1...6, using: &generator)).map { _ in UInt8.random(in: 97...99, using: &generator) }
            }
            let input = (0..<Int.random(in: 0...80, using: &generator)).map { _ in
                UInt8.random(in: 97...100, using: &generator)
            }
            #expect(masked(input, patterns, piece: piece) == reference(input, patterns), "\(patterns) \(input)")
        }
    }

    @Test("a large piece scanned in lanes side by side finds what one scan finds, across the lanes' bounds")
    func lanes() {
        var generator = SystemRandomNumberGenerator()
        for budget in [MaskAutomaton.denseBudget, 1, 40] {
            let patterns = (0..<8).map { _ in
                (0..<Int.random(in: 3...12, using: &generator)).map { _ in UInt8.random(in: 97...99, using: &generator)
                }
            }
            let input = (0..<300_000).map { _ in UInt8.random(in: 97...100, using: &generator) }
            var stream = MaskStream(MaskAutomaton(patterns: patterns, denseBudget: budget))
            var output: [UInt8] = []
            input.withUnsafeBytes { stream.feed($0, into: &output) }
            stream.flush(into: &output)
            #expect(output == reference(input, patterns), "budget \(budget)")
        }
        // Secrets planted across the lanes' bounds (a quarter, a half, three quarters) in text
        // that holds nothing else.
        let secret = Array("planted-secret".utf8)
        var text = [UInt8](repeating: UInt8(ascii: "."), count: 400_000)
        for bound in [100_000, 200_000, 300_000] {
            text.replaceSubrange((bound - 5)..<(bound - 5 + secret.count), with: secret)
        }
        var stream = MaskStream(MaskAutomaton(patterns: [secret]))
        var output: [UInt8] = []
        text.withUnsafeBytes { stream.feed($0, into: &output) }
        stream.flush(into: &output)
        #expect(output.count == text.count - 3 * (secret.count - 3))
        #expect(output == reference(text, [secret]))
    }

    @Test("the deep states without a dense row step as the dense ones do")
    func sparseRows() {
        let patterns = ["alpha-bravo-charlie", "bravo-delta", "charlie-echo"].map { Array($0.utf8) }
        let input = Array("x alpha-bravo-delta charlie-echo alpha-bravo-charlie-echo y".utf8)
        let small = MaskAutomaton(patterns: patterns, denseBudget: 1)
        var stream = MaskStream(small)
        var output: [UInt8] = []
        input.withUnsafeBytes { stream.feed($0, into: &output) }
        stream.flush(into: &output)
        #expect(output == reference(input, patterns))
        #expect(String(decoding: output, as: UTF8.self) == "x alpha-*** *** *** y")
    }

    @Test("held bytes: only a possible beginning of a secret is held, and a flush gives it out")
    func holding() {
        var stream = MaskStream(MaskAutomaton(patterns: [Array("s3cret-value".utf8)]))
        var output: [UInt8] = []
        Array("line one\nand s3cr".utf8).withUnsafeBytes { stream.feed($0, into: &output) }
        #expect(String(decoding: output, as: UTF8.self) == "line one\nand ")
        #expect(stream.isHolding)
        stream.flush(into: &output)
        #expect(!stream.isHolding)
        #expect(String(decoding: output, as: UTF8.self) == "line one\nand s3cr")
        // After a flush the partial match is forgotten: the rest of it is plain text.
        output = []
        Array("et-value\n".utf8).withUnsafeBytes { stream.feed($0, into: &output) }
        #expect(String(decoding: output, as: UTF8.self) == "et-value\n")
    }

    @Test("the forms of a value: encodings tools print, each as the tool prints it")
    func forms() throws {
        let value = Array("pa%ss/wo\"rd+42".utf8)
        let forms = Set(OutputMask.forms(of: value).map { String(decoding: $0, as: UTF8.self) })
        let data = Data(value)
        #expect(forms.contains("pa%ss/wo\"rd+42"))
        #expect(forms.contains(data.base64EncodedString()))
        #expect(forms.contains((data + Data([0x0A])).base64EncodedString()))
        let urlSafe = data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        #expect(forms.contains(urlSafe))
        #expect(forms.contains("pa%25ss%2Fwo%22rd%2B42"))
        #expect(forms.contains(#"pa%ss/wo\"rd+42"#))
        #expect(forms.contains(value.map { String(format: "%02x", $0) }.joined()))
        // Inside longer base64, at each of the three alignments.
        for prefix in ["", "x", "xy"] {
            let encoded = (Data(prefix.utf8) + data + Data("tail".utf8)).base64EncodedString()
            #expect(forms.contains { encoded.contains($0) && $0.count >= 16 }, "alignment \(prefix.count)")
        }
        // A multi-line value: each line on its own (without a CR), lines too short left out.
        let pem = Array("-----BEGIN KEY-----\r\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nab\n-----END KEY-----\n".utf8)
        let lines = Set(OutputMask.forms(of: pem).map { String(decoding: $0, as: UTF8.self) })
        #expect(lines.contains("-----BEGIN KEY-----"))
        #expect(lines.contains("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"))
        #expect(!lines.contains("ab"))
        #expect(OutputMask.forms(of: value).allSatisfy { $0.count >= OutputMask.minimumLength })
    }

    @Test("values too short to mask are named, not masked; empty ones are left out")
    func tooShort() {
        let mask = OutputMask(values: [("PIN", Array("123".utf8)), ("EMPTY", []), ("TOKEN", Array("abcd".utf8))])
        #expect(mask.tooShort == ["PIN"])
        var stream = MaskStream(mask.automaton)
        var output: [UInt8] = []
        Array("123 abcd".utf8).withUnsafeBytes { stream.feed($0, into: &output) }
        stream.flush(into: &output)
        #expect(String(decoding: output, as: UTF8.self) == "123 ***")
    }
}
