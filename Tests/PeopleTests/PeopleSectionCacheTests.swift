import Foundation
import ObjectGraph
import Testing
import TerminalTableView

@testable import People

/// The list's section caches: a launch on an unchanged store shows the list from its cache; filtered lists are
/// not cached.
@Suite @MainActor struct PeopleSectionCacheTests {
    /// The app launched on `store` (seeded with the sample people if empty), long-list rules from ten people on,
    /// with its caches in `caches`, once its list is read.
    private static func launch(on store: TemporaryStore, caches: URL, stack kind: PeopleStack.Kind = .default)
        async throws -> (app: PeopleApp, screen: TestScreen)
    {
        let stack = try PeopleStack(storeURL: store.url, kind: kind)
        try stack.seedIfEmpty()
        let screen = TestScreen(size: TerminalSize(columns: 100, rows: 30))
        let options = PeopleApp.Options(filterWaitsFromPeople: 10, sectionCacheDirectory: caches)
        let app = PeopleApp(stack: stack, screen: screen, timeSource: ManualTimeSource(), options: options)
        try app.start()
        await waitUntil("the list is read") { !app.list.isFetchingInBackground }
        app.tick()
        return (app, screen)
    }

    @Test func aSecondLaunchShowsTheListFromItsCacheAndFiltersAreNotCached() async throws {
        let store = TemporaryStore()
        let caches = store.file("caches")
        let first = try await Self.launch(on: store, caches: caches)
        #expect(!first.app.list.resultsController.resultsCameFromCache)
        // (Written on the fetching thread while the list shows.)
        await waitUntil("the section cache is written") {
            !((try? FileManager.default.contentsOfDirectory(atPath: caches.path)) ?? []).isEmpty
        }
        let cacheFiles = try FileManager.default.contentsOfDirectory(atPath: caches.path)
        #expect(cacheFiles.count == 1, "\(cacheFiles)")
        let firstRows = try #require(first.screen.lastFrame?.lines).dropFirst(2).prefix(20)

        let second = try await Self.launch(on: store, caches: caches)
        let list = second.app.list
        #expect(list.resultsController.resultsCameFromCache)
        #expect(list.numberOfPeople == first.app.list.numberOfPeople)
        #expect(try #require(second.screen.lastFrame?.lines).dropFirst(2).prefix(20) == firstRows)

        // A filtered list has a controller of its own, without a cache; everyone again comes from the cache.
        try list.apply(PeopleFilter(text: "age > 60"))
        #expect(list.resultsController.cacheName == nil)
        #expect(list.numberOfPeople < first.app.list.numberOfPeople)
        try list.apply(PeopleFilter.none)
        #expect(list.resultsController.cacheName != nil)
        #expect(list.resultsController.resultsCameFromCache)
        #expect(list.numberOfPeople == first.app.list.numberOfPeople)
        #expect(try FileManager.default.contentsOfDirectory(atPath: caches.path) == cacheFiles)
    }

    @Test func quittingAfterChangesRewritesTheCacheForTheNextLaunch() async throws {
        let store = TemporaryStore()
        let caches = store.file("caches")
        let first = try await Self.launch(on: store, caches: caches)
        let context = first.app.stack.viewContext
        let person = Person(context: context)
        person.firstName = "Ada"
        person.lastName = "Lovelace"
        try context.save()
        let count = first.app.list.numberOfPeople
        #expect(await first.app.shutdown() == nil)

        let second = try await Self.launch(on: store, caches: caches)
        #expect(second.app.list.resultsController.resultsCameFromCache)
        #expect(second.app.list.numberOfPeople == count)
        let shown = try #require(second.app.list.resultsController.fetchedObjects)
        #expect(shown.contains { $0.lastName == "Lovelace" })
    }

    @Test func onTheWriterMainWorkerStackTheCacheIsWrittenAtQuit() async throws {
        let store = TemporaryStore()
        let caches = store.file("caches")
        let first = try await Self.launch(on: store, caches: caches, stack: .writerMainWorker)
        #expect(!first.app.list.resultsController.resultsCameFromCache)
        // Someone added: saved into the writer, which gives the permanent ID the cache is written with.
        let context = first.app.stack.viewContext
        let person = Person(context: context)
        person.firstName = "Ada"
        person.lastName = "Lovelace"
        try first.app.stack.commit(context)
        let count = first.app.list.numberOfPeople
        #expect(await first.app.shutdown() == nil)
        #expect(!((try? FileManager.default.contentsOfDirectory(atPath: caches.path)) ?? []).isEmpty)

        let second = try await Self.launch(on: store, caches: caches, stack: .writerMainWorker)
        #expect(second.app.list.resultsController.resultsCameFromCache)
        #expect(second.app.list.numberOfPeople == count)
    }

    @Test func theDefaultStoreAndCacheDirectoryFollowXDG() {
        #expect(PeopleStack.defaultStoreURL(environment: ["XDG_DATA_HOME": "/x/data", "HOME": "/home/u"])
            == URL(fileURLWithPath: "/x/data/people/people.sqlite"))
        #expect(PeopleStack.defaultStoreURL(environment: ["HOME": "/home/u"])
            == URL(fileURLWithPath: "/home/u/.local/share/people/people.sqlite"))
        #expect(PeopleStack.defaultSectionCacheDirectory(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"])
            == URL(fileURLWithPath: "/x/cache/people", isDirectory: true))
        #expect(PeopleStack.defaultSectionCacheDirectory(environment: ["XDG_CACHE_HOME": "", "HOME": "/home/u"])
            == URL(fileURLWithPath: "/home/u/.cache/people", isDirectory: true))
    }
}
