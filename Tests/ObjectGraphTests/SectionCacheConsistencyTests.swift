import Foundation
import Testing
@testable import ObjectGraph

/// When a section cache may be read and written: only results that are the stores' rows as of the cache's
/// fingerprint. Each test keeps its caches in a directory of its own (the controller's `cacheDirectory`), so
/// these run beside the serialized suite that changes the process-wide one.
@Suite struct SectionCacheConsistencyTests {
    private static let cacheName = "items"

    /// A controller on `context` over the seeded items, sectioned by group, with the section cache ``cacheName``
    /// kept in `directory`.
    private static func cachedController(_ context: ManagedObjectContext, in directory: TemporaryDirectory)
        -> FetchedResultsController<ManagedObject>
    {
        let controller = FetchedResultsController(fetchRequest: itemRequest(batchSize: 8), managedObjectContext: context,
            sectionNameKeyPath: "group", cacheName: cacheName)
        controller.cacheDirectory = directory.url
        return controller
    }

    /// The results of a fresh controller without a cache on `context`.
    private static func uncachedResults(in context: ManagedObjectContext) throws -> [[ManagedObjectID]] {
        try context.performAndWait {
            let oracle = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: context,
                sectionNameKeyPath: "group")
            try oracle.performFetch()
            return oracle.sectionedIDs
        }
    }

    private static func cacheFile(in directory: TemporaryDirectory) -> URL {
        FetchedResultsCache.fileURL(forName: cacheName, in: directory.url)
    }

    /// Fetches a new cached controller on a new context of `stack` and returns whether its results came from
    /// the cache, and what they are.
    private static func fetchWithCache(_ stack: TestStack, in directory: TemporaryDirectory) throws
        -> (fromCache: Bool, results: [[ManagedObjectID]])
    {
        let context = stack.context(name: "reader")
        return try context.performAndWait {
            let controller = cachedController(context, in: directory)
            try controller.performFetch()
            return (controller.resultsCameFromCache, controller.sectionedIDs)
        }
    }

    @Test func aBackgroundFetchWritesTheCacheThatTheNextFetchReadsAtOnce() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(.sqlite)
        try seedItems(stack, count: FetchedResultsCache.headEntryCount + 500)
        let view = stack.context(name: "view")
        let first = Self.cachedController(view, in: directory)
        let written = DispatchSemaphore(value: 0)
        view.performAndWait { first.backgroundFetchHooks = BackgroundFetchHooks(didWriteCache: { written.signal() }) }
        try BackgroundFetchTests.fetchInBackground(first).get()
        // (The cache is written while the results are put in place.)
        #expect(written.wait(timeout: .now() + 60) == .success)
        let expected = try Self.uncachedResults(in: view)
        view.performAndWait {
            #expect(first.lastFetchRanInBackground)
            #expect(!first.resultsCameFromCache)
            #expect(first.sectionedIDs == expected)
        }
        #expect(FileManager.default.fileExists(atPath: Self.cacheFile(in: directory).path))

        // A current cache is read on the queue, at once, instead of querying on another thread.
        let other = stack.context(name: "other")
        let second = Self.cachedController(other, in: directory)
        try BackgroundFetchTests.fetchInBackground(second).get()
        other.performAndWait {
            #expect(!second.lastFetchRanInBackground)
            #expect(second.resultsCameFromCache)
            #expect(second.sectionedIDs == expected)
        }
    }

    @Test func resultsReadBeforeAnotherContextSavedAreNotCached() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(.sqlite)
        try seedItems(stack, count: 40)
        let view = stack.context(name: "view")
        let controller = Self.cachedController(view, in: directory)
        let writer = stack.context(name: "writer")
        // Another context saves once the rows are read, before the cache would be written.
        view.performAndWait {
            controller.backgroundFetchHooks = BackgroundFetchHooks(didRead: {
                writer.performAndWait {
                    guard let item = try? writer.insertNewObject(forEntityName: "Item") else { return }
                    item["group"] = "A"
                    item["rank"] = Int64(-1)
                    #expect(throws: Never.self) { try writer.save() }
                }
            })
        }
        let written = DispatchSemaphore(value: 0)
        view.performAndWait { controller.backgroundFetchHooks?.didWriteCache = { written.signal() } }
        try BackgroundFetchTests.fetchInBackground(controller).get()
        #expect(written.wait(timeout: .now() + 60) == .success)
        view.performAndWait {
            #expect(controller.numberOfFetchedObjects == 40)
            #expect(controller.cacheIsStale, "left for writeCache() once the context is up to date")
        }
        #expect(!FileManager.default.fileExists(atPath: Self.cacheFile(in: directory).path))

        // So the next fetch reads the stores, with the new item, and caches that.
        let next = try Self.fetchWithCache(stack, in: directory)
        #expect(!next.fromCache)
        #expect(next.results.joined().count == 41)
        let after = try Self.fetchWithCache(stack, in: directory)
        #expect(after.fromCache)
        #expect(after.results == next.results)
    }

    @Test func aContextWithUnsavedChangesNeitherReadsNorWritesTheCache() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(.sqlite)
        try seedItems(stack, count: 20)
        let saved = try Self.fetchWithCache(stack, in: directory)
        let cachedBytes = try Data(contentsOf: Self.cacheFile(in: directory))

        let editor = stack.context(name: "editor")
        try editor.performAndWait {
            let items = try editor.fetch(itemRequest())
            items[0]["rank"] = Int64(1_000)  // moves the first item to the end of its group
            editor.delete(items[1])
            let item = try editor.insertNewObject(forEntityName: "Item")
            item["group"] = "B"
            item["rank"] = Int64(-5)
        }
        let expected = try Self.uncachedResults(in: editor)
        try editor.performAndWait {
            let controller = Self.cachedController(editor, in: directory)
            try controller.performFetch()
            #expect(!controller.resultsCameFromCache)
            #expect(controller.sectionedIDs == expected)
            #expect(controller.sectionedIDs != saved.results)
        }
        #expect(try Data(contentsOf: Self.cacheFile(in: directory)) == cachedBytes)

        // Once the changes are rolled back, the context's results are the stores' again: the cache serves.
        try editor.performAndWait {
            editor.rollback()
            let controller = Self.cachedController(editor, in: directory)
            try controller.performFetch()
            #expect(controller.resultsCameFromCache)
            #expect(controller.sectionedIDs == saved.results)
        }
    }

    @Test func writeCacheAfterASaveInTheSameContextCachesTheSavedObjectsUnderTheirPermanentIDs() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(.sqlite)
        try seedItems(stack, count: 20)
        let view = stack.context(name: "view")
        let recorder = ChangeRecorder()
        let expected = try view.performAndWait {
            let controller = Self.cachedController(view, in: directory)
            controller.delegate = recorder
            try controller.performFetch()
            let item = try view.insertNewObject(forEntityName: "Item")
            item["group"] = "B"
            item["rank"] = Int64(7)
            try view.save()
            controller.writeCache()
            return controller.sectionedIDs
        }
        #expect(expected.joined().count == 21)
        #expect(!expected.joined().contains { $0.isTemporaryID })
        let next = try Self.fetchWithCache(stack, in: directory)
        #expect(next.fromCache)
        #expect(next.results == expected)
    }

    @Test func writeCacheGivesResultsTheirParentsPermanentIDsAndThePlacesThoseGiveThem() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(.sqlite)
        try seedItems(stack, count: 20)
        let parent = stack.context(name: "parent")
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        let recorder = ChangeRecorder()
        let controller = try child.performAndWait {
            let controller = Self.cachedController(child, in: directory)
            controller.delegate = recorder
            try controller.performFetch()
            // Ties (the same group and rank): the IDs decide their places, and permanent IDs may give them others.
            for _ in 0..<12 {
                let item = try child.insertNewObject(forEntityName: "Item")
                item["group"] = "A"
                item["rank"] = Int64(100)
            }
            try child.save()
            return controller
        }
        try parent.performAndWait { try parent.save() }
        child.performAndWait { controller.writeCache() }
        let next = try Self.fetchWithCache(stack, in: directory)
        #expect(next.fromCache)
        #expect(next.results == (try Self.uncachedResults(in: stack.context(name: "fresh"))))
        #expect(next.results.joined().count == 32)
    }

    @Test func aChildContextUsesTheCacheOnlyWhileItsParentHasNothingUnsaved() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(.sqlite)
        try seedItems(stack, count: 20)
        let saved = try Self.fetchWithCache(stack, in: directory)
        let parent = stack.context(name: "parent")
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent

        // The parent has nothing unsaved: the child's results are the store's rows, and come from the cache.
        try child.performAndWait {
            let controller = Self.cachedController(child, in: directory)
            try controller.performFetch()
            #expect(controller.resultsCameFromCache)
            #expect(controller.sectionedIDs == saved.results)
        }

        // An unsaved insert in the parent is part of the child's results: no cache.
        let inserted = try parent.performAndWait {
            let item = try parent.insertNewObject(forEntityName: "Item")
            item["group"] = "C"
            item["rank"] = Int64(3)
            return item.objectID
        }
        let expected = try Self.uncachedResults(in: child)
        #expect(expected.joined().count == 21)
        try child.performAndWait {
            let controller = Self.cachedController(child, in: directory)
            try controller.performFetch()
            #expect(!controller.resultsCameFromCache)
            #expect(controller.sectionedIDs == expected)
        }
        #expect(try Self.fetchWithCache(stack, in: directory) == (true, saved.results))

        // Saved: the cache is stale; the parent has nothing unsaved, so a child's fetch reads the stores' rows
        // (through the parent) and rewrites the cache with them. After a change, `writeCache()` writes what the
        // child holds.
        try parent.performAndWait { try parent.save() }
        let stale = try Data(contentsOf: Self.cacheFile(in: directory))
        let recorder = ChangeRecorder()
        let fetched = try child.performAndWait {
            let controller = Self.cachedController(child, in: directory)
            try controller.performFetch()
            #expect(!controller.resultsCameFromCache)
            #expect(try Data(contentsOf: Self.cacheFile(in: directory)) != stale)
            return controller.sectionedIDs
        }
        #expect(fetched.joined().count == 21)
        #expect(!fetched.joined().contains(inserted), "the saved item is under its permanent ID")
        #expect(try Self.fetchWithCache(stack, in: directory) == (true, fetched))
        let results = try child.performAndWait {
            let controller = Self.cachedController(child, in: directory)
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.resultsCameFromCache)
            let item = try child.existingObject(with: try #require(controller.sectionedIDs.first?.first))
            item["rank"] = Int64(-9)
            try child.save()
            try parent.performAndWait { try parent.save() }
            controller.writeCache()
            return controller.sectionedIDs
        }
        #expect(results.joined().count == 21)
        let next = try Self.fetchWithCache(stack, in: directory)
        #expect(next.fromCache)
        #expect(next.results == results)
    }

    /// A child's background fetch caches what it read through a parent with nothing unsaved; when the parent
    /// deletes an item (unsaved) just before the read, the results leave it out and the cache is left alone.
    @Test func aChildsBackgroundFetchCachesOnlyRowsItsParentTookFromTheStores() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(.sqlite)
        try seedItems(stack, count: 30)
        let parent = stack.context(name: "parent")
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent

        let dirtied = Self.cachedController(child, in: directory)
        child.performAndWait {
            dirtied.backgroundFetchHooks = BackgroundFetchHooks(willRead: {
                parent.performAndWait {
                    let items = try? parent.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
                    if let item = items?.first { parent.delete(item) }
                }
            })
        }
        try BackgroundFetchTests.fetchInBackground(dirtied).get()
        child.performAndWait {
            #expect(dirtied.lastFetchRanInBackground)
            #expect(dirtied.numberOfFetchedObjects == 29, "the parent's unsaved deletion holds in the results")
            #expect(dirtied.cacheIsStale)
        }
        #expect(!FileManager.default.fileExists(atPath: Self.cacheFile(in: directory).path))

        parent.performAndWait { parent.rollback() }
        let clean = Self.cachedController(child, in: directory)
        let written = DispatchSemaphore(value: 0)
        child.performAndWait { clean.backgroundFetchHooks = BackgroundFetchHooks(didWriteCache: { written.signal() }) }
        try BackgroundFetchTests.fetchInBackground(clean).get()
        #expect(written.wait(timeout: .now() + 60) == .success)
        let results = child.performAndWait {
            #expect(!clean.cacheIsStale)
            return clean.sectionedIDs
        }
        #expect(results.joined().count == 30)
        #expect(try Self.fetchWithCache(stack, in: directory) == (true, results))
    }
}

/// A store file that goes away under a background fetch.
@Suite struct BackgroundFetchLostStoreTests {
    /// The store's connections keep the removed file open (POSIX keeps an unlinked file while it is open), so
    /// the read gives what the store held, and nothing crashes.
    @Test func aStoreFileRemovedBeforeTheReadIsReadThroughTheOpenConnections() throws {
        let stack = try TestStack(.sqlite)
        try seedItems(stack, count: 30)
        let view = stack.context(name: "view")
        let controller = FetchedResultsController(fetchRequest: itemRequest(batchSize: 8), managedObjectContext: view,
            sectionNameKeyPath: "group")
        try view.performAndWait { try controller.performFetch() }
        let before = view.performAndWait { controller.sectionedIDs }
        let path = stack.storeURL.path
        view.performAndWait {
            controller.backgroundFetchHooks = BackgroundFetchHooks(willRead: {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            })
        }
        try BackgroundFetchTests.fetchInBackground(controller).get()
        #expect(!FileManager.default.fileExists(atPath: path))
        view.performAndWait {
            #expect(controller.lastFetchRanInBackground)
            #expect(controller.sectionedIDs == before)
        }
    }
}
