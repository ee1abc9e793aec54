import VaultCore
import VaultSecureBytes
import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `vault exec`'s masked output: what the command writes to a pipe vault holds is copied to
/// vault's own standard output or error with every secret replaced (``OutputMask``).
///
/// One thread reads every pipe as it becomes readable (`poll`), in reads of up to 256 KiB, so
/// each stream keeps its order. Bytes that may begin a secret wait for the next write at most
/// ``holdMilliseconds``, then go out as they are. Once the command has ended, vault relays what
/// is still written for at most ``drainMilliseconds`` (a background process it started may keep
/// the pipe open for ever), then stops.
enum ExecRelay {
    /// How long bytes that may begin a secret wait for the rest.
    static let holdMilliseconds = 150
    /// How long vault relays after the command ended.
    static let drainMilliseconds = 1000
    static let bufferSize = 256 << 10

    /// One pipe from the command and where its bytes go.
    struct Stream {
        var source: Int32
        let target: Int32
        var mask: MaskStream
        /// Until when held bytes may wait.
        var holdUntil: Deadline?
        /// The target refused a write (a closed pipe): nothing more is written to it.
        var broken = false
    }

    /// Relays `pipes` (read end, vault's descriptor) until each ends and the command has ended,
    /// or ``drainMilliseconds`` after it ended; closes the read ends. Returns the command's wait
    /// status (nil: unknown).
    static func run(_ command: Command, pipes: [(source: Int32, target: Int32)], mask: MaskAutomaton) -> Int32? {
        var streams = pipes.map { Stream(source: $0.source, target: $0.target, mask: MaskStream(mask)) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
        defer {
            zeroSecret(buffer)
            buffer.deallocate()
        }
        var output: [UInt8] = []
        output.reserveCapacity(bufferSize + 64)
        var status: Int32?? = nil
        var drainUntil: Deadline?
        while true {
            let open = streams.indices.filter { streams[$0].source >= 0 }
            if status != nil && open.isEmpty { break }
            var waiting = open.map { pollfd(fd: streams[$0].source, events: Int16(POLLIN), revents: 0) }
            if status == nil { waiting.append(pollfd(fd: command.endReport, events: Int16(POLLIN), revents: 0)) }
            let deadlines = open.compactMap { streams[$0].holdUntil } + (drainUntil.map { [$0] } ?? [])
            let timeout = deadlines.map(\.remainingMilliseconds).min().map(Int32.init) ?? -1
            _ = valueOrErrno { poll(&waiting, nfds_t(waiting.count), timeout) }
            for (slot, index) in open.enumerated() where waiting[slot].revents != 0 {
                output.removeAll(keepingCapacity: true)
                let count = valueOrErrno { Glibc.read(streams[index].source, buffer.baseAddress, buffer.count) }
                if case .success(let count) = count, count > 0 {
                    streams[index].mask.feed(UnsafeRawBufferPointer(rebasing: buffer[..<count]), into: &output)
                    streams[index].holdUntil =
                        streams[index].mask.isHolding ? Deadline(seconds: Double(holdMilliseconds) / 1000) : nil
                    write(&streams[index], output)
                } else {
                    finish(&streams[index], into: &output)
                }
            }
            if status == nil, let last = waiting.last, last.revents != 0 {
                status = .some(command.status())
                drainUntil = Deadline(seconds: Double(drainMilliseconds) / 1000)
            }
            for index in streams.indices where streams[index].source >= 0 {
                if drainUntil?.hasPassed == true {
                    finish(&streams[index], into: &output)
                } else if let hold = streams[index].holdUntil, hold.hasPassed {
                    output.removeAll(keepingCapacity: true)
                    streams[index].mask.flush(into: &output)
                    streams[index].holdUntil = nil
                    write(&streams[index], output)
                }
            }
        }
        return status ?? nil
    }

    /// Gives out what `stream` holds and closes it: its end, or the end of the wait.
    private static func finish(_ stream: inout Stream, into output: inout [UInt8]) {
        output.removeAll(keepingCapacity: true)
        stream.mask.flush(into: &output)
        write(&stream, output)
        close(stream.source)
        stream.source = -1
    }

    /// Writes all of `bytes` to the stream's target. A target that refuses them (a reader that
    /// went away) gets nothing more, and the pipe is closed, so that the command's next write
    /// fails with EPIPE (or SIGPIPE), as it would have without vault in between.
    private static func write(_ stream: inout Stream, _ bytes: [UInt8]) {
        guard !stream.broken else { return }
        do throws(VaultError) {
            try StandardIO.write(bytes, to: stream.target)
        } catch {
            stream.broken = true
            close(stream.source)
            stream.source = -1
        }
    }
}
