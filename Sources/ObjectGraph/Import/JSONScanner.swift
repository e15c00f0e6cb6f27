/// Why a scan stopped: the bytes end before the value does (read more and scan again), or they are malformed.
enum ScanFailure: Error {
    /// The buffer ends inside the value and more of the file is to come.
    case needMore
    /// Malformed input: the message and the byte offset (absolute, in the file) of the problem.
    case malformed(String, offset: Int, line: Int, lineStart: Int)
    /// The file is not laid out as its format needs (see ``ImportReadError/Kind/layout``).
    case layout(String)

    /// The failure as a read error (`needMore` at the end of the input is "unexpected end of input").
    func readError(_ scanner: JSONScanner) -> ImportReadError {
        switch self {
        case .needMore:
            let end = scanner.base + scanner.bytes.count
            return ImportReadError(kind: .malformed, message: "unexpected end of input", line: scanner.line,
                column: end - scanner.lineStart + 1, byteOffset: end)
        case .malformed(let message, let offset, let line, let lineStart):
            return ImportReadError(kind: .malformed, message: message, line: line, column: offset - lineStart + 1,
                byteOffset: offset)
        case .layout(let message):
            return ImportReadError(kind: .layout, message: message, line: 0, column: 0, byteOffset: 0)
        }
    }
}

/// The text of `bytes[range]`: copied straight when `isASCII` (no validation needed, no generic code on the
/// way), else validated as UTF-8 (nil when it is not).
@inline(__always)
func utf8String(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, isASCII: Bool) -> String? {
    guard !range.isEmpty, let base = bytes.baseAddress else { return "" }
    guard isASCII else { return String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
    return String(unsafeUninitializedCapacity: range.count) { target in
        guard let address = target.baseAddress else { return 0 }
        address.update(from: base + range.lowerBound, count: range.count)
        return range.count
    }
}

/// A strict JSON (RFC 8259) scanner over a window of a file's UTF-8 bytes.
///
/// Rejects trailing commas, comments, single quotes, leading zeros, unescaped control characters, invalid
/// UTF-8, lone surrogates; nests at most ``maximumDepth`` levels. When the window ends inside a value and
/// `isFinal` is false it throws ``ScanFailure/needMore``: the reader then reads more and scans the value again
/// from its start. Positions are indexes into `bytes`; `base` is the file offset of `bytes[0]`, `line` and
/// `lineStart` (a file offset) follow the line breaks passed.
struct JSONScanner {
    /// How deeply arrays and objects may nest.
    static let maximumDepth = 256

    let bytes: UnsafeBufferPointer<UInt8>
    let base: Int
    let isFinal: Bool
    var position: Int
    var line: Int
    var lineStart: Int
    private var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>, base: Int, isFinal: Bool, position: Int, line: Int, lineStart: Int) {
        self.bytes = bytes
        self.base = base
        self.isFinal = isFinal
        self.position = position
        self.line = line
        self.lineStart = lineStart
    }

    /// A malformed-input failure at `offset` (an index into `bytes`; the current position by default).
    func failure(_ message: String, at offset: Int? = nil) -> ScanFailure {
        .malformed(message, offset: base + min(offset ?? position, bytes.count), line: line, lineStart: lineStart)
    }

    /// The end of the window: more to read, or the end of the input.
    @inline(__always)
    private func end(_ expected: String) -> ScanFailure {
        isFinal ? failure("unexpected end of input: expected \(expected)") : .needMore
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0D: position += 1
            case 0x0A:
                position += 1
                line += 1
                lineStart = base + position
            default: return
            }
        }
    }

    mutating func parseValue() throws(ScanFailure) -> ImportJSONValue {
        guard position < bytes.count else { throw end("a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default:
            throw failure("unexpected character '\(Self.printable(bytes[position]))': expected a value")
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(ScanFailure) {
        let count = word.utf8CodeUnitCount
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
        for index in 0..<count {
            guard position + index < bytes.count else { throw end("'\(word)'") }
            guard bytes[position + index] == expected[index] else { throw failure("invalid literal: expected '\(word)'") }
        }
        position += count
    }

    private mutating func enter() throws(ScanFailure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseArray() throws(ScanFailure) -> ImportJSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var elements: [ImportJSONValue] = []
        skipWhitespace()
        guard position < bytes.count else { throw end("a value or ']'") }
        if bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw end("',' or ']'") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
            throw failure("unexpected character '\(Self.printable(bytes[position]))': expected ',' or ']'")
        }
    }

    /// A row: an object's members as import fields, in order, or the first key that appears twice (the
    /// object is still read to its end). `position` is at the `{`.
    mutating func parseRowObject() throws(ScanFailure) -> Result<[(key: String, value: ImportField)], ImportRowProblem> {
        try enter()
        defer { depth -= 1 }
        position += 1
        var members: [(key: String, value: ImportField)] = []
        members.reserveCapacity(12)
        var repeated: String?
        skipWhitespace()
        guard position < bytes.count else { throw end("a member name or '}'") }
        if bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .success(members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw end("a member name") }
            guard bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a member name in double quotes") }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count else { throw end("':'") }
            guard bytes[position] == UInt8(ascii: ":") else { throw failure("expected ':' after member name \"\(key)\"") }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            if repeated == nil, members.contains(where: { $0.key == key }) { repeated = key }
            members.append((key, .json(value)))
            skipWhitespace()
            guard position < bytes.count else { throw end("',' or '}'") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") {
                position += 1
                if let repeated { return .failure(ImportRowProblem("the key '\(repeated)' appears more than once")) }
                return .success(members)
            }
            throw failure("unexpected character '\(Self.printable(bytes[position]))': expected ',' or '}'")
        }
    }

    /// A row: an object (see ``parseRowObject()``), or the problem of any other value.
    mutating func parseRow() throws(ScanFailure) -> Result<[(key: String, value: ImportField)], ImportRowProblem> {
        guard position < bytes.count else { throw end("a value") }
        if bytes[position] == UInt8(ascii: "{") { return try parseRowObject() }
        let value = try parseValue()
        return .failure(ImportRowProblem("expected an object, found \(value.kindDescription)"))
    }

    mutating func parseObject() throws(ScanFailure) -> ImportJSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var members: [(key: String, value: ImportJSONValue)] = []
        members.reserveCapacity(8)
        skipWhitespace()
        guard position < bytes.count else { throw end("a member name or '}'") }
        if bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw end("a member name") }
            guard bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a member name in double quotes") }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count else { throw end("':'") }
            guard bytes[position] == UInt8(ascii: ":") else { throw failure("expected ':' after member name \"\(key)\"") }
            position += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            guard position < bytes.count else { throw end("',' or '}'") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
            throw failure("unexpected character '\(Self.printable(bytes[position]))': expected ',' or '}'")
        }
    }

    private mutating func digits() -> Int {
        let from = position
        while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 { position += 1 }
        return position - from
    }

    private mutating func parseNumber() throws(ScanFailure) -> String {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        // A number may go on past the window's end: only a following byte proves it complete.
        guard position < bytes.count || isFinal else { throw .needMore }
        guard integerDigits > 0 else { throw failure("invalid number: expected a digit") }
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") {
            throw failure("invalid number: leading zeros are not allowed", at: integerStart)
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            let fraction = digits()
            guard position < bytes.count || isFinal else { throw .needMore }
            guard fraction > 0 else { throw failure("invalid number: expected a digit after '.'") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            let exponent = digits()
            guard position < bytes.count || isFinal else { throw .needMore }
            guard exponent > 0 else { throw failure("invalid number: expected a digit in the exponent") }
        }
        return utf8String(bytes, start..<position, isASCII: true) ?? ""
    }

    mutating func parseString() throws(ScanFailure) -> String {
        let start = position
        position += 1
        let runStart = position
        var high: UInt8 = 0
        // The common case: no escapes. Find the closing quote and validate the run once.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                guard let text = utf8String(bytes, runStart..<position, isASCII: high < 0x80)
                else { throw failure("invalid UTF-8 in a string", at: invalidUTF8Offset(runStart..<position)) }
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("unescaped control character in a string") }
            high |= byte
            position += 1
        }
        guard position < bytes.count else { throw isFinal ? failure("unterminated string", at: start) : .needMore }
        return try parseEscapedString(from: runStart, quote: start)
    }

    /// The rest of a string with escapes; `position` is at the first backslash.
    private mutating func parseEscapedString(from runStart: Int, quote: Int) throws(ScanFailure) -> String {
        var scalars = String.UnicodeScalarView()
        var run = runStart
        func flush(_ end: Int, _ scanner: JSONScanner) throws(ScanFailure) {
            guard run < end else { return }
            guard let text = String(validating: UnsafeBufferPointer(rebasing: scanner.bytes[run..<end]), as: UTF8.self)
            else { throw scanner.failure("invalid UTF-8 in a string", at: scanner.invalidUTF8Offset(run..<end)) }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard position < bytes.count else { throw isFinal ? failure("unterminated string", at: quote) : .needMore }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                try flush(position, self)
                position += 1
                return String(scalars)
            }
            if byte < 0x20 { throw failure("unescaped control character in a string") }
            if byte == UInt8(ascii: "\\") {
                try flush(position, self)
                position += 1
                scalars.append(try parseEscape())
                run = position
                continue
            }
            position += 1
        }
    }

    /// The offset of the first byte in `range` that is not valid UTF-8 (the range's start if none is found).
    func invalidUTF8Offset(_ range: Range<Int>) -> Int {
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = bytes[index]
            let length = byte < 0x80 ? 1 : byte >> 5 == 0b110 ? 2 : byte >> 4 == 0b1110 ? 3 : byte >> 3 == 0b11110 ? 4 : 0
            guard length > 0, index + length <= range.upperBound,
                String(validating: UnsafeBufferPointer(rebasing: bytes[index..<index + length]), as: UTF8.self) != nil
            else { return index }
            index += length
        }
        return range.lowerBound
    }

    private mutating func parseEscape() throws(ScanFailure) -> Unicode.Scalar {
        guard position < bytes.count else { throw isFinal ? failure("unterminated escape sequence") : .needMore }
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
                guard bytes.count - position >= 6 || isFinal else { throw .needMore }
                guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw failure("unpaired UTF-16 surrogate in \\u escape") }
                position += 2
                let second = try parseHex4()
                guard (0xDC00...0xDFFF).contains(second) else { throw failure("unpaired UTF-16 surrogate in \\u escape") }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw failure("invalid \\u escape") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw failure("unpaired UTF-16 surrogate in \\u escape") }
            return scalar
        default:
            throw failure("invalid escape sequence '\\\(Self.printable(byte))'", at: position - 2)
        }
    }

    private mutating func parseHex4() throws(ScanFailure) -> UInt32 {
        guard bytes.count - position >= 4 || isFinal else { throw .needMore }
        guard bytes.count - position >= 4 else { throw failure("\\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexValue(bytes[position]) else { throw failure("\\u escape needs four hex digits") }
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

    /// A byte as a character (printable ASCII) or `\xHH`.
    static func printable(_ byte: UInt8) -> String {
        guard !(0x21...0x7E).contains(byte) else { return String(UnicodeScalar(byte)) }
        let hex = String(byte, radix: 16, uppercase: true)
        return "\\x" + (hex.count == 1 ? "0" : "") + hex
    }
}
