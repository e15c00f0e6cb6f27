import Foundation
import ObjectGraph

// A libFuzzer target for the streaming import reader. The first byte of an input picks the format (JSON
// array, JSON Lines, CSV or sniffed) and a chunk size; the rest is the file. Every input must end in rows or
// a typed ImportReadError whose position lies inside the input — never a crash or a hang — and must read the
// same when handed out a few bytes at a time as when read at once (chunk boundaries change nothing). Rows'
// values also go through the converter for every attribute type.

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Everything a reader gives, as text, or the error it stopped with.
func outcome(_ reader: ImportFileReader) -> (rows: [String], error: ImportReadError?) {
    var rows: [String] = []
    do {
        while let row = try reader.next() {
            var text = "\(row.index) \(row.line) \(row.byteOffset) "
            switch row.fields {
            case .success(let fields):
                text += fields.map { "\($0.key)=\($0.value)" }.joined(separator: "|")
                for (_, value) in fields {
                    for type in AttributeType.allCases { _ = try? ImportValueConverter.value(value, type: type) }
                }
            case .failure(let problem): text += "! \(problem)"
            }
            rows.append(text)
        }
        return (rows, nil)
    } catch {
        return (rows, error)
    }
}

func fuzzOne(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes, count > 0 else { return 0 }
    let selector = bytes[0]
    let data = Data(UnsafeBufferPointer(start: bytes + 1, count: count - 1))
    let formats: [ImportFileReader.Format?] = [.json, .jsonLines, .csv, nil]
    let format = formats[Int(selector & 3)]
    let chunk = [1, 2, 3, 7, 16, 64, 4096, 5][Int(selector >> 2 & 7)]
    let limit = selector & 0x20 != 0 ? 256 : ImportFileReader.defaultMaximumRowBytes
    let whole = outcome(ImportFileReader(data: data, format: format, chunkSize: nil, maximumRowBytes: limit))
    let chunked = outcome(ImportFileReader(data: data, format: format, chunkSize: chunk, maximumRowBytes: limit))
    for error in [whole.error, chunked.error].compactMap({ $0 }) where error.kind != .layout {
        precondition(error.line >= 1 && error.column >= 1 && error.byteOffset <= data.count,
            "position out of range: \(error) @\(error.byteOffset) of \(data.count)")
        precondition(!error.message.isEmpty, "empty message")
    }
    if whole.error?.kind != .rowTooLarge, chunked.error?.kind != .rowTooLarge {
        precondition(whole.rows == chunked.rows && whole.error == chunked.error,
            "chunk \(chunk) reads differently:\n\(whole)\n---\n\(chunked)")
    }
    let csv = CSVRecordReader(data: data, chunkSize: chunk)
    while (try? csv.next()) ?? nil != nil {}
    _ = try? ImportJSONValue.parse(data)
    if let text = String(data: data.prefix(64), encoding: .utf8) {
        if let date = ISO8601DateText.date(from: text) {
            precondition(ISO8601DateText.date(from: ISO8601DateText.exactString(from: date)) == date, "date round trip: \(text)")
        }
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzzOne(bytes, count)
}

@_cdecl("FuzzImportReader_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { bytes, size in fuzzOne(bytes, size) }
}
