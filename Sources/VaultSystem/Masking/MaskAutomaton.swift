import VaultSecureBytes

/// An Aho–Corasick automaton over bytes: it finds every pattern in a stream in one pass, one
/// table step per byte, whatever the number of patterns (`vault exec`'s output mask).
///
/// Bytes are mapped to classes first (each byte found in a pattern has its own, every other
/// byte shares class 0), so that a row of the table is as wide as the patterns' alphabet, not
/// 256. States are numbered breadth-first; the first ``denseCount`` have a full row of the goto
/// function (failure links already followed), the deeper ones, which text rarely reaches, keep
/// only their children and follow failure links, so that the table stays within a few MiB
/// however many patterns there are.
///
/// The tables are derived from secrets: they are zeroed when the automaton is released.
package final class MaskAutomaton {
    /// The class of each byte.
    private let classes: UnsafeMutableBufferPointer<UInt8>
    /// How many classes there are: the width of a dense row.
    private let classCount: Int
    /// The length of the longest pattern: after that many bytes from the start state, the
    /// automaton is where it would be after the whole text.
    private let longestPattern: Int
    /// For the first ``denseCount`` states, `classCount` entries each: in bit 0, whether the next
    /// state needs a look (a pattern ends there, or it has no dense row), so that a step is one
    /// load and one test; in bit 1, whether it has no dense row; above, the offset of its row
    /// (its number times `classCount`), or its number when it has no row.
    private let dense: UnsafeMutableBufferPointer<Int32>
    /// How many states have a dense row.
    private let denseCount: Int
    /// Each state's failure link, depth (length of its string) and the length of the longest
    /// pattern that ends there (0: none).
    private let failure: UnsafeMutableBufferPointer<Int32>
    private let depth: UnsafeMutableBufferPointer<Int32>
    private let longest: UnsafeMutableBufferPointer<Int32>
    /// The children of each sparse state: `childStart[s]..<childStart[s + 1]` in `childClass`
    /// and `childState`.
    private let childStart: UnsafeMutableBufferPointer<Int32>
    private let childClass: UnsafeMutableBufferPointer<UInt8>
    private let childState: UnsafeMutableBufferPointer<Int32>

    /// The most entries the dense rows may have: 512 KiB of table, which stays in a core's
    /// cache. Breadth-first, they are the shallow states, where text that holds no secret
    /// spends nearly all its time.
    static let denseBudget = 1 << 17

    /// Builds the automaton of `patterns` (empty ones are ignored).
    package init(patterns: [[UInt8]], denseBudget: Int = MaskAutomaton.denseBudget) {
        var classOf = [UInt8](repeating: 0, count: 256)
        var count = 1
        for pattern in patterns {
            for byte in pattern where classOf[Int(byte)] == 0 && count < 256 {
                classOf[Int(byte)] = UInt8(count)
                count += 1
            }
        }
        // With all 256 bytes in patterns, the last one found keeps class 0, alone.
        classCount = count
        longestPattern = patterns.map(\.count).max() ?? 0
        classes = .allocate(capacity: 256)
        _ = classes.initialize(from: classOf)

        // The trie, its nodes in order of creation.
        var edges: [Int: Int32] = [:]
        var nodeDepth: [Int32] = [0]
        var ends: [Bool] = [false]
        for pattern in patterns where !pattern.isEmpty {
            var node = 0
            for byte in pattern {
                let key = node * classCount + Int(classOf[Int(byte)])
                if let next = edges[key] {
                    node = Int(next)
                } else {
                    edges[key] = Int32(nodeDepth.count)
                    node = nodeDepth.count
                    nodeDepth.append(0)  // set breadth-first below
                    ends.append(false)
                }
            }
            ends[node] = true
        }
        let nodeCount = nodeDepth.count
        var childrenOf = [[(cls: UInt8, node: Int32)]](repeating: [], count: nodeCount)
        for (key, node) in edges { childrenOf[key / classCount].append((UInt8(key % classCount), node)) }
        for index in childrenOf.indices { childrenOf[index].sort { $0.cls < $1.cls } }

        // Breadth-first order, failure links and longest matches.
        var order = [0]
        var number = [Int32](repeating: 0, count: nodeCount)
        var nodeFailure = [Int32](repeating: 0, count: nodeCount)
        var nodeLongest = [Int32](repeating: 0, count: nodeCount)
        nodeDepth[0] = 0
        var head = 0
        while head < order.count {
            let node = order[head]
            number[node] = Int32(head)
            head += 1
            for (cls, child) in childrenOf[node] {
                let child = Int(child)
                nodeDepth[child] = nodeDepth[node] + 1
                if node != 0 {
                    var link = Int(nodeFailure[node])
                    while true {
                        if let next = childrenOf[link].first(where: { $0.cls == cls }) {
                            nodeFailure[child] = next.node
                            break
                        }
                        if link == 0 { break }
                        link = Int(nodeFailure[link])
                    }
                }
                order.append(child)
            }
            nodeLongest[node] = ends[node] ? nodeDepth[node] : nodeLongest[Int(nodeFailure[node])]
        }

        // Tables in breadth-first numbering.
        failure = .allocate(capacity: nodeCount)
        depth = .allocate(capacity: nodeCount)
        longest = .allocate(capacity: nodeCount)
        childStart = .allocate(capacity: nodeCount + 1)
        childClass = .allocate(capacity: max(edges.count, 1))
        childState = .allocate(capacity: max(edges.count, 1))
        var childIndex = 0
        for (state, node) in order.enumerated() {
            failure[state] = number[Int(nodeFailure[node])]
            depth[state] = nodeDepth[node]
            longest[state] = nodeLongest[node]
            childStart[state] = Int32(childIndex)
            for (cls, child) in childrenOf[node] {
                childClass[childIndex] = cls
                childState[childIndex] = number[Int(child)]
                childIndex += 1
            }
        }
        childStart[nodeCount] = Int32(childIndex)
        denseCount = max(1, min(nodeCount, denseBudget / classCount))
        dense = .allocate(capacity: denseCount * classCount)
        for state in 0..<denseCount {
            for cls in 0..<classCount {
                var next: Int32 = 0
                if let child = Self.child(of: state, cls: UInt8(cls), childStart, childClass, childState) {
                    next = child
                } else if state != 0 {
                    // The failure link is shallower, so numbered earlier: its row is done.
                    next = Int32(Self.target(dense[Int(failure[state]) * classCount + cls], classCount))
                }
                let sparse = Int(next) >= denseCount
                let look = longest[Int(next)] > 0 || sparse
                let value = sparse ? Int(next) : Int(next) * classCount
                dense[state * classCount + cls] = Int32(value << 2 | (sparse ? 2 : 0) | (look ? 1 : 0))
            }
        }
    }

    deinit {
        zeroSecret(UnsafeMutableRawBufferPointer(dense))
        dense.deallocate()
        for buffer in [failure, depth, longest, childStart, childState] {
            zeroSecret(UnsafeMutableRawBufferPointer(buffer))
            buffer.deallocate()
        }
        for buffer in [classes, childClass] {
            zeroSecret(UnsafeMutableRawBufferPointer(buffer))
            buffer.deallocate()
        }
    }

    private static func child(
        of state: Int, cls: UInt8, _ start: UnsafeMutableBufferPointer<Int32>,
        _ classes: UnsafeMutableBufferPointer<UInt8>,
        _ states: UnsafeMutableBufferPointer<Int32>
    ) -> Int32? {
        for index in Int(start[state])..<Int(start[state + 1]) where classes[index] == cls { return states[index] }
        return nil
    }

    /// The state a dense entry leads to.
    @inline(__always)
    private static func target(_ entry: Int32, _ width: Int) -> Int {
        entry & 2 != 0 ? Int(entry >> 2) : Int(entry >> 2) / width
    }

    /// The state after `state` reads a byte of class `cls`, for a state without a dense row.
    private func sparseStep(_ state: Int, _ cls: UInt8) -> Int {
        var state = state
        while state >= denseCount {
            if let child = Self.child(of: state, cls: cls, childStart, childClass, childState) { return Int(child) }
            state = Int(failure[state])
        }
        return Self.target(dense[state * classCount + Int(cls)], classCount)
    }

    /// How many parts of a large piece are scanned side by side.
    static let laneCount = 4

    /// Runs `bytes` from `state`; calls `found(end, length)` for each position where a pattern
    /// ends, in order (`end` is the offset just past it in `bytes`; `length` the longest one
    /// ending there). Returns the state reached.
    ///
    /// A step waits for the table load of the step before, so one scan runs at the memory's
    /// latency, not its speed. A large piece is cut in ``laneCount`` parts scanned side by side,
    /// their steps interleaved: each part after the first starts ``longestPattern`` bytes early
    /// from the start state, which brings it to the state the whole text would have, and reports
    /// only the matches that end in its own part.
    func scan(_ bytes: UnsafeRawBufferPointer, from state: Int, found: (Int, Int) -> Void) -> Int {
        guard let start = bytes.baseAddress else { return state }
        let base = start.assumingMemoryBound(to: UInt8.self)
        let count = bytes.count
        let lanes = Self.laneCount
        // Parts much longer than the warm-up: a pipe gives 64 KiB at a time.
        guard count >= lanes * (8 * longestPattern + 1024), denseCount > 1 else {
            var matches: [(Int, Int)] = []
            let reached = scan(base, from: 0, to: count, state: state, reportingAfter: 0, into: &matches)
            for (end, length) in matches { found(end, length) }
            return reached
        }
        let bounds = (0..<lanes).map { count / lanes * $0 } + [count]
        var matches = [[(Int, Int)]](repeating: [], count: lanes)
        var position = (0..<lanes).map { $0 == 0 ? 0 : bounds[$0] - longestPattern }
        var states = (0..<lanes).map { $0 == 0 ? state : 0 }
        // Lanes in the start state or another with a dense row step together; a lane that
        // reaches a state without one (deep in a match) finishes alone below.
        if states.allSatisfy({ $0 < denseCount }) {
            interleave(base, bounds, &position, &states, &matches)
        }
        for lane in 0..<lanes {
            states[lane] = scan(
                base, from: position[lane], to: bounds[lane + 1], state: states[lane],
                reportingAfter: bounds[lane], into: &matches[lane])
        }
        for lane in 0..<lanes { for (end, length) in matches[lane] { found(end, length) } }
        return states[lanes - 1]
    }

    /// Four lanes of dense steps, interleaved, while each has bytes left and stays in states
    /// with a dense row; a lane's looks (a match, or a state without a row) are handled between.
    private func interleave(
        _ base: UnsafePointer<UInt8>, _ bounds: [Int], _ position: inout [Int], _ states: inout [Int],
        _ matches: inout [[(Int, Int)]]
    ) {
        let classes = UnsafePointer(self.classes.baseAddress!)
        let dense = UnsafePointer(self.dense.baseAddress!)
        let width = classCount
        var p0 = position[0]
        var p1 = position[1]
        var p2 = position[2]
        var p3 = position[3]
        var r0 = states[0] &* width
        var r1 = states[1] &* width
        var r2 = states[2] &* width
        var r3 = states[3] &* width
        let e0 = bounds[1]
        let e1 = bounds[2]
        let e2 = bounds[3]
        let e3 = bounds[4]
        var leaving = -1
        while p0 < e0 && p1 < e1 && p2 < e2 && p3 < e3 && leaving < 0 {
            let n0 = dense[r0 &+ Int(classes[Int(base[p0])])]
            let n1 = dense[r1 &+ Int(classes[Int(base[p1])])]
            let n2 = dense[r2 &+ Int(classes[Int(base[p2])])]
            let n3 = dense[r3 &+ Int(classes[Int(base[p3])])]
            p0 &+= 1
            p1 &+= 1
            p2 &+= 1
            p3 &+= 1
            r0 = Int(n0 >> 2)
            r1 = Int(n1 >> 2)
            r2 = Int(n2 >> 2)
            r3 = Int(n3 >> 2)
            if (n0 | n1 | n2 | n3) & 1 != 0 {
                for (lane, entry, end) in [(0, n0, p0), (1, n1, p1), (2, n2, p2), (3, n3, p3)] where entry & 1 != 0 {
                    let state = Self.target(entry, width)
                    if longest[state] > 0 && end > bounds[lane] {
                        matches[lane].append((end, Int(longest[state])))
                    }
                    if state >= denseCount {
                        leaving = lane
                        states[lane] = state
                    }
                }
            }
        }
        position = [p0, p1, p2, p3]
        for (lane, row) in [r0, r1, r2, r3].enumerated() where !(leaving >= 0 && states[lane] >= denseCount) {
            states[lane] = row / width
        }
    }

    /// Runs `base[from..<to]` from `state`, one step at a time, appending the matches that end
    /// after `reportingAfter`. Returns the state reached.
    private func scan(
        _ base: UnsafePointer<UInt8>, from: Int, to count: Int, state: Int, reportingAfter: Int,
        into matches: inout [(Int, Int)]
    ) -> Int {
        let classes = UnsafePointer(self.classes.baseAddress!)
        let dense = UnsafePointer(self.dense.baseAddress!)
        let width = classCount
        var state = state
        var index = from
        while index < count {
            if state < denseCount {
                // The hot loop: one class lookup, one table load, one test per byte.
                var row = state &* width
                var entry: Int32 = 0
                repeat {
                    entry = dense[row &+ Int(classes[Int(base[index])])]
                    row = Int(entry >> 2)
                    index &+= 1
                } while entry & 1 == 0 && index < count
                state = Self.target(entry, width)
                if entry & 1 == 0 { break }
            } else {
                state = sparseStep(state, classes[Int(base[index])])
                index &+= 1
            }
            if longest[state] > 0 && index > reportingAfter { matches.append((index, Int(longest[state]))) }
        }
        return state
    }

    /// How many of the last bytes read may still begin a pattern, in `state`.
    func pending(in state: Int) -> Int { Int(depth[state]) }
}
