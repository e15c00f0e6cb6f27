import Foundation

/// Writes objects' attribute values as a JSON array, JSON Lines or CSV — the files ``ImportFileReader``
/// reads back into the same values — a row at a time through a small buffer, so memory stays flat.
///
/// Values are spelled as imports read them: dates as ISO 8601 in UTC with as many fractional digits as it
/// takes to read back the same instant, binary data as Base64, UUIDs and URLs as their text, decimals with
/// their digits. In CSV no value is an empty field and an empty string (or empty data) is `""`. JSON cannot spell NaN or
/// infinity: such doubles are written as null (an empty CSV field).
public final class ExportWriter {
    /// The format written.
    public let format: ImportFileReader.Format
    /// The keys of every row, in order (the CSV header).
    public let keys: [String]
    private let sink: (Data) throws -> Void
    private var buffer: [UInt8] = []
    private var rows = 0
    private static let flushSize = 256 << 10

    /// A writer of rows with `keys` that hands its bytes to `sink` (a file handle's `write`, say) in chunks.
    public init(format: ImportFileReader.Format, keys: [String], sink: @escaping (Data) throws -> Void) {
        self.format = format
        self.keys = keys
        self.sink = sink
        buffer.reserveCapacity(Self.flushSize + 4096)
        if format == .csv {
            for (index, key) in keys.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                Self.appendCSVField(key, quoteEmpty: true, to: &buffer)
            }
            buffer.append(contentsOf: [0x0D, 0x0A])
        } else if format == .json {
            buffer.append(UInt8(ascii: "["))
        }
    }

    /// Writes one row: `values` in the order of ``keys``.
    public func write(_ values: [AttributeValue]) throws {
        switch format {
        case .csv:
            for (index, value) in values.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                appendCSV(value)
            }
            buffer.append(contentsOf: [0x0D, 0x0A])
        case .json, .jsonLines:
            if format == .json { buffer.append(contentsOf: rows == 0 ? [0x0A] : [UInt8(ascii: ","), 0x0A]) }
            buffer.append(UInt8(ascii: "{"))
            for (index, (key, value)) in zip(keys, values).enumerated() {
                if index > 0 { buffer.append(contentsOf: [UInt8(ascii: ","), 0x20]) }
                Self.appendJSONString(key, to: &buffer)
                buffer.append(contentsOf: [UInt8(ascii: ":"), 0x20])
                appendJSON(value)
            }
            buffer.append(UInt8(ascii: "}"))
            if format == .jsonLines { buffer.append(0x0A) }
        }
        rows += 1
        if buffer.count >= Self.flushSize { try flush() }
    }

    /// Ends the file (the JSON array's `]`) and hands over what is buffered.
    public func finish() throws {
        if format == .json { buffer.append(contentsOf: rows == 0 ? [UInt8(ascii: "]"), 0x0A] : [0x0A, UInt8(ascii: "]"), 0x0A]) }
        try flush()
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try sink(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    /// A value as text, as the importer reads it (nil for no value).
    public static func text(_ value: AttributeValue) -> String? {
        switch value {
        case .null: nil
        case .integer(let number): String(number)
        case .double(let number): number.isFinite ? "\(number)" : nil
        case .decimal(let number): number.isNaN ? nil : number.description
        case .string(let text): text
        case .boolean(let flag): flag ? "true" : "false"
        case .date(let date): ISO8601DateText.exactString(from: date)
        case .binary(let data): data.base64EncodedString()
        case .uuid(let uuid): uuid.uuidString
        case .uri(let url): url.absoluteString
        }
    }

    private func appendJSON(_ value: AttributeValue) {
        switch value {
        case .integer, .double, .decimal, .boolean:
            buffer.append(contentsOf: (Self.text(value) ?? "null").utf8)
        case .null:
            buffer.append(contentsOf: "null".utf8)
        default:
            Self.appendJSONString(Self.text(value) ?? "", to: &buffer)
        }
    }

    private func appendCSV(_ value: AttributeValue) {
        guard let text = Self.text(value) else { return }
        switch value {
        case .string, .binary: Self.appendCSVField(text, quoteEmpty: true, to: &buffer)
        default: Self.appendCSVField(text, quoteEmpty: false, to: &buffer)
        }
    }

    /// `text` as a CSV field: quoted when it holds a comma, a quote or a line break (or, with `quoteEmpty`,
    /// is empty, so that it reads back as an empty string rather than no value).
    public static func csvField(_ text: String) -> String {
        var bytes: [UInt8] = []
        appendCSVField(text, quoteEmpty: true, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendCSVField(_ text: String, quoteEmpty: Bool, to buffer: inout [UInt8]) {
        let utf8 = text.utf8
        let needsQuotes = (quoteEmpty && utf8.isEmpty)
            || utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else {
            buffer.append(contentsOf: utf8)
            return
        }
        buffer.append(UInt8(ascii: "\""))
        for byte in utf8 {
            if byte == UInt8(ascii: "\"") { buffer.append(byte) }
            buffer.append(byte)
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func appendJSONString(_ text: String, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
            default: buffer.append(byte)
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }
}
