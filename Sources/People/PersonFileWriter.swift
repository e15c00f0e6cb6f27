import Foundation

/// Writes generated people in the formats `objectgraph import` (and `people import`) read: a JSON array
/// of objects keyed by attribute name, or CSV with a header row; dates in ISO 8601.
public enum PersonFileWriter {
    /// The columns written, in order.
    public static let keys = ["firstName", "lastName", "email", "city", "age", "createdAt"]

    /// Why a file could not be written.
    public struct WriteError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file.
        public var path: String
        /// What went wrong.
        public var reason: String

        public var description: String { "\(path): \(reason)" }
    }

    /// The format for a file name: by its extension, `.json` or `.csv`.
    public static func format(for url: URL) -> PersonFileReader.Format? {
        switch url.pathExtension.lowercased() {
        case "json": .json
        case "csv": .csv
        default: nil
        }
    }

    /// Writes `count` people generated from `seed` to `url`, replacing the file. The same seed always
    /// writes the same bytes.
    ///
    /// - Parameter progress: called with the number of people written so far, now and then.
    public static func writeGenerated(
        count: Int, seed: UInt64, to url: URL, format: PersonFileReader.Format,
        progress: (Int) -> Void = { _ in }
    ) throws(WriteError) {
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: url)
        else { throw WriteError(path: url.path, reason: "cannot create the file") }
        defer { try? handle.close() }
        var generator = PersonGenerator(seed: seed)
        let dates = ISO8601DateFormatter()
        let encoder = PersonRecord.makeJSONEncoder()
        var chunk = format == .json ? "[" : keys.joined(separator: ",") + "\n"
        func flush() throws(WriteError) {
            do {
                try handle.write(contentsOf: Data(chunk.utf8))
            } catch {
                throw WriteError(path: url.path, reason: "cannot write (\(error.localizedDescription))")
            }
            chunk = ""
        }
        var written = 0
        while written < count {
            let batch = generator.make(min(1000, count - written))
            for record in batch {
                switch format {
                case .json:
                    let object = (try? encoder.encode(record)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
                    chunk += (written == 0 ? "\n  " : ",\n  ") + object
                case .csv:
                    let fields = [record.firstName, record.lastName, record.email, record.city].map(CSVTable.field)
                        + [String(record.age), dates.string(from: record.createdAt)]
                    chunk += fields.joined(separator: ",") + "\n"
                }
                written += 1
            }
            try flush()
            progress(written)
        }
        if format == .json {
            chunk = count == 0 ? "]\n" : "\n]\n"
            try flush()
        }
    }
}
