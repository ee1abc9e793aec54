import Testing

/// Secret memory is zeroed in one place, `Sources/VaultSecureBytes/Wipe.swift`: every other Swift
/// source goes through `SecureBytes`, `wipe(_:)` or `zeroSecret(_:)`, so a change to how memory
/// is zeroed is made once. Read from the package's sources (``SwiftLiterals``, as the other
/// source rules are).
@Suite("Zeroing in one place")
struct WipeSourceTests {
    /// The one file that may zero memory itself.
    static let owner = "VaultSecureBytes/Wipe.swift"

    /// The functions that zero memory by other means than the owner's, called as `name(`.
    static let zeroingFunctions = ["explicit_bzero", "bzero", "memset", "memset_s", "memset_explicit"]

    /// Whether `code` calls one of ``zeroingFunctions`` or `Data.resetBytes`. Plain text search:
    /// a regex over every line of the sources takes seconds.
    static func zeroes(_ code: Substring) -> Bool {
        if code.contains(".resetBytes(") { return true }
        return zeroingFunctions.contains { name in
            code.ranges(of: name + "(").contains { range in
                guard range.lowerBound > code.startIndex else { return true }
                let before = code[code.index(before: range.lowerBound)]
                return !(before.isLetter || before.isNumber || before == "_")
            }
        }
    }

    /// The lines of `source`'s code (comments and literals left out) that zero memory.
    static func zeroingCalls(in source: String) -> [Int] {
        SwiftLiterals.code(in: source).split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .compactMap { zeroes($0.element) ? $0.offset + 1 : nil }
    }

    @Test("no Swift source but Wipe.swift zeroes memory by itself")
    func oneOwner() throws {
        var ownerCalls = 0
        for (file, source) in try SwiftLiterals.sources(under: "Sources", atLeast: 100) {
            let lines = Self.zeroingCalls(in: source)
            if file == Self.owner {
                ownerCalls = lines.count
            } else {
                for line in lines {
                    Issue.record("Sources/\(file):\(line) zeroes memory itself: use wipe or zeroSecret")
                }
            }
        }
        #expect(ownerCalls == 1, "Wipe.swift should call explicit_bzero once, found \(ownerCalls)")
    }

    @Test("the scanner finds calls in code, not in comments or literals")
    func scanner() {
        let source = """
            explicit_bzero(p, n)
            data.resetBytes(in: 0..<data.count)
            // explicit_bzero(p, n) in a comment
            let x = 1 // then data.resetBytes(in: r)
            memset(p, 0, n); bzero(p, n)
            zeroSecret(buffer)
            let s = "memset(p, 0, n)"
            """
        #expect(Self.zeroingCalls(in: source) == [1, 2, 5])
    }
}
