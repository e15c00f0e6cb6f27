import Dispatch
import Foundation

/// Inserts the rows of an ``ImportFileReader`` into a store in batches, one `save()` per batch, as the file
/// is read: the first batch is on disk before the rest of the file is read, and memory holds one batch.
///
/// A batch with a bad row is not written at all: every bad row in it is reported, the batch's objects are
/// rolled back (`rollback()`), and the import goes on with the next batch. A batch whose save fails
/// (validation in the framework, say) is rolled back the same way, with the failing rows named when the
/// error says which objects failed. A read error (malformed JSON or CSV) ends the import after the batches
/// before it; it is in ``Summary/readError``.
public struct BatchImporter {
    /// What an import did.
    public struct Summary: Equatable, Sendable {
        /// Rows read.
        public var rows = 0
        /// Objects written to the store.
        public var inserted = 0
        /// Rows reported as bad (by conversion or by the save).
        public var rejectedRows = 0
        /// Batches not written.
        public var failedBatches = 0
        /// Rows not written (bad ones and the good ones in their batches).
        public var skippedRows = 0
        /// Bytes of the file read so far.
        public var bytesRead = 0
        /// Why reading stopped early, if it did.
        public var readError: ImportReadError?

        /// An empty summary.
        public init() {}
    }

    /// A private-queue context on the store.
    public let context: ManagedObjectContext
    /// The entity to insert objects of.
    public let entity: EntityDescription
    /// How many rows make one batch (one save).
    public let batchSize: Int
    /// Converts rows to values.
    public let converter: ImportRowConverter

    /// An importer of rows of `entity` into `context`, `batchSize` rows per save (at least 1).
    public init(context: ManagedObjectContext, entity: EntityDescription, batchSize: Int,
        converter: ImportRowConverter? = nil)
    {
        self.context = context
        self.entity = entity
        self.batchSize = max(1, batchSize)
        self.converter = converter ?? ImportRowConverter(entity: entity)
    }

    /// Imports every row of `reader`, calling `report` with one line per problem (for standard error) and
    /// `onBatch` after each batch (written or not) with the summary so far.
    ///
    /// Reading and converting a batch overlaps the save of the one before (on the context's queue), so the
    /// file costs little more than the saves. Call it off the context's queue.
    public func run(_ reader: ImportFileReader, report: (String) -> Void, onBatch: (Summary) -> Void = { _ in })
        -> Summary
    {
        let showsLines = reader.format != .json
        var summary = Summary()
        var inFlight: InFlightSave?
        var finished = false
        while !finished {
            var batch: [ImportRow] = []
            batch.reserveCapacity(batchSize)
            do {
                while batch.count < batchSize, let row = try reader.next() { batch.append(row) }
            } catch {
                summary.readError = error
            }
            finished = batch.count < batchSize || summary.readError != nil
            // Convert while the batch before is being saved.
            var converted: [[(String, AttributeValue)]] = []
            converted.reserveCapacity(batch.count)
            var problems: [(ImportRow, ImportRowProblem)] = []
            for row in batch {
                let result: Result<[(String, AttributeValue)], ImportRowProblem>
                switch row.fields {
                case .success(let fields): result = converter.convert(fields)
                case .failure(let problem): result = .failure(problem)
                }
                switch result {
                case .success(let values): converted.append(values)
                case .failure(let problem): problems.append((row, problem))
                }
            }
            if let previous = inFlight {
                finish(previous, showsLines: showsLines, into: &summary, report: report)
                summary.bytesRead = reader.bytesConsumed
                onBatch(summary)
                inFlight = nil
            }
            guard !batch.isEmpty else { break }
            summary.rows += batch.count
            guard problems.isEmpty else {
                for (row, problem) in problems { report("\(Self.label(row, showsLine: showsLines)): \(problem)") }
                summary.rejectedRows += problems.count
                summary.failedBatches += 1
                summary.skippedRows += batch.count
                report("\(label(batch)) not written: \(problems.count) bad row\(problems.count == 1 ? "" : "s")")
                summary.bytesRead = reader.bytesConsumed
                onBatch(summary)
                continue
            }
            inFlight = startSave(converted, places: batch.map { RowPlace(index: $0.index, line: $0.line) },
                label: label(batch))
        }
        if let previous = inFlight {
            finish(previous, showsLines: showsLines, into: &summary, report: report)
            summary.bytesRead = reader.bytesConsumed
            onBatch(summary)
        }
        summary.bytesRead = reader.bytesRead
        return summary
    }

    /// A batch being saved on the context's queue, and its outcome once `done` is signalled.
    private final class InFlightSave: @unchecked Sendable {
        let count: Int
        let label: String
        let done = DispatchSemaphore(value: 0)
        var result: Result<Void, SaveFailure> = .success(())

        init(count: Int, label: String) {
            self.count = count
            self.label = label
        }
    }

    /// Where a row is, for messages about it.
    private struct RowPlace: Sendable {
        var index: Int
        var line: Int
    }

    /// Starts inserting and saving `rows` (at `places`) on the context's queue.
    private func startSave(_ rows: [[(String, AttributeValue)]], places: [RowPlace], label: String) -> InFlightSave {
        let save = InFlightSave(count: rows.count, label: label)
        let context = context
        let entityName = entity.name
        context.perform {
            save.result = Self.save(rows, places: places, in: context, entityName: entityName)
            save.done.signal()
        }
        return save
    }

    /// Waits for a batch's save and adds its outcome to the summary.
    private func finish(_ save: InFlightSave, showsLines: Bool, into summary: inout Summary, report: (String) -> Void) {
        save.done.wait()
        switch save.result {
        case .success:
            summary.inserted += save.count
        case .failure(let failure):
            summary.rejectedRows += failure.rows.isEmpty ? save.count : failure.rows.count
            summary.failedBatches += 1
            summary.skippedRows += save.count
            for (place, reason) in failure.rows {
                report("row \(place.index)" + (showsLines ? " (line \(place.line))" : "") + ": \(reason)")
            }
            report("\(save.label) not written: \(failure.message)")
        }
    }

    /// Why a batch's save failed: the error, and the rows it names.
    private struct SaveFailure: Error {
        var message: String
        var rows: [(RowPlace, String)]
    }

    /// Inserts one batch and saves it; on failure rolls it back. Runs on the context's queue.
    private static func save(_ rows: [[(String, AttributeValue)]], places: [RowPlace], in context: ManagedObjectContext,
        entityName: String) -> Result<Void, SaveFailure>
    {
        var ids: [ManagedObjectID] = []  // as inserted (temporary), as validation failures name them
        ids.reserveCapacity(rows.count)
        do {
            for values in rows {
                let object = try context.insertNewObject(forEntityName: entityName)
                for (key, value) in values { object.setValue(value, forKey: key) }
                ids.append(object.objectID)
            }
            try context.save()
            context.reset()
            return .success(())
        } catch {
            var rowByObject: [ManagedObjectID: RowPlace] = [:]
            for (id, place) in zip(ids, places) { rowByObject[id] = place }
            context.rollback()
            var named: [(RowPlace, String)] = []
            if case .validation(let failures) = error {
                for failure in failures {
                    if let row = rowByObject[failure.objectID] {
                        named.append((row, "'\(failure.key)': \(failure.reason)"))
                    }
                }
                named.sort { $0.0.index < $1.0.index }
            }
            return .failure(SaveFailure(message: "save failed: \(error)", rows: named))
        }
    }

    /// `row 3`, or `row 3 (line 5)` when `showsLine`.
    public static func label(_ row: ImportRow, showsLine: Bool) -> String {
        "row \(row.index)" + (showsLine ? " (line \(row.line))" : "")
    }

    /// `batch 2 (rows 2000–2999)`.
    func label(_ batch: [ImportRow]) -> String {
        guard let first = batch.first, let last = batch.last else { return "empty batch" }
        let number = first.index / batchSize
        let rows = first.index == last.index ? "row \(first.index)" : "rows \(first.index)–\(last.index)"
        return "batch \(number) (\(rows))"
    }
}
