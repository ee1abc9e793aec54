#if canImport(Glibc)
    import Glibc
#endif

/// A line on standard error that counts work done, `migrating: 120/1500`, redrawn in place.
///
/// Drawn only when standard error is a terminal: a log or a pipe gets nothing new. The library
/// reports counts through a callback (``VaultCore/Migration/onProgress``); this decides whether
/// and how to show them, at most ten times a second, and clears the line before the summary.
final class ProgressLine {
    private let label: String
    private let enabled: Bool
    private var drawn = false
    private var shown = -1
    private var lastDraw: UInt64 = 0

    /// A progress line for `label`; it draws only if standard error is a terminal.
    init(_ label: String, terminal: Bool = StandardIO.isTerminal(2)) {
        self.label = label
        self.enabled = terminal
    }

    /// Shows `done` of `total`; the last count (done == total) is always drawn.
    func update(_ done: Int, _ total: Int) {
        guard enabled, done != shown else { return }
        let now = Self.milliseconds()
        guard done >= total || !drawn || now &- lastDraw >= 100 else { return }
        lastDraw = now
        drawn = true
        shown = done
        // Carriage return, then erase to the end of the line: the count is redrawn in place.
        try? StandardIO.write("\r\u{1B}[K\(label): \(done)/\(total)".utf8, to: 2)
    }

    /// Clears the line, so that what is printed next starts at the left margin.
    func finish() {
        guard drawn else { return }
        drawn = false
        try? StandardIO.write("\r\u{1B}[K".utf8, to: 2)
    }

    private static func milliseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000 + UInt64(time.tv_nsec) / 1_000_000
    }
}
