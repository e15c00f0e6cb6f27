import Foundation
import Testing

@testable import ObjectGraph

/// Crafted section caches: bytes of the head or body changed and both checksums made to match again, so
/// that every decoder past the checksums meets the bad bytes. Whatever a file says, a controller that reads
/// it must not crash — not while fetching, reading the body, answering index paths or loading objects — and
/// a file it refuses must leave it with the fetched results.
@Suite struct FetchedResultsCacheFuzzTests {
    /// A cache file split into its parts (see ``FetchedResultsCache/store(_:names:namespaces:readAt:)``).
    private struct CacheFile {
        var head: [UInt8]
        var body: [UInt8]

        init?(_ file: [UInt8]) {
            var preamble = CacheReader(bytes: file)
            guard preamble.string() == FetchedResultsCache.formatVersion, let headLength = preamble.integer(),
                preamble.integer() != nil, preamble.integer() != nil, preamble.integer() != nil
            else { return nil }
            let headStart = file.count - preamble.remaining
            head = Array(file[headStart..<(headStart + Int(headLength))])
            body = Array(file[(headStart + Int(headLength))...])
        }

        /// The file with checksums that hold for the parts as they are now.
        var bytes: [UInt8] {
            var preamble = CacheWriter()
            preamble.string(FetchedResultsCache.formatVersion)
            preamble.integer(Int64(head.count))
            preamble.integer(Int64(body.count))
            preamble.integer(Int64(bitPattern: CacheChecksum.of(head)))
            preamble.integer(Int64(bitPattern: CacheChecksum.of(body)))
            return preamble.bytes + head + body
        }
    }

    @Test(arguments: [40, FetchedResultsCache.headEntryCount + 300])
    func aCraftedCacheNeverCrashesTheController(items: Int) throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(.sqlite)
        try seedItems(stack, count: items)
        let cacheName = "fuzz"
        func controller(in context: ManagedObjectContext) -> FetchedResultsController<ManagedObject> {
            let controller = FetchedResultsController(fetchRequest: itemRequest(batchSize: 20),
                managedObjectContext: context, sectionNameKeyPath: "group", cacheName: cacheName)
            controller.cacheDirectory = directory.url
            return controller
        }
        let writer = stack.context(name: "writer")
        let expected = try writer.performAndWait {
            let first = controller(in: writer)
            try first.performFetch()
            return first.sectionedIDs
        }
        let url = FetchedResultsCache.fileURL(forName: cacheName, in: directory.url)
        let original = try #require(CacheFile([UInt8](try Data(contentsOf: url))))
        var random = SeededRandom(seed: UInt64(items) &* 0x5EED)
        var refused = 0
        // Two crafted on purpose: the entity's name, and the store's identifier, changed to ones that exist
        // nowhere (the IDs would name no entity, or no store, of the coordinator): refused.
        let storeIdentifier = try #require(stack.coordinator.persistentStores.first?.identifier)
        let targeted = [Array("Item".utf8), Array(storeIdentifier.utf8)].map { text -> CacheFile in
            var crafted = original
            // Where the head names it after its length: its table (the fingerprint names it inside text, and
            // entries' order bytes hold the entity's name too).
            if let start = crafted.head.firstRange(of: [UInt8(text.count)] + text)?.lowerBound {
                crafted.head[start + text.count] ^= 0x01
            }
            return crafted
        }
        for round in 0..<62 {
            var crafted = round < targeted.count ? targeted[round] : original
            for _ in 0..<(round < targeted.count ? 0 : Int.random(in: 1...3, using: &random)) {
                // The head mostly: its tables, runs and first entries say what the body is read as.
                if crafted.body.isEmpty || Bool.random(using: &random) {
                    crafted.head[Int.random(in: 0..<crafted.head.count, using: &random)] = UInt8.random(in: 0...255,
                        using: &random)
                } else {
                    crafted.body[Int.random(in: 0..<crafted.body.count, using: &random)] = UInt8.random(in: 0...255,
                        using: &random)
                }
            }
            try Data(crafted.bytes).write(to: url)
            let context = stack.context(name: "reader \(round)")
            try context.performAndWait {
                let reader = controller(in: context)
                try reader.performFetch()
                // Every index path, object and value the results name (the body is read on the way).
                for section in 0..<reader.numberOfSections {
                    for row in 0..<reader.numberOfObjects(inSection: section) {
                        let object = reader.object(at: IndexPath(row: row, section: section))
                        _ = object["rank"] as Int64?
                        _ = reader.indexPath(forObject: object)
                    }
                }
                _ = reader.sectionIndexTitles
                if round < targeted.count {
                    #expect(!reader.resultsCameFromCache, "round \(round): IDs naming no entity or store of ours")
                }
                if !reader.resultsCameFromCache {
                    refused += 1
                    #expect(reader.sectionedIDs == expected, "round \(round): refused, so fetched")
                }
            }
        }
        #expect(refused > 0, "some crafted files are refused")
    }
}
