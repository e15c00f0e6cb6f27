import Foundation
import ObjectGraph

/// Workload 9's app line: `people import` of a file — the app's own pipeline (its reader and converter, `Person`
/// objects with their derived section, its stack, persistent history, the People model's text search index and
/// fetch indexes) — next to the engine's import of the same rows, from memory, into a store of the same model with
/// the same options and batch size (plain objects, values set directly: the engine's speed for that model).
public enum PeopleImportWorkload {
    /// The app's model, from the repository's `Resources/`.
    public static let modelURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Resources/People.xcdatamodeld")

    /// Writes `rows` as JSON Lines with the keys `people import` reads (`createdAt` as ISO 8601).
    public static func write(_ rows: [PersonRow], to url: URL) throws {
        var text = ""
        text.reserveCapacity(rows.count * 140)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        struct Line: Encodable {
            let firstName: String, lastName: String, email: String, city: String, age: Int64, createdAt: String
        }
        for row in rows {
            let line = Line(firstName: row.firstName, lastName: row.lastName, email: row.email, city: row.city,
                age: row.age, createdAt: ISO8601DateText.string(from: Date(timeIntervalSinceReferenceDate: row.createdAt)))
            text += String(decoding: try encoder.encode(line), as: UTF8.self) + "\n"
        }
        try Data(text.utf8).write(to: url)
    }

    /// The engine's import of `rows` into a new store of the People model at `url`, with persistent history (as the
    /// app opens its store), `batchSize` per save from one worker context on the coordinator (the app's default
    /// stack). Seconds from the first insert until the last save returned.
    public static func engine(rows: [PersonRow], into url: URL, batchSize: Int) throws -> Double {
        let model = try ManagedObjectModel.load(contentsOf: modelURL)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var options = PersistentStoreOptions()
        options.persistentHistoryTracking = true
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: options)
        let worker = ManagedObjectContext(concurrencyType: .privateQueue)
        worker.persistentStoreCoordinator = coordinator
        worker.transactionAuthor = "people"
        return try Measure.seconds {
            var start = 0
            while start < rows.count {
                let end = min(start + batchSize, rows.count)
                try worker.performAndWait {
                    for row in rows[start..<end] {
                        let person = try worker.insertNewObject(forEntityName: "Person")
                        person.setValue(.string(row.firstName), forKey: "firstName")
                        person.setValue(.string(row.lastName), forKey: "lastName")
                        person.setValue(.string(row.email), forKey: "email")
                        person.setValue(.string(row.city), forKey: "city")
                        person.setValue(.integer(row.age), forKey: "age")
                        person.setValue(.date(Date(timeIntervalSinceReferenceDate: row.createdAt)), forKey: "createdAt")
                        // The section position the app derives from the last name's initial (A → 1 … Z → 26).
                        let initial = row.section.unicodeScalars.first.map { Int64($0.value) - 0x40 } ?? 27
                        person.setValue(.integer((1...26).contains(initial) ? initial : 27), forKey: "sectionOrder")
                    }
                    try worker.save()
                    worker.reset()
                }
                start = end
            }
        }
    }

    /// Processor seconds (user and system) this process (`RUSAGE_SELF`) or its finished children
    /// (`RUSAGE_CHILDREN`) used so far: work done, which a loaded machine slows less than it slows wall time.
    public static func processorSeconds(children: Bool) -> Double {
        var usage = rusage()
        getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Runs `people import FILE --store STORE --batch-size N` (the executable beside this one) and returns its
    /// wall-clock seconds, start to exit (the app opens and seeds its store first: a few hundred sample people).
    public static func app(binary: URL, file: URL, into url: URL, batchSize: Int) throws -> Double {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["import", file.path, "--store", url.path, "--batch-size", String(batchSize)]
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        let started = Measure.now()
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Double(Measure.now() - started) / 1e9
        guard process.terminationStatus == 0 else {
            throw RawSQLiteError(description: "people import failed: \(String(decoding: message, as: UTF8.self))")
        }
        return seconds
    }
}
