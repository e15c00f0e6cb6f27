import Foundation
import ObjectGraph

/// Inserts rows into a store in batches, one `save()` per batch.
///
/// A batch with a bad row is not written at all: every bad row in it is reported, the batch's objects
/// are rolled back (`rollback()`), and the import goes on with the next batch. A batch whose save fails
/// (validation in the framework, say) is rolled back the same way, with the failing rows named when
/// the error says which objects failed.
struct ObjectImporter {
    /// What an import did.
    struct Summary: Equatable {
        /// Objects written to the store.
        var inserted = 0
        /// Rows reported as bad (by conversion or by the save).
        var rejectedRows = 0
        /// Batches not written.
        var failedBatches = 0
        /// Rows not written (bad ones and the good ones in their batches).
        var skippedRows = 0
    }

    /// A private-queue context on the store.
    let context: ManagedObjectContext
    /// The entity to insert objects of.
    let entity: EntityDescription
    /// How many rows make one batch (one save).
    let batchSize: Int

    /// Imports `records`, calling `report` with one line per problem (for standard error).
    func run(_ records: [ImportRecord], report: (String) -> Void) -> Summary {
        let converter = RowConverter(entity: entity)
        var summary = Summary()
        var start = 0
        while start < records.count {
            let batch = records[start..<min(start + batchSize, records.count)]
            start += batchSize
            var converted: [(record: ImportRecord, values: [(String, AttributeValue)])] = []
            var bad = 0
            for record in batch {
                switch record.fields.flatMap(converter.convert) {
                case .success(let values): converted.append((record, values))
                case .failure(let problem):
                    bad += 1
                    report("\(Self.label(record)): \(problem)")
                }
            }
            if bad > 0 {
                summary.rejectedRows += bad
                summary.failedBatches += 1
                summary.skippedRows += batch.count
                report("\(label(batch)) not written: \(bad) bad row\(bad == 1 ? "" : "s")")
                continue
            }
            switch save(converted) {
            case .success:
                summary.inserted += batch.count
            case .failure(let failure):
                summary.rejectedRows += failure.rows.isEmpty ? batch.count : failure.rows.count
                summary.failedBatches += 1
                summary.skippedRows += batch.count
                for (record, reason) in failure.rows { report("\(Self.label(record)): \(reason)") }
                report("\(label(batch)) not written: \(failure.message)")
            }
        }
        return summary
    }

    /// Why a batch's save failed: the error, and the rows it names.
    private struct SaveFailure: Error {
        var message: String
        var rows: [(ImportRecord, String)]
    }

    /// Inserts one batch and saves it; on failure rolls it back.
    private func save(_ rows: [(record: ImportRecord, values: [(String, AttributeValue)])]) -> Result<Void, SaveFailure> {
        context.performAndWait {
            var recordByObject: [ManagedObjectID: ImportRecord] = [:]
            do {
                for (record, values) in rows {
                    let object = try context.insertNewObject(forEntityName: entity.name)
                    for (key, value) in values { object.setValue(value, forKey: key) }
                    recordByObject[object.objectID] = record
                }
                try context.save()
                context.reset()
                return .success(())
            } catch {
                context.rollback()
                var named: [(ImportRecord, String)] = []
                if case ObjectGraphError.validation(let failures)? = error as? ObjectGraphError {
                    for failure in failures {
                        if let record = recordByObject[failure.objectID] {
                            named.append((record, "'\(failure.key)': \(failure.reason)"))
                        }
                    }
                    named.sort { $0.0.index < $1.0.index }
                }
                return .failure(SaveFailure(message: "save failed: \(error)", rows: named))
            }
        }
    }

    /// `row 3` or `row 3 (line 5)`.
    static func label(_ record: ImportRecord) -> String {
        "row \(record.index)" + (record.line.map { " (line \($0))" } ?? "")
    }

    /// `batch 2 (rows 2000–2999)`.
    func label(_ batch: ArraySlice<ImportRecord>) -> String {
        guard let first = batch.first, let last = batch.last else { return "empty batch" }
        let number = first.index / max(batchSize, 1)
        let rows = first.index == last.index ? "row \(first.index)" : "rows \(first.index)–\(last.index)"
        return "batch \(number) (\(rows))"
    }
}
