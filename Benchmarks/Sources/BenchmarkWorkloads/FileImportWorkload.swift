import Foundation
import ObjectGraph

/// Workload 9: importing a file — the people of workload 1 written as a JSON array, JSON Lines and CSV — with
/// ObjectGraph's streaming ``ImportFileReader`` and ``BatchImporter`` (what `objectgraph import` and `people
/// import` run), next to the engine's import of the same rows from memory (workload 1, siblings, alone) and
/// raw SQLite, with the same batch size. Also: ISO 8601 parsing, ours against Foundation's.
public enum FileImportWorkload {
    /// The keys written, in order: the benchmark model's stored attributes the rows fill.
    public static let keys = ["firstName", "lastName", "email", "city", "age", "createdAt", "section"]

    /// Writes `rows` as a file of `format` (with ObjectGraph's ``ExportWriter``), replacing it; returns its URL.
    public static func write(_ rows: [PersonRow], format: ImportFileReader.Format, name: String) throws -> URL {
        let url = StoreFile.scratch.appendingPathComponent(name + "." + (format == .csv ? "csv" : format == .json ? "json" : "jsonl"))
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let writer = ExportWriter(format: format, keys: keys) { try handle.write(contentsOf: $0) }
        for row in rows {
            try writer.write([.string(row.firstName), .string(row.lastName), .string(row.email), .string(row.city),
                .integer(row.age), .date(Date(timeIntervalSinceReferenceDate: row.createdAt)), .string(row.section)])
        }
        try writer.finish()
        return url
    }

    /// What one file import measured.
    public struct Result: Sendable {
        /// Start (opening the file) to the last batch saved.
        public var seconds: Double
        /// Start to the first batch saved.
        public var firstBatchSeconds: Double
        /// Rows inserted.
        public var rows: Int
        /// Resident memory with the store open, before the import (MB).
        public var baselineMB: Double
        /// Peak resident memory during the import, above the baseline (MB).
        public var peakAboveMB: Double
    }

    /// Imports `file` into the (empty) store at `store` through a private-queue context on its coordinator,
    /// `batchSize` rows per save. Call it in a fresh process for the memory figures.
    public static func run(store: StoreFile, file: URL, batchSize: Int) throws -> Result {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        guard let entity = coordinator.managedObjectModel.entity(named: PersonModel.entityName) else {
            throw RawSQLiteError(description: "no Person entity")
        }
        let baseline = Measure.rssMB()
        Measure.resetPeakRSS()
        let start = Measure.now()
        var firstBatch: UInt64?
        let reader = try ImportFileReader(contentsOf: file)
        let importer = BatchImporter(context: context, entity: entity, batchSize: batchSize)
        var problems: [String] = []
        let summary = importer.run(reader, report: { problems.append($0) }) { _ in
            if firstBatch == nil { firstBatch = Measure.now() }
        }
        let end = Measure.now()
        guard problems.isEmpty, summary.readError == nil else {
            throw RawSQLiteError(description: "import of \(file.lastPathComponent) failed: "
                + "\(problems.prefix(3)) \(summary.readError.map(String.init(describing:)) ?? "")")
        }
        return Result(seconds: Double(end - start) / 1e9, firstBatchSeconds: Double((firstBatch ?? end) - start) / 1e9,
            rows: summary.inserted, baselineMB: baseline, peakAboveMB: Measure.peakRSSMB() - baseline)
    }

    /// Nanoseconds per parse of `texts` (ISO 8601 date-times, some with fractions): ours, Foundation's
    /// `Date.ISO8601FormatStyle`, and the legacy `ISO8601DateFormatter` the importers used before.
    public static func dateParsing(_ texts: [String]) -> (ours: Double, formatStyle: Double, legacy: Double) {
        var sink = 0.0
        let ours = Measure.seconds {
            for text in texts { sink += ISO8601DateText.date(from: text)?.timeIntervalSinceReferenceDate ?? 0 }
        }
        let plain = Date.ISO8601FormatStyle()
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let style = Measure.seconds {
            for text in texts {
                sink += ((try? plain.parse(text)) ?? (try? fractional.parse(text)))?.timeIntervalSinceReferenceDate ?? 0
            }
        }
        let formatter = ISO8601DateFormatter()
        let fractionalFormatter = ISO8601DateFormatter()
        fractionalFormatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let legacy = Measure.seconds {
            for text in texts {
                sink += (formatter.date(from: text) ?? fractionalFormatter.date(from: text))?.timeIntervalSinceReferenceDate ?? 0
            }
        }
        if sink == 42 { print("") }  // keeps the loops
        let count = Double(max(texts.count, 1))
        return (ours / count * 1e9, style / count * 1e9, legacy / count * 1e9)
    }
}
