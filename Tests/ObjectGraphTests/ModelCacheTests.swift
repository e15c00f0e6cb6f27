import Foundation
import SQLiteStorage
import Testing
import TestSupport
@testable import ObjectGraph

/// A Core Data store's model cache (`Z_MODELCACHE`, issue 33): the raw-DEFLATE keyed archive of the model the
/// store was written with, read back into a model that opens the store by its own version hashes.
@Suite struct ModelCacheTests {
    /// `bytes` compressed as a raw DEFLATE stream (no header), as Core Data writes the cache.
    static func rawDeflate(_ bytes: Data) -> [UInt8] { [UInt8](RawDeflate.deflate(bytes)) }

    static func setModelCache(_ bytes: [UInt8], at url: URL) throws {
        let connection = try SQLiteConnection(path: url.path, mode: .readWrite)
        defer { connection.close() }
        try connection.prepare("UPDATE Z_MODELCACHE SET Z_CONTENT = ?").run([.blob(bytes)])
    }

    @Test func theCachedModelIsTheWritersAndOpensTheStoreByItsHashes() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("apple.sqlite")
        try AppleLayoutStore.write(to: url)
        let source = try AppleLayoutStore.model()
        try Self.setModelCache(Self.rawDeflate(CompiledModelFixtures.mom(source, knownKeysEntities: true)), at: url)

        let cached = try ManagedObjectModel.loadCachedModel(fromStoreAt: url)
        #expect(CompiledModelTests.summary(cached) == CompiledModelTests.summary(source))
        #expect(cached.entityVersionHashes == AppleLayoutStore.entityHashes)
        // The store's hashes are the model's: it opens as written for it, not by comparing its structure.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: cached)
        var options = PersistentStoreOptions()
        options.isReadOnly = true
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let authors = try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Author")) }
        #expect(authors == 2)
    }

    @Test func missingOrDamagedCachesAreTypedErrors() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("apple.sqlite")
        try AppleLayoutStore.write(to: url)
        // The fixture's stand-in bytes are no DEFLATE stream of a model.
        #expect {
            try ManagedObjectModel.loadCachedModel(fromStoreAt: url)
        } throws: { error in
            (error as? ModelLoadError)?.description.contains("model cache") == true
        }
        let good = Self.rawDeflate(CompiledModelFixtures.mom(try AppleLayoutStore.model()))
        for cut in stride(from: 0, to: good.count, by: max(1, good.count / 50)) {
            try Self.setModelCache(Array(good.prefix(cut)), at: url)
            #expect(throws: ModelLoadError.self) { try ManagedObjectModel.loadCachedModel(fromStoreAt: url) }
        }
        // An ObjectGraph store has no cache.
        let ours = directory.file("ours.sqlite")
        try PersistentStoreCoordinator(managedObjectModel: try AppleLayoutStore.model())
            .addPersistentStore(ofType: .sqlite, configurationName: nil, at: ours, options: PersistentStoreOptions())
        #expect {
            try ManagedObjectModel.loadCachedModel(fromStoreAt: ours)
        } throws: { error in
            (error as? ModelLoadError)?.description.contains("no model cache") == true
        }
    }
}
