import Foundation
import Testing
import VaultTestSupport

/// The shims' ABI checks: a C program that includes the real headers and a shim's copies of their
/// declarations, compiled with `-Werror` (a copy that differs fails to compile) and run.
enum ABICheck {
    /// Compiles `program` against the pkg-config `package`'s headers (and `libraries`), with
    /// Sources/`shim` on the include path, and runs it: its result, or nil once an expectation
    /// has recorded why not. A missing compiler or package is a missing component.
    static func run(_ program: String, package: String, shim: String, libraries: [String] = [])
        throws -> ToolResult?
    {
        let compiler = findExecutable("cc") ?? findExecutable("clang")
        let pkgConfig = findExecutable("pkg-config")
        let flags = try pkgConfig.map { try runTool($0, ["--cflags", "--libs", package], timeout: 30) }
        try requireKeyringComponent(
            compiler == nil ? "no C compiler" : flags?.status != 0 ? "no \(package) headers (its -dev package)" : nil)
        guard let compiler, let flags else { return nil }
        let root = try #require(packageRoot(), "no Package.swift above the tests")
        let include = root.appendingPathComponent("Sources/\(shim)").path

        let directory = try makeTemporaryDirectory(prefix: "vault-abi")
        defer { removeTemporaryDirectory(directory) }
        let source = directory.appendingPathComponent("check.c")
        let binary = directory.appendingPathComponent("check")
        try program.write(to: source, atomically: true, encoding: .utf8)
        let arguments =
            ["-std=gnu11", "-Wall", "-Werror", "-I", include, source.path, "-o", binary.path]
            + flags.stdoutText.split(whereSeparator: \.isWhitespace).map(String.init) + libraries
        let compiled = try runTool(compiler, arguments, timeout: 30)
        #expect(compiled.status == 0, "the check does not compile:\n\(compiled.stderr)")
        guard compiled.status == 0 else { return nil }
        let ran = try runTool(binary.path, [], timeout: 30)
        #expect(ran.status == 0, "\(ran.stderr)")
        return ran
    }
}
