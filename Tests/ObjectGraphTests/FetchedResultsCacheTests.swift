import Foundation
import Testing

@testable import ObjectGraph

/// A fresh cache directory (set as the process-wide one), an SQLite stack of `count` seeded items, and the
/// section cache named `prefix-<UUID>` written for them by a first controller, whose sections are returned.
private func stackWithWrittenCache(_ prefix: String, items count: Int) throws
    -> (directory: TemporaryDirectory, cacheName: String, stack: TestStack, sections: [[ManagedObjectID]])
{
    let cacheDirectory = TemporaryDirectory()
    AnyFetchedResultsController.cacheDirectory = cacheDirectory.url
    let cacheName = prefix + "-" + UUID().uuidString
    let stack = try TestStack(.sqlite)
    try seedItems(stack, count: count)
    let context = stack.context()
    let sections = try context.performAndWait {
        let writer = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: context,
            sectionNameKeyPath: "group", cacheName: cacheName)
        try writer.performFetch()
        return writer.sectionedIDs
    }
    return (cacheDirectory, cacheName, stack, sections)
}

/// A new controller on `cacheName` in `context` does not use the (damaged or crafted) cache: its results are
/// fetched, and they are `expected`.
private func expectRecomputed(_ cacheName: String, in context: ManagedObjectContext, _ expected: [[ManagedObjectID]])
    throws
{
    try context.performAndWait {
        let controller = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: context,
            sectionNameKeyPath: "group", cacheName: cacheName)
        try controller.performFetch()
        #expect(!controller.resultsCameFromCache)
        #expect(controller.sectionedIDs == expected)
    }
}

/// Saves `change` (plus one new item in section D) in another context of `stack`, merges the save into `view`,
/// and checks that `controller` then holds what a fresh fetch gives and that its last batch, applied to
/// `before`, gives the same.
private func mergeChangeAndCheck(
    _ stack: TestStack, into view: ManagedObjectContext, controller: FetchedResultsController<ManagedObject>,
    recorder: ChangeRecorder, before: [[ManagedObjectID]], _ change: (ManagedObjectContext) throws -> Void
) throws {
    let importer = stack.context(name: "importer")
    let save = try #require(try importer.performAndWait { () throws -> ContextDidSave? in
        try change(importer)
        let item = try importer.insertNewObject(forEntityName: "Item")
        item["group"] = "D"
        item["rank"] = Int64(5)
        return try importer.saveCapturingDidSave()
    })
    try view.performAndWait {
        view.mergeChanges(fromContextDidSave: save)
        let oracle = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: view,
            sectionNameKeyPath: "group")
        try oracle.performFetch()
        let fresh = oracle.sectionedIDs
        #expect(controller.sectionedIDs == fresh)
        let batch = try #require(recorder.batches.last)
        #expect(batch.changeset.applied(to: before) { batch.inserted[$0] } == fresh)
        #expect(recorder.protocolErrors.isEmpty, "\(recorder.protocolErrors)")
    }
}

/// The section cache. Serialized: the cache directory is one process-wide setting.
@Suite(.serialized) struct FetchedResultsCacheTests {
    @Test func theSectionCacheIsUsedOnlyWhileEverythingItWasComputedFromIsUnchanged() throws {
        let cacheDirectory = TemporaryDirectory()
        AnyFetchedResultsController.cacheDirectory = cacheDirectory.url
        let cacheName = "items-" + UUID().uuidString
        let stack = try TestStack(.sqlite)
        try seedItems(stack, count: 50)
        func fetch(_ request: FetchRequest<ManagedObject> = itemRequest()) throws -> (fromCache: Bool, ids: [[ManagedObjectID]]) {
            let context = stack.context()
            return try context.performAndWait {
                let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                    sectionNameKeyPath: "group", cacheName: cacheName)
                try controller.performFetch()
                return (controller.resultsCameFromCache, controller.sectionedIDs)
            }
        }
        let first = try fetch()
        #expect(!first.fromCache)
        let second = try fetch()
        #expect(second.fromCache, "an unchanged store and request use the cache")
        #expect(second.ids == first.ids)

        var filtered = itemRequest()
        filtered.predicate = try FetchPredicate(format: "rank < 10")
        #expect(try !fetch(filtered).fromCache, "another request recomputes")
        #expect(try fetch(filtered).fromCache)

        let context = stack.context()
        try context.performAndWait {
            let item = try context.insertNewObject(forEntityName: "Item")
            item["group"] = "A"
            try context.save()
        }
        let afterSave = try fetch(filtered)
        #expect(!afterSave.fromCache, "a store change invalidates the cache")
        #expect(afterSave.ids.joined().count == 11)

        AnyFetchedResultsController.deleteCache(withName: cacheName)
        #expect(try !fetch(filtered).fromCache, "a deleted cache is recomputed")
        // A write a crash interrupted leaves its temporary file: deleting every cache removes it too.
        let leftover = cacheDirectory.url.appendingPathComponent("." + cacheName + ".frcache.tmp-" + UUID().uuidString)
        try Data([1, 2, 3]).write(to: leftover)
        AnyFetchedResultsController.deleteCache(withName: nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cacheDirectory.url.path).isEmpty)
    }

    /// The next launch: the store closed and opened again by a new coordinator still matches the cache.
    @Test func theSectionCacheSurvivesClosingAndReopeningTheStore() throws {
        let cacheDirectory = TemporaryDirectory()
        AnyFetchedResultsController.cacheDirectory = cacheDirectory.url
        let cacheName = "reopen-" + UUID().uuidString
        let directory = TemporaryDirectory()
        let url = directory.file("people.sqlite")
        func launch(_ body: (ManagedObjectContext) throws -> Void) throws -> (Bool, [[ManagedObjectID]]) {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
            let store = try coordinator.addPersistentStore(ofType: .sqlite, at: url)
            defer { try? coordinator.remove(store) }
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            return try context.performAndWait {
                try body(context)
                let controller = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: context,
                    sectionNameKeyPath: "group", cacheName: cacheName)
                try controller.performFetch()
                return (controller.resultsCameFromCache, controller.sectionedIDs)
            }
        }
        let first = try launch { context in
            for number in 0..<30 {
                let item = try context.insertNewObject(forEntityName: "Item")
                item["group"] = ["A", "B"][number % 2]
                item["rank"] = Int64(number)
            }
            try context.save()
        }
        #expect(!first.0)
        let second = try launch { _ in }
        #expect(second.0, "the cache written by the last launch is used")
        #expect(second.1 == first.1)
    }

    /// Results from the cache skip building the controller's ID lookup; index-path lookups and the first
    /// change batch build it, and every change after that is placed as in a fetched controller.
    @Test(arguments: [true, false]) func resultsFromTheCacheTrackChangesLikeFetchedOnes(asksForAnIndexPathFirst: Bool)
        throws
    {
        let (cacheDirectory, cacheName, stack, _) = try stackWithWrittenCache("tracking", items: 40)
        defer { withExtendedLifetime(cacheDirectory) {} }
        let view = stack.context(name: "view")
        let recorder = ChangeRecorder()
        let (controller, before) = try view.performAndWait {
            let controller = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: view,
                sectionNameKeyPath: "group", cacheName: cacheName)
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.resultsCameFromCache)
            let before = controller.sectionedIDs
            if asksForAnIndexPathFirst {
                let third = try view.existingObject(with: before[1][2])
                #expect(controller.indexPath(forObject: third) == IndexPath(row: 2, section: 1))
            }
            return (controller, before)
        }
        try mergeChangeAndCheck(stack, into: view, controller: controller, recorder: recorder, before: before) { importer in
            importer.delete(try importer.existingObject(with: before[0][0]))
            try importer.existingObject(with: before[2][3])["rank"] = Int64(-1)
        }
    }

    @Test func aDamagedCacheIsRecomputedNotAnError() throws {
        let (cacheDirectory, cacheName, stack, first) = try stackWithWrittenCache("damaged", items: 20)
        defer { withExtendedLifetime(cacheDirectory) {} }
        let url = FetchedResultsCache.fileURL(forName: cacheName, in: cacheDirectory.url)
        let data = try Data(contentsOf: url)
        try data.prefix(data.count - 7).write(to: url)
        try expectRecomputed(cacheName, in: stack.context(), first)
    }
}

/// Caches of more than ``FetchedResultsCache/headEntryCount`` results: the head is read before
/// `performFetch()` returns, the body on another thread.
extension FetchedResultsCacheTests {
    static let largeCount = FetchedResultsCache.headEntryCount * 3 + 17

    /// A recorder of reload requests.
    final class ReloadRecorder: FetchedResultsControllerDelegate {
        var reloads = 0
        func controllerDidInvalidateContent(_ controller: AnyFetchedResultsController) { reloads += 1 }
    }

    @Test func aLargeCacheShowsItsHeadFirstAndTracksChangesOnceItsBodyIsRead() throws {
        let (cacheDirectory, cacheName, stack, first) = try stackWithWrittenCache("large", items: Self.largeCount)
        defer { withExtendedLifetime(cacheDirectory) {} }
        let view = stack.context(name: "view")
        let recorder = ChangeRecorder()
        let controller = try view.performAndWait {
            let controller = FetchedResultsController(fetchRequest: itemRequest(batchSize: 50),
                managedObjectContext: view, sectionNameKeyPath: "group", cacheName: cacheName)
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.resultsCameFromCache)
            #expect(controller.pendingCachedResults != nil, "the body is read aside")
            // The first screen comes from the head without waiting for the body.
            #expect(controller.numberOfSections == first.count)
            #expect((0..<first.count).map(controller.numberOfObjects(inSection:)) == first.map(\.count))
            #expect(controller.numberOfFetchedObjects == Self.largeCount)
            for row in 0..<30 {
                let path = IndexPath(row: row, section: 0)
                #expect(controller.object(at: path).objectID == first[0][row])
            }
            #expect(controller.pendingCachedResults != nil, "the head answered the first screen")
            return controller
        }
        // A change arrives before anything needed the body: it is placed among all the results.
        try mergeChangeAndCheck(stack, into: view, controller: controller, recorder: recorder, before: first) { importer in
            importer.delete(try importer.existingObject(with: first[3][700]))
            try importer.existingObject(with: first[2][5])["rank"] = Int64(-1)
            try importer.existingObject(with: first[1][600])["group"] = "A"
        }
        view.performAndWait { #expect(controller.pendingCachedResults == nil) }
    }

    /// A byte flipped in the body (the file's size and head intact): the body's checksum refuses it when it
    /// is read, the results are fetched, the delegate is told to reload, and the cache is written afresh.
    @Test func aDamagedBodyIsFetchedAgainAndTheCacheRewritten() throws {
        let (cacheDirectory, cacheName, stack, first) = try stackWithWrittenCache("body", items: Self.largeCount)
        defer { withExtendedLifetime(cacheDirectory) {} }
        let url = FetchedResultsCache.fileURL(forName: cacheName, in: cacheDirectory.url)
        var bytes = [UInt8](try Data(contentsOf: url))
        bytes[bytes.count - 3] ^= 0x5A
        try Data(bytes).write(to: url)
        let context = stack.context()
        try context.performAndWait {
            let reloads = ReloadRecorder()
            let controller = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: context,
                sectionNameKeyPath: "group", cacheName: cacheName)
            controller.delegate = reloads
            try controller.performFetch()
            #expect(controller.resultsCameFromCache, "the head is intact")
            #expect(controller.sectionedIDs == first)
            #expect(reloads.reloads == 1)
            #expect(!controller.resultsCameFromCache)
            #expect(try Data(contentsOf: url) != Data(bytes), "rewritten")

            let again = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: context,
                sectionNameKeyPath: "group", cacheName: cacheName)
            try again.performFetch()
            #expect(again.resultsCameFromCache)
            #expect(again.sectionedIDs == first)
        }
    }

    /// A byte flipped anywhere in the head: the cache is not used at all.
    @Test func aDamagedHeadIsNotUsed() throws {
        let (cacheDirectory, cacheName, stack, first) = try stackWithWrittenCache("head", items: Self.largeCount)
        defer { withExtendedLifetime(cacheDirectory) {} }
        let url = FetchedResultsCache.fileURL(forName: cacheName, in: cacheDirectory.url)
        let original = [UInt8](try Data(contentsOf: url))
        let context = stack.context()
        var random = SeededRandom(seed: 0xCAC4E)
        for _ in 0..<12 {
            var bytes = original
            // Within the first 20 KB: the preamble, fingerprint, tables, runs and head entries (the head is
            // longer: 1,024 entries of at least 27 bytes).
            bytes[Int.random(in: 0..<min(20_000, bytes.count), using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            try Data(bytes).write(to: url)
            try expectRecomputed(cacheName, in: context, first)
        }
    }
}

extension FetchedResultsCacheTests {
    /// A cache whose checksums hold but whose head claims more results than its body can hold (a crafted
    /// file): refused before anything is reserved for them, and the results are fetched.
    @Test func aCacheClaimingMoreResultsThanItHoldsIsNotUsed() throws {
        let (cacheDirectory, cacheName, stack, first) = try stackWithWrittenCache("claims", items: Self.largeCount)
        defer { withExtendedLifetime(cacheDirectory) {} }
        func required<Value>(_ value: Value?) throws -> Value { try #require(value) }
        let url = FetchedResultsCache.fileURL(forName: cacheName, in: cacheDirectory.url)
        let file = [UInt8](try Data(contentsOf: url))
        var preamble = CacheReader(data: Data(file))
        _ = preamble.string()
        let (headLength, bodyLength) = (try required(preamble.integer()), try required(preamble.integer()))
        _ = (preamble.integer(), preamble.integer())
        let headStart = file.count - preamble.remaining
        let headBytes = Data(file[headStart..<(headStart + Int(headLength))])
        let bodyBytes = Data(file[(headStart + Int(headLength))...])
        #expect(bodyBytes.count == Int(bodyLength))

        // Re-encode the head with a huge entry count (the last section taking the difference).
        var head = CacheReader(data: headBytes)
        var rewritten = CacheWriter()
        rewritten.string(try required(head.string()))
        for _ in 0..<3 {  // section names, entities, stores
            let count = try required(head.count())
            rewritten.count(count)
            for _ in 0..<count { rewritten.string(try required(head.string())) }
        }
        let entryCount = try required(head.count())
        let claimed = 1 << 58
        rewritten.count(claimed)
        let runCount = try required(head.count())
        rewritten.count(runCount)
        for run in 0..<runCount {
            rewritten.count(try required(head.count()))
            let count = try required(head.count())
            rewritten.count(run == runCount - 1 ? count + claimed - entryCount : count)
        }
        var crafted = CacheWriter()
        crafted.string(FetchedResultsCache.formatVersion)
        var newHead = Data(rewritten.bytes)
        newHead.append(headBytes.suffix(head.remaining))
        crafted.integer(Int64(newHead.count))
        crafted.integer(Int64(bodyBytes.count))
        crafted.integer(Int64(bitPattern: CacheChecksum.of(newHead)))
        crafted.integer(Int64(bitPattern: CacheChecksum.of(bodyBytes)))
        var bytes = Data(crafted.bytes)
        bytes.append(newHead)
        bytes.append(bodyBytes)
        try bytes.write(to: url)
        try expectRecomputed(cacheName, in: stack.context(), first)
    }
}
