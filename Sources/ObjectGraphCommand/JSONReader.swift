import Foundation

/// A parsed JSON value that keeps what an importer needs: numbers as their exact text (so `12.50` can
/// become a `Decimal` and `70000` can be range-checked as an `Integer 16`), `true`/`false` apart from
/// numbers, and object members in order (so duplicate keys can be reported).
indirect enum JSONInput: Equatable {
    case null
    case bool(Bool)
    /// A number as it was written (`-12.5e3`).
    case number(String)
    case string(String)
    case array([JSONInput])
    case object([(key: String, value: JSONInput)])

    static func == (lhs: JSONInput, rhs: JSONInput) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    /// What kind of JSON value this is, for error messages ("a string", "an object").
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a Boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Malformed JSON: what is wrong and where (1-based line and column, counted in bytes on the line).
struct JSONReadError: Error, CustomStringConvertible, Equatable {
    var message: String
    var line: Int
    var column: Int

    var description: String { "\(message) at line \(line), column \(column)" }
}

/// A strict JSON (RFC 8259) parser over UTF-8 bytes.
///
/// Rejects trailing commas, comments, single quotes, leading zeros, unescaped control characters,
/// lone surrogates and trailing garbage; nests at most ``maximumDepth`` levels.
struct JSONReader {
    /// How deeply arrays and objects may nest.
    static let maximumDepth = 256

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0

    /// Parses `data` as one JSON document.
    static func parse(_ data: Data) throws(JSONReadError) -> JSONInput {
        var reader = JSONReader(bytes: [UInt8](data))
        if reader.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.position = 3 }
        reader.skipWhitespace()
        let value = try reader.parseValue()
        reader.skipWhitespace()
        guard reader.position == reader.bytes.count else { throw reader.error("unexpected text after the JSON value") }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func error(_ message: String, at offset: Int? = nil) -> JSONReadError {
        let end = min(offset ?? position, bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<end where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        return JSONReadError(message: message, line: line, column: end - lineStart + 1)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONReadError) -> JSONInput {
        guard position < bytes.count else { throw error("unexpected end of input: expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default:
            throw error("unexpected character '\(Self.printable(bytes[position]))': expected a value")
        }
    }

    private mutating func expectWord(_ word: String) throws(JSONReadError) {
        let expected = Array(word.utf8)
        guard bytes.count - position >= expected.count, Array(bytes[position..<position + expected.count]) == expected
        else { throw error("invalid literal: expected '\(word)'") }
        position += expected.count
    }

    private mutating func enter() throws(JSONReadError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseArray() throws(JSONReadError) -> JSONInput {
        try enter()
        defer { depth -= 1 }
        position += 1
        var elements: [JSONInput] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input: expected ',' or ']'") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
            throw error("unexpected character '\(Self.printable(bytes[position]))': expected ',' or ']'")
        }
    }

    private mutating func parseObject() throws(JSONReadError) -> JSONInput {
        try enter()
        defer { depth -= 1 }
        position += 1
        var members: [(key: String, value: JSONInput)] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw error("expected a member name in double quotes")
            }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw error("expected ':' after member name \"\(key)\"")
            }
            position += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input: expected ',' or '}'") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
            throw error("unexpected character '\(Self.printable(bytes[position]))': expected ',' or '}'")
        }
    }

    private mutating func parseNumber() throws(JSONReadError) -> String {
        let start = position
        func digits() -> Int {
            let from = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                position += 1
            }
            return position - from
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0 else { throw error("invalid number: expected a digit") }
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") {
            throw error("invalid number: leading zeros are not allowed", at: integerStart)
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw error("invalid number: expected a digit after '.'") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else { throw error("invalid number: expected a digit in the exponent") }
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func parseString() throws(JSONReadError) -> String {
        let start = position
        position += 1
        var scalars = String.UnicodeScalarView()
        var runStart = position
        func flush(_ end: Int) throws(JSONReadError) {
            guard runStart < end else { return }
            guard let text = String(validating: bytes[runStart..<end], as: UTF8.self) else {
                throw error("invalid UTF-8 in a string", at: runStart)
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard position < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                try flush(position)
                position += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("unescaped control character in a string") }
            if byte == UInt8(ascii: "\\") {
                try flush(position)
                position += 1
                scalars.append(try parseEscape())
                runStart = position
                continue
            }
            position += 1
        }
    }

    private mutating func parseEscape() throws(JSONReadError) -> Unicode.Scalar {
        guard position < bytes.count else { throw error("unterminated escape sequence") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try parseHex4()
            if (0xD800...0xDBFF).contains(first) {
                guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                position += 2
                let second = try parseHex4()
                guard (0xDC00...0xDFFF).contains(second) else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw error("invalid \\u escape") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw error("unpaired UTF-16 surrogate in \\u escape") }
            return scalar
        default:
            throw error("invalid escape sequence '\\\(Self.printable(byte))'", at: position - 2)
        }
    }

    private mutating func parseHex4() throws(JSONReadError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw error("\\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexValue(bytes[position]) else { throw error("\\u escape needs four hex digits") }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private static func printable(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : String(format: "\\x%02X", byte)
    }
}
