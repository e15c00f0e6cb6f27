import Foundation
import ObjectGraph

/// Writes generated people in the formats `objectgraph import` (and `people import`) read: a JSON array
/// of objects keyed by attribute name, JSON Lines, or CSV with a header row; dates in ISO 8601.
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

    /// The format for a file name: by its extension, `.json`, `.jsonl` (or `.ndjson`) or `.csv`.
    public static func format(for url: URL) -> PersonFileReader.Format? {
        PersonFileReader.Format(pathExtension: url.pathExtension)
    }

    /// Writes `count` people generated from `seed` to `url`, replacing the file, with ObjectGraph's
    /// ``ExportWriter`` (the spelling `objectgraph export` writes). The same seed always writes the same bytes.
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
        let writer = ExportWriter(format: format, keys: keys) { data in try handle.write(contentsOf: data) }
        do {
            var written = 0
            while written < count {
                let batch = generator.make(min(1000, count - written))
                for record in batch {
                    try writer.write([.string(record.firstName), .string(record.lastName), .string(record.email),
                        .string(record.city), .integer(record.age), .date(record.createdAt)])
                    written += 1
                }
                progress(written)
            }
            try writer.finish()
        } catch {
            throw WriteError(path: url.path, reason: "cannot write (\(error.localizedDescription))")
        }
    }
}
