import Dispatch
import Foundation
import ObjectGraph

/// Workload 7, typing: a search typed into the people list one character at a time. Each keystroke sets the
/// list controller's predicate to what the `people` filter builds for plain text — `firstName`, `lastName`,
/// `email` or `city` `CONTAINS[cd]` the text — fetches (`performFetch()`, a batched controller) and reads the
/// first screen of rows (30 people, their four searched values): from input to the list updated. The same
/// keystrokes run, alternately, on a store whose model declares the text search index on those four
/// attributes and on one without it (the scan), in the same run. Also: how long the store takes to build the
/// index when the model first asks for it, how much it adds to the file, and an import with and without it.
public enum TypingWorkload {
    /// The words typed; each is typed from its first character to its eighth (or its end).
    public static let words = ["muller", "berlin", "zoe.12", "abbott45", "z", "ab", "quinn"]

    /// The searched attributes, as the `people` filter searches them.
    public static let searchedKeys = ["firstName", "lastName", "email", "city"]

    /// The benchmark model, with the text search index on the searched attributes when `textIndexed`.
    public static func model(textIndexed: Bool) throws -> ManagedObjectModel {
        let plain = try PersonModel.make(index: .name)
        guard textIndexed, let person = plain.entity(named: PersonModel.entityName) else { return plain }
        let attributes = person.attributes.map { attribute in
            var attribute = attribute
            attribute.isIndexedBySpotlight = searchedKeys.contains(attribute.name)
            return attribute
        }
        return try ManagedObjectModel(entities: [EntityDescription(name: person.name, attributes: attributes,
            fetchIndexes: person.fetchIndexes)])
    }

    /// The predicate the `people` filter builds for plain `text`.
    public static func predicate(_ text: String) -> FetchPredicate {
        .or(searchedKeys.map { .key($0, .contains, .string(text), options: [.caseInsensitive, .diacriticInsensitive]) })
    }

    /// One keystroke on both stores.
    public struct Keystroke: Sendable {
        public var text: String
        public var indexed: Double
        public var scan: Double
        /// On the indexed store, a tracked list fetched in the background as `people` fetches it: narrowing its
        /// results when the text extends the last one (``narrows(_:after:shown:total:)``), else in full.
        public var narrowed: Double
        /// Whether that keystroke narrowed.
        public var didNarrow: Bool
        public var matches: Int
    }

    /// Whether typing `text` after `previous` (which shows `shown` of `total` people) narrows the shown results
    /// rather than fetching in full, by `people`'s rule: the text extends the previous one, the index cannot
    /// answer it (fewer than three characters), and the list shows at most a third of the people.
    public static func narrows(_ text: String, after previous: String, shown: Int, total: Int) -> Bool {
        guard !previous.isEmpty, text.count > previous.count, text.hasPrefix(previous) else { return false }
        return text.count < 3 && shown * 3 <= total
    }

    /// What the run measured.
    public struct Result: Sendable {
        /// Seconds the store took to open a store of `count` people when the model first asks for the index.
        public var indexBuild = 0.0
        /// File sizes (database and WAL, checkpointed) before and after the index.
        public var bytesWithout: Int64 = 0
        public var bytesWith: Int64 = 0
        public var keystrokes: [Keystroke] = []
        /// Import of the import size, 1000 per save, one context on the coordinator: without and with the index
        /// (medians of the rounds, run alternately).
        public var importWithout = 0.0
        public var importWith = 0.0
        public var importCount = 0
    }

    static func bytes(_ file: StoreFile) -> Int64 {
        file.allPaths.reduce(0) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }

    /// Runs the workload on copies of a store of `count` people. Call off the main thread with the main queue
    /// running.
    public static func run(count: Int, importCount: Int, importRounds: Int = 3) throws -> Result {
        var result = Result()
        let base = try StoreFile.filled("people-\(count)", index: .name, count: count)
        let scanFile = try base.copy(as: "typing-scan-\(count)")
        let indexedFile = try base.copy(as: "typing-text-\(count)")
        defer {
            scanFile.remove()
            indexedFile.remove()
        }
        result.bytesWithout = bytes(indexedFile)
        let scan = PersistentStoreCoordinator(managedObjectModel: try model(textIndexed: false))
        try scan.addPersistentStore(ofType: .sqlite, at: scanFile.url)
        let indexed = PersistentStoreCoordinator(managedObjectModel: try model(textIndexed: true))
        result.indexBuild = try Measure.seconds { try indexed.addPersistentStore(ofType: .sqlite, at: indexedFile.url) }
        let checkpoint = try RawConnection(path: indexedFile.path)
        try checkpoint.exec("PRAGMA wal_checkpoint(TRUNCATE)")
        result.bytesWith = bytes(indexedFile)

        let lists = try MainQueue.sync {
            try [scan, indexed, indexed].map { coordinator -> FetchedResultsController<ManagedObject> in
                let context = ManagedObjectContext(concurrencyType: .mainQueue)
                context.persistentStoreCoordinator = coordinator
                let controller = makeListController(context, batchSize: 50)
                try controller.performFetch()
                return controller
            }
        }
        // The third list is tracked, as `people`'s is, so that it may narrow.
        let delegate = ListDelegate()
        MainQueue.sync { lists[2].delegate = delegate }
        for word in words {
            var text = ""
            var shown = 0
            let everyone = try MainQueue.sync {
                lists[2].fetchRequest.predicate = nil
                try lists[2].performFetch()
                return lists[2].numberOfFetchedObjects
            }
            shown = everyone
            for character in word.prefix(8) {
                let previous = text
                text.append(character)
                let predicate = predicate(text)
                var times: [Double] = []
                var counts: [Int] = []
                for list in lists.prefix(2) {
                    let (seconds, matches) = try MainQueue.sync { () throws -> (Double, Int) in
                        var matches = 0
                        let seconds = try Measure.seconds {
                            list.fetchRequest.predicate = predicate
                            try list.performFetch()
                            matches = list.numberOfFetchedObjects
                            try readFirstScreen(list)
                        }
                        return (seconds, matches)
                    }
                    times.append(seconds)
                    counts.append(matches)
                }
                let narrowing = narrows(text, after: previous, shown: shown, total: everyone)
                let (narrowedSeconds, narrowedMatches) = try fetchInBackground(lists[2], predicate: predicate,
                    narrowing: narrowing)
                shown = narrowedMatches
                guard counts[0] == counts[1], counts[1] == narrowedMatches else {
                    throw RawSQLiteError(description: "\"\(text)\": the scan found \(counts[0]), the index \(counts[1]), "
                        + "the list fetched in the background \(narrowedMatches)")
                }
                result.keystrokes.append(Keystroke(text: text, indexed: times[1], scan: times[0],
                    narrowed: narrowedSeconds, didNarrow: narrowing, matches: counts[1]))
            }
        }
        result.importCount = importCount
        let rows = { var generator = PersonGenerator(seed: 7); return generator.people(importCount) }()
        var without: [Double] = []
        var with: [Double] = []
        for _ in 0..<importRounds {
            // Alternately, so that a busy moment of the machine does not fall on one side only.
            for textIndexed in [false, true] {
                let file = StoreFile(url: StoreFile.scratch.appendingPathComponent("typing-import.sqlite"), index: .name)
                file.remove()
                defer { file.remove() }
                let coordinator = PersistentStoreCoordinator(managedObjectModel: try model(textIndexed: textIndexed))
                try coordinator.addPersistentStore(ofType: .sqlite, at: file.url)
                let seconds = try importPeople(rows, into: coordinator)
                if textIndexed { with.append(seconds) } else { without.append(seconds) }
            }
        }
        result.importWithout = Measure.median(without)
        result.importWith = Measure.median(with)
        return result
    }

    /// Sets `list`'s predicate, fetches it in the background (narrowing or not) and reads its first screen once
    /// the results are in place: seconds from the keystroke to the rows read, and the number of results.
    static func fetchInBackground(
        _ list: FetchedResultsController<ManagedObject>, predicate: FetchPredicate, narrowing: Bool
    ) throws -> (Double, Int) {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Swift.Result<(Double, Int), any Error> = .failure(RawSQLiteError(description: "no completion"))
        let start = DispatchTime.now().uptimeNanoseconds
        MainQueue.sync {
            list.fetchRequest.predicate = predicate
            list.performFetchInBackground(narrowingCurrentResults: narrowing) { result in
                outcome = Swift.Result {
                    try result.get()
                    try readFirstScreen(list)
                    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, list.numberOfFetchedObjects)
                }
                done.signal()
            }
        }
        done.wait()
        return try outcome.get()
    }

    /// The first 30 rows as a list shows them: each person's searched values.
    static func readFirstScreen(_ list: FetchedResultsController<ManagedObject>) throws {
        var row = 0
        for (sectionIndex, section) in (list.sections ?? []).enumerated() where row < 30 {
            for index in 0..<min(section.numberOfObjects, 30 - row) {
                let person = list.object(at: listIndexPath(row: index, section: sectionIndex))
                for key in searchedKeys { _ = person.value(forKey: key) }
                row += 1
            }
        }
    }

    /// A private context inserts `rows`, saving every 1000. Seconds.
    static func importPeople(_ rows: [PersonRow], into coordinator: PersistentStoreCoordinator) throws -> Double {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try Measure.seconds {
            var start = 0
            while start < rows.count {
                let end = min(start + 1000, rows.count)
                try context.performAndWait {
                    for row in rows[start..<end] {
                        PersonModel.fill(try context.insertNewObject(forEntityName: PersonModel.entityName), from: row)
                    }
                    try context.save()
                    context.reset()
                }
                start = end
            }
        }
    }
}
