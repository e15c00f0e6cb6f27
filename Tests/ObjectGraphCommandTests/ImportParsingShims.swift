import Foundation
import ObjectGraph

// The import parsing tests were written against the tool's own readers and converter, which now live in
// ObjectGraph (Sources/ObjectGraph/Import). These names keep those tests' assertions as they were.

typealias JSONInput = ImportJSONValue
typealias ISO8601 = ISO8601DateText

/// The CSV records of `data` (the shared streaming reader, whole).
enum CSVReader {
    static func parse(_ data: Data) throws(CSVReadError) -> [CSVRecord] {
        let reader = CSVRecordReader(data: data)
        var records: [CSVRecord] = []
        do {
            while let record = try reader.next() { records.append(record) }
        } catch {
            throw CSVReadError(message: error.message, line: error.line, column: error.column)
        }
        return records
    }
}

/// A read error without its byte offset.
struct CSVReadError: Error, Equatable {
    var message: String
    var line: Int
    var column: Int
}

enum JSONReader {
    static func parse(_ data: Data) throws(ImportReadError) -> ImportJSONValue { try ImportJSONValue.parse(data) }
}

enum ImportValueParser {
    static func fromText(_ text: String, type: AttributeType) throws(ImportValueError) -> AttributeValue {
        try ImportValueConverter.value(text: text, type: type)
    }

    static func value(_ input: ImportJSONValue, for attribute: AttributeDescription) throws(ImportValueError)
        -> AttributeValue
    {
        try ImportValueConverter.value(json: input, type: attribute.attributeType)
    }
}
