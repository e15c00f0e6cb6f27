import Foundation

/// Writes the section cache's compact binary form: variable-length counts, little-endian integers,
/// length-prefixed UTF-8 text, and attribute values as a tag byte plus payload.
struct CacheWriter {
    private(set) var data = Data()

    mutating func count(_ value: Int) {
        var remaining = UInt64(max(value, 0))
        repeat {
            var byte = UInt8(remaining & 0x7F)
            remaining >>= 7
            if remaining != 0 { byte |= 0x80 }
            data.append(byte)
        } while remaining != 0
    }

    mutating func integer(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }

    mutating func string(_ value: String) {
        let bytes = Array(value.utf8)
        count(bytes.count)
        data.append(contentsOf: bytes)
    }

    mutating func value(_ value: AttributeValue) {
        switch value {
        case .null: data.append(0)
        case .integer(let number): data.append(1); integer(number)
        case .double(let number): data.append(2); integer(Int64(bitPattern: number.bitPattern))
        case .decimal(let number): data.append(3); string(number.description)
        case .string(let text): data.append(4); string(text)
        case .boolean(let flag): data.append(flag ? 6 : 5)
        case .date(let date): data.append(7); integer(Int64(bitPattern: date.timeIntervalSinceReferenceDate.bitPattern))
        case .binary(let bytes): data.append(8); count(bytes.count); data.append(bytes)
        case .uuid(let uuid): data.append(9); string(uuid.uuidString)
        case .uri(let url): data.append(10); string(url.absoluteString)
        }
    }
}

/// Reads what ``CacheWriter`` wrote; every read returns nil on malformed or truncated input.
struct CacheReader {
    private let bytes: [UInt8]
    private var position = 0

    init(data: Data) { bytes = [UInt8](data) }

    var isAtEnd: Bool { position == bytes.count }

    mutating func count() -> Int? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.count, shift < 63 {
            let byte = bytes[position]
            position += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result <= UInt64(Int.max) ? Int(result) : nil }
            shift += 7
        }
        return nil
    }

    mutating func integer() -> Int64? {
        guard bytes.count - position >= 8 else { return nil }
        var value: UInt64 = 0
        for offset in 0..<8 { value |= UInt64(bytes[position + offset]) << (8 * UInt64(offset)) }
        position += 8
        return Int64(bitPattern: value)
    }

    mutating func string() -> String? {
        guard let length = count(), bytes.count - position >= length else { return nil }
        defer { position += length }
        return String(decoding: bytes[position..<(position + length)], as: UTF8.self)
    }

    mutating func value() -> AttributeValue? {
        guard position < bytes.count else { return nil }
        let tag = bytes[position]
        position += 1
        switch tag {
        case 0: return .null
        case 1: return integer().map(AttributeValue.integer)
        case 2: return integer().map { .double(Double(bitPattern: UInt64(bitPattern: $0))) }
        case 3: return string().flatMap { Decimal(string: $0) }.map(AttributeValue.decimal)
        case 4: return string().map(AttributeValue.string)
        case 5: return .boolean(false)
        case 6: return .boolean(true)
        case 7: return integer().map { .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: UInt64(bitPattern: $0)))) }
        case 8:
            guard let length = count(), bytes.count - position >= length else { return nil }
            defer { position += length }
            return .binary(Data(bytes[position..<(position + length)]))
        case 9: return string().flatMap { UUID(uuidString: $0) }.map(AttributeValue.uuid)
        case 10: return string().flatMap { URL(string: $0) }.map(AttributeValue.uri)
        default: return nil
        }
    }
}
