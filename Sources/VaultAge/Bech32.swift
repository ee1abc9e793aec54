internal import VaultSecureBytes

/// Bech32 (BIP 173) without the 90-character limit, as age uses it for keys.
///
/// A string is all lowercase or all uppercase; the checksum is always computed over the lowercase form.
enum Bech32 {
    private static let charset: [UInt8] = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)

    private static let charsetValues: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in charset.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Encodes bytes under a human-readable part, in lowercase.
    static func encode(hrp: String, data: some Collection<UInt8>) -> String {
        let hrpBytes = Array(hrp.lowercased().utf8)
        let values = convertBits(data, from: 8, to: 5, pad: true) ?? []
        let checksum = makeChecksum(hrp: hrpBytes, values: values)
        var output = hrpBytes
        output.append(UInt8(ascii: "1"))
        for value in values + checksum { output.append(charset[Int(value)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes an age key: Bech32 whose human-readable part is `hrp`. The data comes back as
    /// ``SecureBytes`` (secret keys are read here too); errors say `malformed` or `otherKind`.
    static func decodeKey(
        _ text: String, hrp: String, malformed: String, otherKind: String
    ) throws(AgeError) -> SecureBytes {
        let decoded: (hrp: String, data: [UInt8])
        do {
            decoded = try decode(text)
        } catch {
            throw .invalidKey("\(malformed) (\(error.message))")
        }
        var data = decoded.data
        let key = SecureBytes(taking: &data)
        guard decoded.hrp == hrp else { throw .invalidKey(otherKind) }
        return key
    }

    /// Decodes a Bech32 string; returns the lowercase human-readable part and the data bytes.
    static func decode(_ text: String) throws(AgeError) -> (hrp: String, data: [UInt8]) {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ $0 >= 33 && $0 <= 126 }) else {
            throw .invalidKey("invalid Bech32 string: unexpected character")
        }
        let hasLower = bytes.contains { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
        let hasUpper = bytes.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
        guard !(hasLower && hasUpper) else { throw .invalidKey("invalid Bech32 string: mixed case") }
        let lower = bytes.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
        guard let separator = lower.lastIndex(of: UInt8(ascii: "1")), separator >= 1,
            lower.count - separator - 1 >= 6
        else {
            throw .invalidKey("invalid Bech32 string: missing separator or checksum")
        }
        let hrp = Array(lower[..<separator])
        var values: [UInt8] = []
        for char in lower[(separator + 1)...] {
            let value = charsetValues[Int(char)]
            guard value != 0xFF else { throw .invalidKey("invalid Bech32 string: unexpected character") }
            values.append(value)
        }
        guard polymod(expandHRP(hrp) + values) == 1 else {
            throw .invalidKey("invalid Bech32 string: bad checksum")
        }
        guard let data = convertBits(values.dropLast(6), from: 5, to: 8, pad: false) else {
            throw .invalidKey("invalid Bech32 string: bad padding")
        }
        return (String(decoding: hrp, as: UTF8.self), data)
    }

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
        var checksum: UInt32 = 1
        for value in values {
            let top = checksum >> 25
            checksum = ((checksum & 0x1ff_ffff) << 5) ^ UInt32(value)
            for bit in 0..<5 where (top >> UInt32(bit)) & 1 == 1 {
                checksum ^= generator[bit]
            }
        }
        return checksum
    }

    private static func expandHRP(_ hrp: [UInt8]) -> [UInt8] {
        hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
    }

    private static func makeChecksum(hrp: [UInt8], values: [UInt8]) -> [UInt8] {
        let mod = polymod(expandHRP(hrp) + values + [0, 0, 0, 0, 0, 0]) ^ 1
        return (0..<6).map { UInt8((mod >> UInt32(5 * (5 - $0))) & 31) }
    }

    /// Regroups bits; when not padding, leftover bits must be fewer than `from` and all zero.
    private static func convertBits(_ input: some Collection<UInt8>, from: Int, to: Int, pad: Bool) -> [UInt8]? {
        var accumulator: UInt32 = 0
        var bits = 0
        var output: [UInt8] = []
        let maxValue: UInt32 = (1 << UInt32(to)) - 1
        for value in input {
            guard UInt32(value) >> UInt32(from) == 0 else { return nil }
            accumulator = (accumulator << UInt32(from)) | UInt32(value)
            bits += from
            while bits >= to {
                bits -= to
                output.append(UInt8((accumulator >> UInt32(bits)) & maxValue))
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        if pad {
            if bits > 0 { output.append(UInt8((accumulator << UInt32(to - bits)) & maxValue)) }
        } else if bits >= from || accumulator != 0 {
            return nil
        }
        return output
    }
}
