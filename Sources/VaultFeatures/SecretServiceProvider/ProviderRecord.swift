import VaultSecureBytes
import VaultStorage

/// What the provider keeps of one Secret Service item or collection, encoded as the value of one
/// vault secret (``ProviderStore``), so that all of it (label, attributes, secret) lives inside
/// the store's encryption.
///
/// Encoding, version 1: the 4 bytes `vss1`, a kind byte (`c` collection, `i` item), then the
/// fields in order, each a 4-byte big-endian length and that many bytes: label, content type,
/// created and modified (decimal seconds since 1970), the number of attributes (decimal), each
/// attribute's name and value, and last the secret (empty for a collection).
struct ProviderRecord {
    enum Kind: UInt8 {
        case collection = 0x63  // "c"
        case item = 0x69  // "i"
    }

    var kind: Kind
    var label: String
    var contentType: String
    var attributes: [String: String]
    var created: Timestamp
    var modified: Timestamp
    /// The item's secret, byte for byte (empty for a collection).
    var secret: SecureBytes

    private static let magic: [UInt8] = Array("vss1".utf8)

    func encoded() -> SecureBytes {
        var out = SecureBytes()
        out.reserveCapacity(secret.count + 256)
        out.append(contentsOf: Self.magic)
        out.append(kind.rawValue)
        func field(_ bytes: some Collection<UInt8>) {
            let count = UInt32(bytes.count)
            for shift in stride(from: 24, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: count >> UInt32(shift)))
            }
            out.append(contentsOf: bytes)
        }
        field(label.utf8)
        field(contentType.utf8)
        field(String(created.secondsSince1970).utf8)
        field(String(modified.secondsSince1970).utf8)
        field(String(attributes.count).utf8)
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            field(name.utf8)
            field(value.utf8)
        }
        secret.withUnsafeBytes { field($0) }
        return out
    }

    /// The record in `bytes`, or nil if they are not one this version wrote.
    init?(decoding bytes: SecureBytes) {
        guard
            let decoded = bytes.withUnsafeBytes({ (raw) -> ProviderRecord? in
                var at = Self.magic.count + 1
                guard raw.count >= at, raw.prefix(Self.magic.count).elementsEqual(Self.magic),
                    let kind = Kind(rawValue: raw[Self.magic.count])
                else { return nil }
                func field() -> UnsafeRawBufferPointer? {
                    guard raw.count - at >= 4 else { return nil }
                    let count = raw[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
                    at += 4
                    guard raw.count - at >= count else { return nil }
                    defer { at += count }
                    return UnsafeRawBufferPointer(rebasing: raw[at..<at + count])
                }
                func text() -> String? { field().map { String(decoding: $0, as: UTF8.self) } }
                func number() -> Int64? { text().flatMap { Int64($0) } }
                guard let label = text(), let contentType = text(), let created = number(),
                    let modified = number(), let count = number(), count >= 0, count <= raw.count
                else { return nil }
                var attributes: [String: String] = [:]
                for _ in 0..<count {
                    guard let name = text(), let value = text() else { return nil }
                    attributes[name] = value
                }
                guard let secret = field(), at == raw.count else { return nil }
                return ProviderRecord(
                    kind: kind, label: label, contentType: contentType, attributes: attributes,
                    created: Timestamp(secondsSince1970: created), modified: Timestamp(secondsSince1970: modified),
                    secret: SecureBytes(copying: secret))
            })
        else { return nil }
        self = decoded
    }

    init(
        kind: Kind, label: String, contentType: String = "", attributes: [String: String] = [:],
        created: Timestamp, modified: Timestamp, secret: SecureBytes = SecureBytes()
    ) {
        self.kind = kind
        self.label = label
        self.contentType = contentType
        self.attributes = attributes
        self.created = created
        self.modified = modified
        self.secret = secret
    }
}
