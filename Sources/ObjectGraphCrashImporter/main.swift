// objectgraph-crash-importer: the child process of the kill test (Tests/ObjectGraphTests/KillTests.swift).
// Not shipped to users (no product); `swift test` builds it because ObjectGraphTests depends on it.
//
// Usage: objectgraph-crash-importer STORE --batch-size N --until B [--wal-autocheckpoint P] [--atomic]
//        [--fault redo-last|tear-batch]
//
// Opens the SQLite store (with `--atomic`, the atomic store) at STORE (creating it), finds the highest batch it holds, and imports batches after it
// until batch B-1 exists. Batch b is N `ImportedItem` objects with `batch = b` and `seq = b * N + i` (i < N),
// saved with one `context.save()`. It resumes from the store alone, never from a log of its own, so it can be
// killed at any moment and started again.
//
// Progress goes to standard output, one unbuffered line per step, so the test can kill it at known places:
//   R <b>   opened the store; the next batch to import is b
//   B <b>   building batch b (objects being inserted into the context)
//   S <b>   saving batch b (`context.save()` called)
//   C <b>   batch b is committed
//   D       done: batches 0..<B are all in the store
// `--wal-autocheckpoint P` opens the store with that SQLite pragma (through PersistentStoreOptions), so that
// WAL checkpoints happen every few batches and kills land in them too.
// Exit status: 0 done, 2 bad arguments, 3 the store holds an incomplete batch, 4 any other error.
//
// `--migrate BUNDLE` instead opens STORE with the current version of the `.xcdatamodeld` at BUNDLE, which
// migrates it in place (lightweight migration, one transaction): it prints `M` before adding the store and `D`
// once the store is added, so the migration kill test can kill it in the middle.
//
// `--history` opens the store with persistent history tracking and saves with the transaction author
// `importer` (the cross-process change tests watch such imports from another process). `--first B` starts at
// batch B and resumes from the highest batch in B..<until (two importers can then fill separate ranges of one
// store).
//
// `--external` runs the external binary data steps instead (see ExternalDataSteps.swift).
//
// `--fault` deliberately breaks the importer, so the test can show that its checks catch real damage:
// `redo-last` resumes one batch too early (duplicate sequence numbers), `tear-batch` saves the first half of the
// batch after the last one present in its own save and then kills itself (a torn batch).

import Foundation
import ObjectGraph

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one progress line straight to file descriptor 1 (no buffering, so a kill loses nothing printed).
func progress(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if written > 0 {
            offset += written
        } else if written < 0 && errno == EINTR {
            continue
        } else {
            return
        }
    }
}

/// Prints `message` to standard error and exits with `status`.
func fail(_ status: Int32, _ message: String) -> Never {
    FileHandle.standardError.write(Data("objectgraph-crash-importer: \(message)\n".utf8))
    exit(status)
}

/// The command line, parsed.
struct Options {
    var storePath = ""
    var batchSize = 100
    var until = 50
    var walAutocheckpoint: Int?
    var fault: String?
    var migrateBundle: String?
    var external = false
    var atomic = false
    var history = false
    var first = 0

    init(_ arguments: [String]) {
        var rest = arguments.makeIterator()
        while let argument = rest.next() {
            switch argument {
            case "--batch-size":
                guard let value = rest.next().flatMap(Int.init), value > 0 else { fail(2, "--batch-size needs N > 0") }
                batchSize = value
            case "--until":
                guard let value = rest.next().flatMap(Int.init), value >= 0 else { fail(2, "--until needs B >= 0") }
                until = value
            case "--wal-autocheckpoint":
                guard let value = rest.next().flatMap(Int.init), value >= 0 else {
                    fail(2, "--wal-autocheckpoint needs P >= 0")
                }
                walAutocheckpoint = value
            case "--external":
                external = true
            case "--atomic":
                atomic = true
            case "--history":
                history = true
            case "--first":
                guard let value = rest.next().flatMap(Int.init), value >= 0 else { fail(2, "--first needs B >= 0") }
                first = value
            case "--migrate":
                guard let value = rest.next() else { fail(2, "--migrate needs a model bundle") }
                migrateBundle = value
            case "--fault":
                guard let value = rest.next(), ["redo-last", "tear-batch"].contains(value) else {
                    fail(2, "--fault is redo-last or tear-batch")
                }
                fault = value
            default:
                guard storePath.isEmpty, !argument.hasPrefix("-") else { fail(2, "unexpected argument \(argument)") }
                storePath = argument
            }
        }
        if storePath.isEmpty { fail(2, "usage: objectgraph-crash-importer STORE --batch-size N --until B") }
    }
}

/// The importer's model: one entity, defined in code (the test reads the table `ZIMPORTEDITEM` directly).
func importModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(entities: [
        EntityDescription(name: "ImportedItem", attributes: [
            AttributeDescription(name: "batch", type: .integer64, isOptional: false, defaultValue: 0),
            AttributeDescription(name: "seq", type: .integer64, isOptional: false, defaultValue: 0),
            AttributeDescription(name: "payload", type: .string),
        ])
    ])
}

/// Inserts objects `range` of batch `batch` into `context`.
func insertItems(of batch: Int, _ range: Range<Int>, batchSize: Int, into context: ManagedObjectContext) throws {
    for index in range {
        let item = try context.insertNewObject(forEntityName: "ImportedItem")
        let seq = batch * batchSize + index
        item["batch"] = Int64(batch)
        item["seq"] = Int64(seq)
        item["payload"] = "item \(seq) of batch \(batch): " + String(repeating: "x", count: 40 + seq % 23)
    }
}

/// Imports until `options.until` batches exist; see the file comment.
func run(_ options: Options) throws {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try importModel())
    var storeOptions = PersistentStoreOptions()
    if let pages = options.walAutocheckpoint { storeOptions.sqlitePragmas["wal_autocheckpoint"] = "\(pages)" }
    storeOptions.persistentHistoryTracking = options.history
    try coordinator.addPersistentStore(ofType: options.atomic ? .atomic : .sqlite, configurationName: nil,
        at: URL(fileURLWithPath: options.storePath), options: storeOptions)
    let context = ManagedObjectContext(concurrencyType: .privateQueue)
    context.persistentStoreCoordinator = coordinator
    context.name = "crash-importer"
    if options.history { context.transactionAuthor = "importer" }

    try context.performAndWait {
        // Resume from what the store holds: the highest batch must be complete, and the next one follows it.
        var highest = FetchRequest<ManagedObject>(entityName: "ImportedItem",
            predicate: try FetchPredicate(format: "batch >= %d AND batch < %d", options.first, options.until),
            sortCriteria: [SortCriterion("batch", ascending: false)], fetchLimit: 1)
        highest.includesPendingChanges = false
        var next = options.first
        if let last = try context.fetch(highest).first, let batch: Int64 = last["batch"] {
            let count = try context.count(for: FetchRequest<ManagedObject>(entityName: "ImportedItem",
                predicate: try FetchPredicate(format: "batch == %d", Int(batch))))
            guard count == options.batchSize else {
                fail(3, "batch \(batch) holds \(count) objects, not \(options.batchSize)")
            }
            next = Int(batch) + 1
            if options.fault == "redo-last" { next -= 1 }
        }
        context.reset()
        progress("R \(next)")

        if options.fault == "tear-batch" {
            try insertItems(of: next, 0..<options.batchSize / 2, batchSize: options.batchSize, into: context)
            try context.save()
            kill(getpid(), SIGKILL)
        }
        while next < options.until {
            progress("B \(next)")
            try insertItems(of: next, 0..<options.batchSize, batchSize: options.batchSize, into: context)
            progress("S \(next)")
            try context.save()
            progress("C \(next)")
            context.reset()
            next += 1
        }
    }
    progress("D")
}

/// Opens the store with the bundle's current model version, which migrates it; see the file comment.
func migrate(_ options: Options, bundle: String) throws {
    let model = try ModelBundle(contentsOf: URL(fileURLWithPath: bundle)).currentModel()
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    progress("M")
    try coordinator.addPersistentStore(ofType: .sqlite, at: URL(fileURLWithPath: options.storePath))
    progress("D")
}

do {
    let options = Options(Array(CommandLine.arguments.dropFirst()))
    if let bundle = options.migrateBundle {
        try migrate(options, bundle: bundle)
    } else if options.external {
        try runExternalSteps(options)
    } else {
        try run(options)
    }
} catch {
    fail(4, "\(error)")
}
