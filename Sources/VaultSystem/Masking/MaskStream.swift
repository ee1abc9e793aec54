import VaultSecureBytes

/// One output stream with every pattern of a ``MaskAutomaton`` replaced by ``replacement``.
///
/// Bytes are fed as they come, in pieces of any size: a pattern cut across pieces (one byte at
/// a time) is found as in one piece. A byte is given out as soon as no pattern can cover it any
/// more, that is unless it is among the last ones read that may still begin a pattern; those
/// are held until more bytes decide, or until ``flush(into:)`` (the end of the stream, or the
/// caller's timeout) gives them out as they are. Overlapping and adjacent matches become one
/// replacement; bytes outside every match pass unchanged, binary included. The bytes held are
/// at most the longest pattern.
package struct MaskStream {
    /// What a match becomes.
    package static let replacement: [UInt8] = Array("***".utf8)

    private let automaton: MaskAutomaton
    private var state = 0
    /// How many bytes were read.
    private var total = 0
    /// The bytes read from `cursor` on, not given out yet.
    private var held: [UInt8] = []
    private var cursor = 0
    /// Matches not given out yet, in order, disjoint: absolute offsets; `announced` once its
    /// replacement is out (it began before the bytes that may still grow it).
    private var matches: [(start: Int, end: Int, announced: Bool)] = []

    package init(_ automaton: MaskAutomaton) { self.automaton = automaton }

    /// Whether bytes are held back, waiting for more to decide them.
    package var isHolding: Bool { cursor < total }

    /// Reads `bytes` and appends to `output` what is decided.
    package mutating func feed(_ bytes: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        let base = total
        var found: [(start: Int, end: Int)] = []
        state = automaton.scan(bytes, from: state) { end, length in
            found.append((base + end - length, base + end))
        }
        for match in found { record(match.start, match.end) }
        total += bytes.count
        give(upTo: total - automaton.pending(in: state), bytes, base: base, final: false, into: &output)
    }

    /// Gives out every held byte (masked where a match is complete) and forgets the partial
    /// match they began: the end of the stream, or a wait that lasted long enough.
    package mutating func flush(into output: inout [UInt8]) {
        give(upTo: total, UnsafeRawBufferPointer(start: nil, count: 0), base: total, final: true, into: &output)
        state = 0
    }

    private mutating func record(_ start: Int, _ end: Int) {
        var start = start
        var announced = false
        // Ends only grow; a match that overlaps or touches the last ones absorbs them.
        while let last = matches.last, last.end >= start {
            start = min(start, last.start)
            announced = announced || last.announced
            matches.removeLast()
        }
        matches.append((start, end, announced))
    }

    /// Gives out the bytes before `safe` (absolute), which no later match can cover (a later one
    /// starts at `safe` or after, and joins a match ending there); `bytes` is the piece just read,
    /// starting at absolute offset `base`, with `held` before it. `final`: nothing comes later.
    private mutating func give(
        upTo safe: Int, _ bytes: UnsafeRawBufferPointer, base: Int, final: Bool, into output: inout [UInt8]
    ) {
        var position = cursor
        var done = 0
        for index in matches.indices {
            let match = matches[index]
            if match.start >= safe { break }
            append(from: position, to: match.start, bytes, base: base, into: &output)
            if !match.announced { output.append(contentsOf: Self.replacement) }
            if match.end < safe || final {
                position = match.end
                done = index + 1
            } else {
                // It may still grow: its replacement is out, its bytes so far are dropped.
                matches[index].announced = true
                position = safe
                done = index
                break
            }
        }
        if done > 0 { matches.removeFirst(done) }
        if matches.first.map({ $0.start >= safe }) ?? true {
            append(from: position, to: safe, bytes, base: base, into: &output)
            position = max(position, safe)
        }
        // What is left: from `position` to the end, at most the longest pattern.
        var rest: [UInt8] = []
        append(from: position, to: total, bytes, base: base, into: &rest)
        wipe(&held)
        held = rest
        cursor = max(position, cursor)
    }

    /// Appends the bytes at absolute offsets `from..<to` (from `held`, then `bytes`).
    private func append(
        from: Int, to: Int, _ bytes: UnsafeRawBufferPointer, base: Int, into output: inout [UInt8]
    ) {
        guard from < to else { return }
        if from < base {
            output.append(contentsOf: held[(from - cursor)..<(min(to, base) - cursor)])
        }
        if to > base, let start = bytes.baseAddress {
            // Typed, so that the array copies it in one memcpy.
            let first = max(from, base) - base
            output.append(
                contentsOf: UnsafeBufferPointer(
                    start: start.assumingMemoryBound(to: UInt8.self) + first, count: to - base - first))
        }
    }
}
