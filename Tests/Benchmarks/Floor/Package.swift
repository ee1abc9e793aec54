// swift-tools-version:6.0
// The floor of a start (make bench): a Swift program that prints one line, built with vault's
// release flags (the Makefile's RELEASE_FLAGS), so it pays what any Swift program linked like
// vault pays before its first line of work: the static runtime, its relocations, its
// initialisers. `vault --version` ÷ this program is what vault's own code and libraries add.
import PackageDescription

let package = Package(
    name: "floor",
    targets: [.executableTarget(name: "floor")]
)
