import Foundation
import ObjectGraph

/// Workloads 5 and 6: memory while scrolling a large store with `fetchBatchSize`, and cold start to the first
/// screen. Each runs in a process of its own (RSS and the page cache are per process / per file).
public enum ScrollWorkload {
    /// RSS figures in MB and the walk's time.
    public struct Memory: Sendable {
        public var baselineMB = 0.0, steadyAboveMB = 0.0, peakAboveMB = 0.0, seconds = 0.0, rows = 0
    }

    /// ObjectGraph: open the store, then a controller with `fetchBatchSize` 50 and walk
    /// `controller.object(at:)` over every row, reading a property.
    public static func objectGraphMemory(_ file: StoreFile) throws -> Memory {
        let coordinator = try file.coordinator()
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        var memory = Memory()
        try context.performAndWait {
            _ = try context.count(for: FetchRequest<ManagedObject>(entityName: PersonModel.entityName, fetchLimit: 1))
            memory.baselineMB = Measure.rssMB()
            Measure.resetPeakRSS()
            memory.seconds = try Measure.seconds {
                let controller = makeListController(context, batchSize: 50)
                try controller.performFetch()
                var bytes = 0
                for section in 0..<controller.numberOfSections {
                    for row in 0..<controller.numberOfObjects(inSection: section) {
                        let person = controller.object(at: listIndexPath(row: row, section: section))
                        bytes += person.value(forKey: "lastName").stringValue?.utf8.count ?? 0
                        memory.rows += 1
                    }
                }
                precondition(bytes > 0, "nothing read")
                memory.steadyAboveMB = Measure.rssMB() - memory.baselineMB
                withExtendedLifetime(controller) {}
            }
        }
        memory.peakAboveMB = Measure.peakRSSMB() - memory.baselineMB
        return memory
    }

    /// Raw: open, read the ordered keys, then walk them in windows of 50, reading each window's rows by key.
    public static func rawMemory(_ file: StoreFile) throws -> Memory {
        let connection = try RawConnection(path: file.path)
        _ = try connection.int("SELECT Z_PK FROM ZPERSON LIMIT 1")
        var memory = Memory()
        memory.baselineMB = Measure.rssMB()
        Measure.resetPeakRSS()
        memory.seconds = try Measure.seconds {
            let keysStatement = try connection.prepare("SELECT Z_PK FROM ZPERSON ORDER BY ZLASTNAME, ZFIRSTNAME, Z_PK")
            var keys: [Int64] = []
            while keysStatement.step() { keys.append(keysStatement.int(0)) }
            let marks = Array(repeating: "?", count: 50).joined(separator: ",")
            let window = try connection.prepare(
                "SELECT Z_PK, ZFIRSTNAME, ZLASTNAME, ZEMAIL, ZCITY, ZAGE, ZCREATEDAT FROM ZPERSON WHERE Z_PK IN (\(marks))")
            var bytes = 0
            var start = 0
            while start < keys.count {
                let end = min(start + 50, keys.count)
                for index in 0..<50 {
                    window.bind(keys[min(start + index, end - 1)], at: Int32(index + 1))
                }
                var batch: [RawWindowRow] = []
                while window.step() { batch.append(RawWindowRow(key: window.int(0), lastName: window.text(2))) }
                window.reset()
                for row in batch { bytes += row.lastName.utf8.count }
                memory.rows += end - start
                start = end
            }
            precondition(bytes > 0, "nothing read")
            memory.steadyAboveMB = Measure.rssMB() - memory.baselineMB
        }
        memory.peakAboveMB = Measure.peakRSSMB() - memory.baselineMB
        return memory
    }

    struct RawWindowRow { var key: Int64; var lastName: String }

    /// ObjectGraph cold start: evict the file's pages, then open the store and show the first screen (30 rows)
    /// of a controller with `fetchBatchSize` 50, with or without a section cache. Seconds to the first screen,
    /// and to the whole list being ready (a section cache's body is read after the first screen).
    public static func objectGraphColdStart(_ file: StoreFile, cacheName: String?) throws
        -> (firstScreen: Double, wholeList: Double)
    {
        Measure.evictPages(file.allPaths + (cacheName.map { [sectionCachePath($0)] } ?? []))
        let start = Measure.now()
        var firstScreen: UInt64 = 0
        let coordinator = try file.coordinator()
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let controller = makeListController(context, batchSize: 50, cacheName: cacheName)
            try controller.performFetch()
            try readFirstScreen(controller)
            firstScreen = Measure.now()
            // The last row's ID needs every result in place.
            let last = controller.numberOfSections - 1
            let row = controller.numberOfObjects(inSection: last) - 1
            guard controller.objectID(at: listIndexPath(row: row, section: last)) != nil else {
                throw RawSQLiteError(description: "no last row")
            }
        }
        let end = Measure.now()
        return (Double(firstScreen - start) / 1e9, Double(end - start) / 1e9)
    }

    /// Where the controller keeps the section cache named `name` (evicted with the store's files).
    static func sectionCachePath(_ name: String) -> String {
        AnyFetchedResultsController.cacheDirectory.appendingPathComponent(name + ".frcache").path
    }

    /// Deletes the section cache the cold-start runs use, so the first cached run builds it afresh.
    public static func deleteSectionCache() {
        AnyFetchedResultsController.deleteCache(withName: "people")
    }

    static func readFirstScreen(_ controller: FetchedResultsController<ManagedObject>) throws {
        var shown = 0
        var bytes = 0
        for section in 0..<controller.numberOfSections where shown < 30 {
            for row in 0..<min(controller.numberOfObjects(inSection: section), 30 - shown) {
                let person = controller.object(at: listIndexPath(row: row, section: section))
                bytes += (person.value(forKey: "lastName").stringValue?.utf8.count ?? 0)
                    + (person.value(forKey: "firstName").stringValue?.utf8.count ?? 0)
                shown += 1
            }
        }
        guard shown == 30, bytes > 0 else { throw RawSQLiteError(description: "first screen has \(shown) rows") }
    }

    /// Raw cold start: evict, open, count the rows and the rows per section, read the first 30 in list order.
    public static func rawColdStart(_ file: StoreFile) throws -> Double {
        Measure.evictPages(file.allPaths)
        return try Measure.seconds {
            let connection = try RawConnection(path: file.path)
            _ = try connection.int("SELECT count(*) FROM ZPERSON")
            let screen = try connection.prepare(
                "SELECT Z_PK, ZFIRSTNAME, ZLASTNAME, ZSECTION FROM ZPERSON ORDER BY ZLASTNAME, ZFIRSTNAME, Z_PK LIMIT 30")
            var rows = 0
            while screen.step() {
                _ = screen.text(2)
                rows += 1
            }
            guard rows == 30 else { throw RawSQLiteError(description: "first screen has \(rows) rows") }
        }
    }
}
