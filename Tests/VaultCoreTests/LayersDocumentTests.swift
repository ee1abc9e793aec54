import Foundation
import Testing
import VaultTestSupport

/// design.md's picture of the layers is the package's targets: each target of Package.swift has
/// its line in the picture, and each name the picture gives a line to is a target, so that the
/// picture cannot keep a layer the compiler no longer has (or miss one it has).
@Suite("Layers in design.md are Package.swift's targets")
struct LayersDocumentTests {
    /// The names of Package.swift's source targets (not the test targets and their helpers).
    static func targets(in manifest: String) -> Set<String> {
        let declared = manifest.matches(of: /\.(?:target|executableTarget)\(\s*name:\s*"(\w+)"(?<rest>[^)]*)/)
        return Set(declared.filter { !$0.output.rest.contains("path: \"Tests/") }.map { String($0.output.1) })
    }

    /// The layers the first code block under "## Layers" draws.
    static func layers(in design: String) throws -> Set<String> {
        let section = try #require(design.split(separator: "## Layers", maxSplits: 1).last)
        let block = try #require(section.split(separator: "```", omittingEmptySubsequences: false).dropFirst().first)
        // A layer's line starts with its name, or draws a branch to it ("├─ VaultAgeFile"); the
        // lines that go on describing a layer start with the tree's trunk or spaces.
        let names = block.split(separator: "\n").compactMap { line -> String? in
            let trunk = line.drop(while: { $0 == " " || $0 == "│" })
            let branch = trunk.hasPrefix("├─ ") || trunk.hasPrefix("└─ ") ? trunk.dropFirst(3) : line[...]
            let name = branch.prefix(while: { $0.isLetter })
            return name.isEmpty ? nil : String(name)
        }
        return Set(names)
    }

    @Test("every target has its layer and every layer is a target")
    func pictureMatchesManifest() throws {
        let root = try #require(packageRoot(), "no Package.swift above the tests")
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let design = try String(contentsOf: root.appendingPathComponent("docs/design.md"), encoding: .utf8)
        let targets = Self.targets(in: manifest)
        #expect(targets.count >= 15, "Package.swift's targets were not found: \(targets.sorted())")
        let layers = try Self.layers(in: design)
        #expect(targets.subtracting(layers).isEmpty, "targets design.md's picture leaves out")
        #expect(layers.subtracting(targets).isEmpty, "layers design.md draws that are no target")
    }
}
