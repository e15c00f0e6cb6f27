import Foundation
import SQLiteStorage
import Testing
import TestSupport
@testable import ObjectGraph

/// Several writers (issue 31): two importer processes fill separate ranges of one store with history on, while
/// this process browses it (a watching coordinator, an auto-merging context and a controller); either importer is
/// SIGKILLed at random moments and started again. Afterwards: no torn batch, no repeated key, `Z_MAX` past every
/// key, the history holds exactly the committed transactions (one per batch, with exactly its rows), and the
/// browser's list equals a fresh fetch. `KILL_SEED` replays a run.
@Suite("Several writers and a browser, killed at random", .serialized)
struct MultiWriterKillTests {
    static let batchSize = 20
    static let batchesPerLane = 12
    static let lanes = [0, 1000]

    @Test func twoImportersAndABrowser() throws {
        let importer = try CrashImporter.require()
        let seed = ProcessInfo.processInfo.environment["KILL_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("MultiWriterKillTests: seed \(seed) (KILL_SEED=\(seed) replays it)")
        var random = SeededRandom(seed: seed)
        let directory = TemporaryDirectory()
        let url = directory.file("shared.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        var options = PersistentStoreOptions()
        options.persistentHistoryTracking = true
        options.remoteChangeNotifications = true
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: options)
        let browser = try RemoteChangeTests.Watcher(coordinator, entity: "ImportedItem", sortKey: "seq")

        func arguments(_ lane: Int) -> [String] {
            [url.path, "--history", "--batch-size", String(Self.batchSize), "--first", String(lane),
             "--until", String(lane + Self.batchesPerLane)]
        }
        var finished: Set<Int> = []
        var kills = 0
        for round in 0..<40 where finished.count < Self.lanes.count {
            let running = try Self.lanes.filter { !finished.contains($0) }.map { lane in
                (lane, try RunningChildProcess(executable: importer, arguments: arguments(lane),
                    errorLog: directory.file("importer-\(lane).log")))
            }
            for (lane, child) in running {
                // Kill after a random number of progress lines (R, B, S, C per batch), or let it finish.
                if (round == 0 && lane == Self.lanes[0]) || Int.random(in: 0..<4, using: &random) > 0 {
                    child.waitForLines(Int.random(in: 1...12, using: &random), timeout: 30)
                    child.signal(SIGKILL)
                    kills += 1
                }
                let status = try child.waitForExit(timeout: 60)
                if status == 0, child.lines.last == "D" { finished.insert(lane) }
            }
        }
        // Whatever is left runs to its end.
        for lane in Self.lanes where !finished.contains(lane) {
            let run = try CrashImporter.run(importer, arguments(lane), errorLog: directory.file("importer-\(lane).log"))
            #expect(run.status == 0 && run.lines.last == "D", "lane \(lane): \(run.lines)")
        }
        #expect(kills > 0, "the run killed nobody (seed \(seed))")

        let total = Self.lanes.count * Self.batchesPerLane * Self.batchSize
        let violations = try Self.audit(url.path)
        #expect(violations.isEmpty, "seed \(seed): \(violations)")
        // The browser followed every committed batch, and shows what a fresh fetch shows.
        #expect(browser.wait { $0.fetchedObjects?.count == total }, "seed \(seed): browser shows \(browser.objectCount)")
        let fresh = ManagedObjectContext(concurrencyType: .privateQueue)
        fresh.persistentStoreCoordinator = coordinator
        let expected = try fresh.performAndWait {
            try fresh.fetchObjectIDs(FetchRequest<ManagedObject>(entityName: "ImportedItem",
                sortCriteria: [SortCriterion("seq")]))
        }
        let shown = browser.context.performAndWait { browser.controller.fetchedObjects?.map(\.objectID) }
        #expect(shown == expected, "seed \(seed)")
        #expect(browser.context.performAndWait { browser.recorder.protocolErrors }.isEmpty)
    }

    /// The importer's model.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "ImportedItem", attributes: [
                AttributeDescription(name: "batch", type: .integer64, isOptional: false, defaultValue: 0),
                AttributeDescription(name: "seq", type: .integer64, isOptional: false, defaultValue: 0),
                AttributeDescription(name: "payload", type: .string),
            ])
        ])
    }

    /// What is wrong with the store: torn or missing batches, repeated keys, a key generator behind, or history
    /// that does not match the rows.
    static func audit(_ path: String) throws -> [String] {
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        defer { connection.close() }
        var violations: [String] = []
        func integer(_ sql: String) throws -> Int64 {
            if case .integer(let value)? = try connection.scalar(sql) { return value }
            return -1
        }
        let batches = try connection.rows("SELECT ZBATCH, count(*), min(ZSEQ), max(ZSEQ) FROM ZIMPORTEDITEM GROUP BY ZBATCH")
        let expectedBatches = Set(lanes.flatMap { $0..<($0 + batchesPerLane) }.map(Int64.init))
        var seen: Set<Int64> = []
        for row in batches {
            guard case .integer(let batch) = row[0], case .integer(let count) = row[1], case .integer(let low) = row[2],
                case .integer(let high) = row[3]
            else { continue }
            seen.insert(batch)
            let first = batch * Int64(batchSize)
            if count != Int64(batchSize) || low != first || high != first + Int64(batchSize) - 1 {
                violations.append("batch \(batch): \(count) rows, seq \(low)…\(high)")
            }
        }
        if seen != expectedBatches { violations.append("batches \(seen.sorted()) are not \(expectedBatches.sorted())") }
        let rows = try integer("SELECT count(*) FROM ZIMPORTEDITEM")
        if try integer("SELECT count(DISTINCT ZSEQ) FROM ZIMPORTEDITEM") != rows { violations.append("repeated seq") }
        let highestKey = try integer("SELECT max(Z_PK) FROM ZIMPORTEDITEM")
        if try integer("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'ImportedItem'") < highestKey {
            violations.append("Z_MAX is below the highest key \(highestKey)")
        }
        // History: one transaction per batch, each holding exactly its batch's inserts, nothing else.
        let transactions = try integer("SELECT count(*) FROM ATRANSACTION")
        if transactions != Int64(expectedBatches.count) {
            violations.append("\(transactions) history transactions for \(expectedBatches.count) batches")
        }
        let perTransaction = try connection.rows(
            "SELECT count(*), count(DISTINCT i.ZBATCH) FROM ACHANGE c LEFT JOIN ZIMPORTEDITEM i ON i.Z_PK = c.ZENTITYPK "
                + "GROUP BY c.ZTRANSACTIONID")
        for row in perTransaction where row != [.integer(Int64(batchSize)), .integer(1)] {
            violations.append("a history transaction holds \(row) (changes, batches)")
        }
        if try integer("SELECT count(*) FROM ACHANGE") != rows
            || integer("SELECT count(*) FROM ZIMPORTEDITEM WHERE Z_PK NOT IN (SELECT ZENTITYPK FROM ACHANGE)") != 0
        {
            violations.append("the history's changes are not exactly the rows")
        }
        if try integer("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16002") < (try integer("SELECT max(Z_PK) FROM ATRANSACTION")) {
            violations.append("the history's key generator is behind")
        }
        return violations
    }
}
