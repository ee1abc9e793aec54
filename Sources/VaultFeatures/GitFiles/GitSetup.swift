public import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `vault git setup`: marks vault files in a git repository so that git never line-merges or
/// text-diffs them, and lets this clone diff and merge them with vault.
///
/// - The committed `.gitattributes` says `binary` (no text diff, no line merge, no end-of-line
///   conversion) for every clone, set up or not: a `merge=vault` attribute without a configured
///   driver would fall back to git's text merge, and `-text` alone still line-merges.
/// - The committed `.gitignore` beside it ignores the file's lock (`PATH.lock`, which every
///   write takes and leaves), so that `git status` does not offer it and `git add -A` does not
///   commit it. The lock stays beside the vault file: it must be the same file for every process
///   that writes the vault, another user's or a container's as well as this one's.
/// - This clone's `$GIT_COMMON_DIR/info/attributes`, which takes precedence, says
///   `diff=vault merge=vault`.
/// - The repository's local configuration runs `executable` (an absolute path: a bare `vault`
///   on PATH may be another program of that name) as textconv and merge driver.
public struct GitSetup {
    /// What one setup changed, for the tool to print.
    public enum Change: Sendable, Equatable {
        case attribute(file: String, line: String)
        /// A line of the committed `.gitignore`.
        case ignored(file: String, line: String)
        case configuration(key: String, value: String)
    }

    private let git: GitCommandRunner
    private let executable: String

    /// `environment` is the one git runs with; `executable` is the vault git is to run.
    public init(environment: [String: String], executable: String) {
        self.git = GitCommandRunner(environment: environment)
        self.executable = executable
    }

    /// Sets up `paths` (relative to the current folder, inside its work tree); returns what it
    /// changed, empty when everything was already in place.
    public func run(paths: [String]) throws(VaultError) -> [Change] {
        guard !paths.isEmpty else { throw VaultError(.usage, "no vault file given") }
        let top = try git.output(
            GitArguments.topLevel, what: "find the work tree (is this a git work tree?)")
        let prefix = try git.output(GitArguments.prefix, what: "find the current folder in the work tree")
        var common = try git.output(GitArguments.commonDirectory, what: "find the git folder")
        if !common.hasPrefix("/") { common = FileSystem.canonicalPath(common) }
        let patterns = try paths.map { (path) throws(VaultError) in try Self.pattern(for: path, prefix: prefix) }
        var changes: [Change] = []
        for pattern in patterns {
            let shared = "\(pattern) binary"
            if try Self.appendLine(shared, to: top + "/.gitattributes") {
                changes.append(.attribute(file: ".gitattributes", line: shared))
            }
            let lock = "\(pattern).lock"
            if try Self.appendLine(lock, to: top + "/.gitignore") {
                changes.append(.ignored(file: ".gitignore", line: lock))
            }
            let local = "\(pattern) diff=vault merge=vault"
            try FileSystem.makeDirectories(common + "/info")
            if try Self.appendLine(local, to: common + "/info/attributes") {
                changes.append(.attribute(file: common + "/info/attributes", line: local))
            }
        }
        let quoted = Self.shellQuoted(executable)
        let settings = [
            ("diff.vault.textconv", "\(quoted) git textconv"),
            ("merge.vault.name", "vault: merge a vault file by secret"),
            ("merge.vault.driver", "\(quoted) git merge %O %A %B %P"),
        ]
        for (key, value) in settings {
            let (status, current) = try git.run(GitArguments.localValue(key))
            guard status != 0 || current.trimmingSuffixNewline != value else { continue }
            _ = try git.output(GitArguments.setLocal(key, value), what: "set \(key)")
            changes.append(.configuration(key: key, value: value))
        }
        return changes
    }

    /// The attributes pattern for `path`: anchored at the top of the work tree, so that it
    /// names this one file.
    static func pattern(for path: String, prefix: String) throws(VaultError) -> String {
        let forbidden: Set<Character> = ["*", "?", "[", "]", "\\", "\"", "#", "!"]
        guard !path.isEmpty, !path.contains(where: { $0.isWhitespace || forbidden.contains($0) }) else {
            throw VaultError(
                .usage,
                "'\(path)' cannot be named in .gitattributes as it is",
                remedy: .giveAccepted(forms: "a path without spaces or * ? [ ] \\ \" # !"))
        }
        var parts: [Substring] = []
        for part in (path.hasPrefix("/") ? path : prefix + path).split(separator: "/") {
            switch part {
            case ".": continue
            case "..":
                guard !parts.isEmpty else { throw VaultError(.usage, "'\(path)' is outside the git work tree") }
                parts.removeLast()
            default: parts.append(part)
            }
        }
        guard !path.hasPrefix("/"), !parts.isEmpty else {
            throw VaultError(
                .usage, "'\(path)' names no file below the current folder",
                remedy: .giveAccepted(forms: "the vault file's path relative to the current folder"))
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Appends `line` to the file unless it already holds it; true if it appended.
    ///
    /// The file must be a regular file at `path` itself: a repository can commit `.gitattributes`
    /// as a symbolic link to a file outside it (git refuses to read such a link, and vault must
    /// not write through it), so the last component is opened without following a link, and
    /// without blocking on a FIFO, and what was opened is checked before it is read or written.
    static func appendLine(_ line: String, to path: String) throws(VaultError) -> Bool {
        // Appended in place with the usual mode: the file is the team's (committed) or git's.
        func notRegular(_ kind: String) -> VaultError {
            VaultError(.usage, "\(path) is \(kind), not a regular file in the work tree; nothing was written to it")
        }
        let opened = valueOrErrno {
            open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
        }
        let fd: Int32
        switch opened {
        case .success(let value): fd = value
        case .failure(.tooManySymbolicLinks): throw notRegular("a symbolic link")
        case .failure(let errno): throw systemError("open \(path)", errno)
        }
        defer { close(fd) }
        var st = stat()
        try syscall("stat \(path)") { fstat(fd, &st) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw notRegular("a special file") }
        let text = String(decoding: try FileSystem.readAll(fd, path: path, limit: 1 << 20), as: UTF8.self)
        if text.split(separator: "\n").contains(where: { $0.trimmingCharacters() == line }) { return false }
        let separator = text.isEmpty || text.hasSuffix("\n") ? "" : "\n"
        let bytes = Array((separator + line + "\n").utf8)
        let written = try syscall("write \(path)") { bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
        guard written == bytes.count else { throw VaultError(.other, "cannot write \(path): short write") }
        return true
    }

    /// `text` in single quotes for the shell git runs drivers with.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters() -> String {
        String(self.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}

extension String {
    fileprivate var trimmingSuffixNewline: String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
