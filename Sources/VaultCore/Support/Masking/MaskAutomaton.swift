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
    /// For the first ``denseCount`` states, `classCount` entries each: the next state times two,
    /// plus one if a pattern ends there.
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

    /// The most entries the dense rows may have (16 MiB of table).
    static let denseBudget = 4 << 20

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
                    next = dense[Int(failure[state]) * classCount + cls] >> 1
                }
                dense[state * classCount + cls] = next << 1 | (longest[Int(next)] > 0 ? 1 : 0)
            }
        }
    }

    deinit {
        for buffer in [dense, failure, depth, longest, childStart, childState] {
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

    /// The state after `state` reads a byte of class `cls`, for a state without a dense row.
    private func sparseStep(_ state: Int, _ cls: UInt8) -> Int {
        var state = state
        while state >= denseCount {
            if let child = Self.child(of: state, cls: cls, childStart, childClass, childState) { return Int(child) }
            state = Int(failure[state])
        }
        return Int(dense[state * classCount + Int(cls)] >> 1)
    }

    /// Runs `bytes` from `state`; calls `found(end, length)` for each position where a pattern
    /// ends (`end` is the offset just past it in `bytes`; `length` the longest one ending there).
    /// Returns the state reached.
    @inline(__always)
    func scan(_ bytes: UnsafeRawBufferPointer, from state: Int, found: (Int, Int) -> Void) -> Int {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return state }
        let classes = UnsafePointer(self.classes.baseAddress!)
        let dense = UnsafePointer(self.dense.baseAddress!)
        let width = classCount
        let denseCount = self.denseCount
        var state = state
        var index = 0
        let count = bytes.count
        while index < count {
            let cls = classes[Int(base[index])]
            if state < denseCount {
                let entry = dense[state &* width &+ Int(cls)]
                state = Int(entry >> 1)
                if entry & 1 != 0 { found(index &+ 1, Int(longest[state])) }
            } else {
                state = sparseStep(state, cls)
                if longest[state] > 0 { found(index &+ 1, Int(longest[state])) }
            }
            index &+= 1
        }
        return state
    }

    /// How many of the last bytes read may still begin a pattern, in `state`.
    func pending(in state: Int) -> Int { Int(depth[state]) }
}
