import Foundation

/// `NSDecimalNumber` in a keyed archive (a Decimal attribute's default value in a compiled model): Foundation's
/// fields — `NS.exponent`, `NS.length` (16-bit mantissa words in use), `NS.negative`, `NS.compact`,
/// `NS.mantissa.bo` (1 when the words are little-endian) and `NS.mantissa` (eight 16-bit words, least significant
/// first) — read into a `Decimal` and written from one.
enum ArchivedDecimal {
    /// The decimal an archived `NSDecimalNumber` object stands for; nil for fields that do not form one.
    static func decimal(_ object: KeyedArchive.Object, in archive: KeyedArchive) -> Decimal? {
        guard case .data(let bytes)? = archive.resolved(object["NS.mantissa"]),
            case .integer(let exponent)? = archive.resolved(object["NS.exponent"]),
            case .integer(let length)? = archive.resolved(object["NS.length"]),
            (0...8).contains(length), (-128...127).contains(exponent), bytes.count <= 16, bytes.count >= Int(length) * 2
        else { return nil }
        let littleEndian = (archive.resolved(object["NS.mantissa.bo"]).flatMap { value -> Int64? in
            if case .integer(let order) = value { return order }
            return nil
        } ?? 1) == 1
        let negative: Bool
        if case .boolean(let flag)? = archive.resolved(object["NS.negative"]) { negative = flag } else { negative = false }
        let raw = [UInt8](bytes)
        var mantissa: UInt128 = 0
        for index in stride(from: Int(length) - 1, through: 0, by: -1) {
            let low = UInt16(raw[index * 2]), high = UInt16(raw[index * 2 + 1])
            mantissa = mantissa << 16 | UInt128(littleEndian ? low | high << 8 : high | low << 8)
        }
        guard let significand = Decimal(string: String(mantissa)) else { return nil }
        return Decimal(sign: negative ? .minus : .plus, exponent: Int(exponent), significand: significand)
    }

    /// The fields of an `NSDecimalNumber` archive of `value`.
    static func fields(_ value: Decimal) -> [(String, PropertyListValue)] {
        // The significand as an integer (its decimal digits), and the power of ten.
        var mantissa = UInt128(0)
        var exponent = value.exponent
        let digits = "\(value.significand.magnitude)"
        if let point = digits.firstIndex(of: ".") {
            exponent -= digits.distance(from: point, to: digits.endIndex) - 1
        }
        for character in digits where character.isASCII && character.isNumber {
            mantissa = mantissa &* 10 &+ UInt128(character.asciiValue.map { $0 - 48 } ?? 0)
        }
        var bytes = Data()
        var words = 0
        var rest = mantissa
        for index in 0..<8 {
            let word = UInt16(truncatingIfNeeded: rest)
            bytes.append(UInt8(word & 0xFF))
            bytes.append(UInt8(word >> 8))
            rest >>= 16
            if word != 0 || rest != 0 { words = index + 1 }
        }
        return [
            ("NS.exponent", .integer(Int64(exponent))), ("NS.length", .integer(Int64(words))),
            ("NS.negative", .boolean(value.sign == .minus && !value.isZero)), ("NS.compact", .boolean(true)),
            ("NS.mantissa.bo", .integer(1)), ("NS.mantissa", .data(bytes)),
        ]
    }
}
