public import VaultSecureBytes

/// One message of the age plugin protocol (C2SP age-plugin.md, "IPC protocol"): an age v1 header
/// stanza whose first argument is the command (`add-identity`, `msg`, `ok`...).
///
/// The body may hold a file key or a PIN, so it is ``SecureBytes``.
public struct PluginStanza: Sendable, Equatable {
    /// The command and its metadata: `["recipient-stanza", "0", "X25519", "..."]`.
    public var arguments: [String]
    /// The decoded body (often empty).
    public var body: SecureBytes

    /// A stanza of `command` with `arguments` after it.
    public init(_ command: String, _ arguments: [String] = [], body: SecureBytes = SecureBytes()) {
        self.arguments = [command] + arguments
        self.body = body
    }

    /// The command: the first argument.
    public var command: String { arguments[0] }
    /// The arguments after the command.
    public var metadata: ArraySlice<String> { arguments.dropFirst() }

    /// The stanza on the wire: `-> ARGS\n`, then its base64 body in 64-column lines ending with
    /// a shorter (possibly empty) line, exactly as a header stanza (``Stanza/encoded``).
    public var encoded: SecureBytes {
        var output = SecureBytes()
        output.reserveCapacity(
            4 + arguments.reduce(0) { $0 + $1.utf8.count + 1 } + Base64.paddedCount(body.count) * 65 / 64 + 2)
        Array(("-> " + arguments.joined(separator: " ") + "\n").utf8).withUnsafeBytes { output.append(contentsOf: $0) }
        Stanza.appendBody(body, to: &output)
        return output
    }
}

extension Stanza {
    /// Appends the body lines of a stanza carrying `body` (see ``Header/encode(_:fileKey:)``).
    static func appendBody(_ body: SecureBytes, to output: inout SecureBytes) {
        var line = SecureBytes(zeros: Header.columnsPerLine + 1)
        body.withUnsafeBytes { bytes in
            var start = 0
            // Full 64-column lines, then a final shorter line, empty when the body fills its lines.
            while true {
                let count = min(Header.bytesPerLine, bytes.count - start)
                let written = line.withUnsafeMutableBytes { out in
                    let n = Base64.encode(
                        UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)]), padded: false,
                        into: out.baseAddress!)
                    out[n] = UInt8(ascii: "\n")
                    return n + 1
                }
                line.withUnsafeBytes { output.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<written])) }
                start += count
                if count < Header.bytesPerLine { break }
            }
        }
    }
}
