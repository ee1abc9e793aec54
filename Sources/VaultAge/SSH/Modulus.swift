/// Arithmetic modulo an odd number, in Montgomery form: what the SSH recipients need and
/// swift-crypto does not offer. An RSA public-key operation (m^e mod n, to encrypt with OAEP and
/// age's label, which swift-crypto's RSA cannot take), and field arithmetic mod 2^255 - 19 (to
/// turn an Ed25519 public key into its X25519 form).
///
/// Only ever used on public values: the timing depends on the operands, which is harmless for a
/// public key and a public exponent and would not be for a secret. Private-key operations go to
/// swift-crypto.
struct Modulus {
    /// Little-endian 64-bit limbs.
    typealias Number = [UInt64]

    let limbs: Number
    private let inverse: UInt64  // -limbs[0]^-1 mod 2^64
    private let rSquared: Number  // 2^(128 k) mod n
    /// The modulus length in bytes, the length of every result.
    let byteCount: Int

    /// An odd modulus above 1, big-endian; nil otherwise.
    init?(bigEndian bytes: [UInt8]) {
        let number = Self.number(bigEndian: bytes)
        guard let low = number.first, low & 1 == 1, number.count > 1 || low > 1 else { return nil }
        limbs = number
        byteCount = bytes.drop { $0 == 0 }.count
        var inverse: UInt64 = 1
        for _ in 0..<6 { inverse = inverse &* (2 &- low &* inverse) }
        self.inverse = 0 &- inverse
        var r = Number(repeating: 0, count: number.count)
        r[0] = 1
        for _ in 0..<(128 * number.count) { r = Self.doubled(r, modulo: number) }
        rSquared = r
    }

    /// `base`^`exponent` mod n; `base` must be below n. Big-endian in and out, the result padded
    /// to the modulus length.
    func power(_ base: [UInt8], _ exponent: [UInt8]) -> [UInt8] {
        bigEndian(power(reduced(Self.number(bigEndian: base)), exponent))
    }

    /// Whether the big-endian `value` is below n.
    func contains(_ value: [UInt8]) -> Bool {
        let number = Self.number(bigEndian: value)
        return number.count <= limbs.count && Self.compare(padded(number), limbs) < 0
    }

    func power(_ base: Number, _ exponent: [UInt8]) -> Number {
        var result = toMontgomery(padded([1]))
        let montgomeryBase = toMontgomery(base)
        for byte in exponent {
            for bit in (0..<8).reversed() {
                result = multiplyMontgomery(result, result)
                if byte >> bit & 1 == 1 { result = multiplyMontgomery(result, montgomeryBase) }
            }
        }
        return multiplyMontgomery(result, padded([1]))
    }

    func multiply(_ a: Number, _ b: Number) -> Number {
        multiplyMontgomery(multiplyMontgomery(a, b), rSquared)
    }

    func add(_ a: Number, _ b: Number) -> Number {
        var (sum, carry) = Self.add(a, b)
        if carry || Self.compare(sum, limbs) >= 0 { sum = Self.subtract(sum, limbs) }
        return sum
    }

    func subtract(_ a: Number, _ b: Number) -> Number {
        Self.compare(a, b) >= 0 ? Self.subtract(a, b) : Self.subtract(Self.add(a, limbs).sum, b)
    }

    /// A value of any size reduced below n (by repeated subtraction: only for values below 2n).
    func reduced(_ value: Number) -> Number {
        var value = padded(value)
        while Self.compare(value, limbs) >= 0 { value = Self.subtract(value, limbs) }
        return value
    }

    func padded(_ value: Number) -> Number {
        value.count >= limbs.count
            ? Array(value.prefix(limbs.count)) : value + Number(repeating: 0, count: limbs.count - value.count)
    }

    func bigEndian(_ value: Number) -> [UInt8] {
        var bytes: [UInt8] = []
        for limb in value.reversed() {
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: limb >> UInt64(shift)))
            }
        }
        return Array(bytes.suffix(byteCount))
    }

    static func number(bigEndian bytes: [UInt8]) -> Number {
        var limbs: Number = []
        var index = bytes.count
        while index > 0 {
            let start = max(0, index - 8)
            limbs.append(bytes[start..<index].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            index = start
        }
        while limbs.count > 1, limbs.last == 0 { limbs.removeLast() }
        return limbs.isEmpty ? [0] : limbs
    }

    private func toMontgomery(_ value: Number) -> Number { multiplyMontgomery(padded(value), rSquared) }

    /// a * b / 2^(64 k) mod n (CIOS).
    private func multiplyMontgomery(_ a: Number, _ b: Number) -> Number {
        let count = limbs.count
        var t = Number(repeating: 0, count: count + 2)
        for i in 0..<count {
            var carry: UInt64 = 0
            for j in 0..<count {
                (carry, t[j]) = Self.multiplyAdd(a[j], b[i], t[j], carry)
            }
            let (sum, overflow) = t[count].addingReportingOverflow(carry)
            t[count] = sum
            t[count + 1] = overflow ? 1 : 0
            let m = t[0] &* inverse
            (carry, _) = Self.multiplyAdd(m, limbs[0], t[0], 0)
            for j in 1..<count {
                (carry, t[j - 1]) = Self.multiplyAdd(m, limbs[j], t[j], carry)
            }
            let (last, lastOverflow) = t[count].addingReportingOverflow(carry)
            t[count - 1] = last
            t[count] = t[count + 1] + (lastOverflow ? 1 : 0)
        }
        var result = Array(t.prefix(count))
        if t[count] != 0 || Self.compare(result, limbs) >= 0 { result = Self.subtract(result, limbs) }
        return result
    }

    /// a * b + c + d as (high, low); never overflows 128 bits.
    private static func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> (UInt64, UInt64) {
        var (high, low) = a.multipliedFullWidth(by: b)
        var overflow: Bool
        (low, overflow) = low.addingReportingOverflow(c)
        if overflow { high &+= 1 }
        (low, overflow) = low.addingReportingOverflow(d)
        if overflow { high &+= 1 }
        return (high, low)
    }

    private static func doubled(_ value: Number, modulo n: Number) -> Number {
        var result = value
        var carry: UInt64 = 0
        for index in result.indices {
            let next = result[index] >> 63
            result[index] = result[index] << 1 | carry
            carry = next
        }
        if carry != 0 || compare(result, n) >= 0 { result = subtract(result, n) }
        return result
    }

    /// Compares equal-length numbers.
    private static func compare(_ a: Number, _ b: Number) -> Int {
        for index in a.indices.reversed() where a[index] != b[index] {
            return a[index] < b[index] ? -1 : 1
        }
        return 0
    }

    private static func add(_ a: Number, _ b: Number) -> (sum: Number, carry: Bool) {
        var result = a
        var carry = false
        for index in a.indices {
            let (first, overflowA) = a[index].addingReportingOverflow(b[index])
            let (second, overflowB) = first.addingReportingOverflow(carry ? 1 : 0)
            result[index] = second
            carry = overflowA || overflowB
        }
        return (result, carry)
    }

    /// a - b mod 2^(64 k), for equal-length numbers.
    private static func subtract(_ a: Number, _ b: Number) -> Number {
        var result = a
        var borrow = false
        for index in a.indices {
            let (first, overflowA) = a[index].subtractingReportingOverflow(b[index])
            let (second, overflowB) = first.subtractingReportingOverflow(borrow ? 1 : 0)
            result[index] = second
            borrow = overflowA || overflowB
        }
        return result
    }
}
