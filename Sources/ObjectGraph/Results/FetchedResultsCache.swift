import Foundation
import SQLiteStorage

/// A fetched-results controller's persistent section cache: the ordered IDs, order bytes (the sort keys,
/// encoded) and section names of its results, so the next launch shows the first screen without fetching.
///
/// A cache is used only when everything it was computed from is unchanged: the request (entity,
/// predicate, sort criteria, sub-entities), the section naming, the version hashes of the fetched
/// entities, and each store's identity, file size and modification time (Core Data's rule). It is an
/// optimisation only: a missing, stale or damaged cache is recomputed, never an error.
///
/// Caches live in the controller's ``AnyFetchedResultsController/cacheDirectory``, one file per name.
struct FetchedResultsCache: Sendable {
    /// Changes whenever the file layout does.
    static let formatVersion = "ObjectGraph fetched-results cache 3"

    let url: URL
    private let header: [String]
    private let stores: [PersistentStore]
    /// The entities the results may hold: a file whose IDs name another is not believed.
    let trackedEntityNames: Set<String>

    /// The cache named `name` in `directory`, for results of `request` sectioned by `sectionNaming`, tracking
    /// the entities named `trackedEntityNames` of `model`, read from `stores`.
    init(
        name: String, directory: URL, request: FetchRequest<ManagedObject>, sectionNaming: SectionNaming?,
        trackedEntityNames: Set<String>, model: ManagedObjectModel, stores: [PersistentStore]
    ) {
        url = Self.fileURL(forName: name, in: directory)
        let hashes = trackedEntityNames.sorted().map { name in
            name + "=" + (model.entity(named: name)?.versionHash.base64EncodedString() ?? "?")
        }
        self.stores = stores
        self.trackedEntityNames = trackedEntityNames
        header = [
            Self.formatVersion, request.description, "subentities=\(request.includesSubentities)",
            "sections=" + (sectionNaming?.label ?? "-"),
        ] + hashes
    }

    /// The identifiers of the stores the results are read from: a file whose IDs name another is not believed.
    var storeIdentifiers: Set<String> { Set(stores.map(\.identifier)) }

    /// What the cache must have been computed from, as of now; nil when a store cannot be fingerprinted
    /// (an in-memory store), so no cache is used.
    func fingerprint() -> String? {
        let stamps = stores.map(Self.stamp(of:))
        guard !stores.isEmpty, !stamps.contains(nil) else { return nil }
        return (header + stamps.compactMap { $0 }).joined(separator: "\n")
    }

    /// The fingerprint to compare with the one taken after results are read from the stores (see
    /// ``store(_:names:namespaces:readAt:)``): a save in between changes the stores' files, and results
    /// read across it must not be cached as theirs.
    func fingerprintBeforeReading() -> String? {
        checkpointStores()
        return fingerprint()
    }

    /// Moves everything from each SQLite store's write-ahead log into its main file, so that the file
    /// stamps recorded with the cache are the ones the next launch sees (closing the store checkpoints
    /// too, and would otherwise change them).
    private func checkpointStores() {
        for store in stores where !store.isReadOnly {
            guard let sqlite = store.backend as? SQLiteStore else { continue }
            _ = try? sqlite.withWriter { connection throws(ObjectGraphError) in
                do throws(SQLiteError) {
                    _ = try connection.rows("PRAGMA wal_checkpoint(TRUNCATE)")
                } catch {
                    throw .sqlite(error)
                }
            }
        }
    }

    /// A store's identity and its files' sizes and modification times; nil for a store without a file (in
    /// memory, or on a server such as PostgreSQL, whose contents other machines change without touching any file
    /// here: its results are never cached).
    private static func stamp(of store: PersistentStore) -> String? {
        guard let url = store.url, url.isFileURL else { return nil }
        let files = [url.path, url.path + "-wal"]
        let parts = files.map { path -> String in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return "-" }
            let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
            if size == 0, path.hasSuffix("-wal") { return "-" }  // an empty log is as good as none
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(size)@\(modified.bitPattern)"
        }
        return "store=\(store.identifier) " + parts.joined(separator: " ")
    }

    /// The cache file for `name` in `directory`.
    static func fileURL(forName name: String, in directory: URL) -> URL {
        let safe = name.unicodeScalars.map { scalar -> String in
            CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar)
                ? String(scalar) : String(format: "%%%02X", scalar.value)
        }.joined()
        return directory.appendingPathComponent(safe + ".frcache")
    }

    /// Entries written in the cache's head, read before ``AnyFetchedResultsController/performFetch()``
    /// returns; the rest (the body) is read on another thread while the first screen shows.
    static let headEntryCount = 1_024

    /// Writes `entries` (in order) to the cache file, atomically; results holding unsaved objects are not
    /// cached (their IDs are temporary). With `readAt`, the fingerprint taken before the entries were read
    /// from the stores: when the stores changed since (another context saved meanwhile), the entries may
    /// miss that save, and the cache is removed instead. Returns whether the cache was written.
    ///
    /// Layout: the format version; the head's and the body's lengths and checksums; the head (fingerprint,
    /// section names, entity and store tables, entry count, section runs, the first ``headEntryCount``
    /// entries); the body (the other entries).
    @discardableResult
    func store(
        _ entries: [ResultsEntry], names: SectionNames, namespaces: IDNamespaces, readAt: String? = nil
    ) -> Bool {
        checkpointStores()
        guard let fingerprint = fingerprint(), readAt == nil || readAt == fingerprint,
            !entries.contains(where: { namespaces.isTemporary($0.placed) })
        else {
            try? FileManager.default.removeItem(at: url)
            return false
        }
        var head = CacheWriter()
        head.string(fingerprint)
        head.count(names.names.count)
        for name in names.names { head.string(name) }
        var entityNumbers: [String: Int] = [:]
        var storeNumbers: [String: Int] = [:]
        // Per namespace, its (entity, store) numbers in the file.
        var namespacePairs: [UInt32: (entity: Int, store: Int)] = [:]
        for entry in entries where namespacePairs[entry.placed.namespace] == nil {
            let entityName = namespaces.entityName(of: entry.placed)
            let storeIdentifier = namespaces.storeIdentifier(of: entry.placed)
            if entityNumbers[entityName] == nil { entityNumbers[entityName] = entityNumbers.count }
            if storeNumbers[storeIdentifier] == nil { storeNumbers[storeIdentifier] = storeNumbers.count }
            namespacePairs[entry.placed.namespace] =
                (entityNumbers[entityName] ?? 0, storeNumbers[storeIdentifier] ?? 0)
        }
        for table in [entityNumbers, storeNumbers] {
            head.count(table.count)
            for (name, _) in table.sorted(by: { $0.value < $1.value }) { head.string(name) }
        }
        head.count(entries.count)
        let runs = SectionRuns(of: entries)
        head.count(runs.count)
        for (section, count) in zip(runs.sections, runs.counts) {
            head.count(Int(section))
            head.count(count)
        }
        // Neighbours mostly share a namespace: it is looked up when it changes.
        var lastNamespace = entries.first?.placed.namespace ?? 0
        var lastPair = namespacePairs[lastNamespace] ?? (0, 0)
        func write(_ entry: ResultsEntry, to writer: inout CacheWriter) {
            if entry.placed.namespace != lastNamespace {
                lastNamespace = entry.placed.namespace
                lastPair = namespacePairs[lastNamespace] ?? (0, 0)
            }
            let pair = lastPair
            writer.count(pair.entity)
            writer.count(pair.store)
            writer.integer(entry.placed.key)
            writer.count(Int(entry.section))
            writer.byteRun(entry.order)
        }
        let headCount = min(entries.count, Self.headEntryCount)
        for entry in entries[..<headCount] { write(entry, to: &head) }
        // Room for the body at the head's bytes per entry, and a little more, so that it grows once at most.
        let bytesPerEntry = headCount > 0 ? (head.bytes.count + headCount - 1) / headCount : 0
        var body = CacheWriter(capacity: (entries.count - headCount) * bytesPerEntry * 9 / 8)
        for entry in entries[headCount...] { write(entry, to: &body) }
        var file = CacheWriter()
        file.string(Self.formatVersion)
        file.integer(Int64(head.bytes.count))
        file.integer(Int64(body.bytes.count))
        file.integer(Int64(bitPattern: CacheChecksum.of(head.bytes)))
        file.integer(Int64(bitPattern: CacheChecksum.of(body.bytes)))
        // A cache that cannot be written is recomputed next time.
        guard (try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
            withIntermediateDirectories: true)) != nil
        else { return false }
        return CacheWriter.replaceFile(at: url, with: [file.bytes, head.bytes, body.bytes])
    }
}

extension AnyFetchedResultsController {
    private static let cacheDirectoryStorage = Locked<URL?>(nil)

    /// Where section caches are kept: by default `$XDG_CACHE_HOME/ObjectGraph/FetchedResults` (or
    /// `~/.cache/ObjectGraph/FetchedResults`). Set it before creating controllers with a cache name.
    public static var cacheDirectory: URL {
        get {
            if let directory = cacheDirectoryStorage.withLock({ $0 }) { return directory }
            let environment = ProcessInfo.processInfo.environment
            let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
            return base.appendingPathComponent("ObjectGraph/FetchedResults")
        }
        set { cacheDirectoryStorage.withLock { $0 = newValue } }
    }

    /// Deletes the section cache named `name`, or every cache when `name` is nil (Core Data's
    /// `deleteCache(withName:)`), in `directory` (by default the process-wide one). Do this before changing a
    /// cached controller's request.
    public static func deleteCache(
        withName name: String?, in directory: URL = AnyFetchedResultsController.cacheDirectory
    ) {
        if let name {
            try? FileManager.default.removeItem(at: FetchedResultsCache.fileURL(forName: name, in: directory))
            return
        }
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        // (With the temporary files of writes a crash interrupted.)
        for file in files where file.pathExtension == "frcache" || file.lastPathComponent.contains(".frcache.tmp-") {
            try? FileManager.default.removeItem(at: file)
        }
    }

    /// Rewrites the section cache from the current results, if the controller has a cache name and its
    /// results changed since the cache was written. Call it when the controller is up to date with the
    /// store (its context merged every save), for example when the app quits; a controller whose context
    /// has unsaved changes does not write.
    public func writeCache() {
        guard hasFetched, cacheIsStale, !managedObjectContext.hasChanges,
            let model = managedObjectContext.persistentStoreCoordinator?.managedObjectModel,
            let cache = usableSectionCache(for: resultsRequest, trackedEntityNames: trackedEntityNames, model: model)
        else { return }
        // Results saved since they were placed (here, or by a parent since) are cached under their permanent IDs.
        managedObjectContext.adoptPendingPermanentIDs()
        adoptNewObjectIDs()
        guard let entries = entriesUnderPermanentIDs() else { return }
        cache.store(entries, names: names, namespaces: namespaces)
        cacheIsStale = false
    }

    /// The results in order, each under its object's permanent ID: a result still placed under a temporary ID
    /// whose object was saved since (one the new ID would move, which is re-placed with the next change batch)
    /// is given the place the new ID gives it. Nil while a result's object is not saved.
    private func entriesUnderPermanentIDs() -> [ResultsEntry]? {
        let entries = index.allEntries
        guard !temporaryPlacements.isEmpty else { return entries }
        var kept: [ResultsEntry] = []
        var moved: [ResultsEntry] = []
        kept.reserveCapacity(entries.count)
        for entry in entries {
            guard namespaces.isTemporary(entry.placed) else {
                kept.append(entry)
                continue
            }
            let oldID = namespaces.id(for: entry.placed)
            guard let newID = temporaryPlacements.object(for: oldID)?.objectID, !newID.isTemporaryID else { return nil }
            moved.append(ResultsEntry(placed: namespaces.resultID(for: newID),
                order: ordering.replacingID(in: entry.order, old: oldID, new: newID), section: entry.section))
        }
        moved.sort { RowOrdering.compare($0.order, $1.order) < 0 }
        // Merged into the others, which stay in order.
        var merged: [ResultsEntry] = []
        merged.reserveCapacity(entries.count)
        var next = moved.makeIterator()
        var pending = next.next()
        for entry in kept {
            while let arriving = pending, RowOrdering.compare(arriving.order, entry.order) < 0 {
                merged.append(arriving)
                pending = next.next()
            }
            merged.append(entry)
        }
        while let arriving = pending {
            merged.append(arriving)
            pending = next.next()
        }
        return merged
    }

    /// The section cache for results of `request`, or nil: the controller has no cache name, or a cache would
    /// not hold the context's results. A cache holds the stores' rows only; a context's unsaved changes to the
    /// tracked entities are part of its results, and so are its ancestors' for a child context.
    ///
    /// A child context may use it while its ancestors have no unsaved changes to the tracked entities (they
    /// are asked, each on its own queue); a fetch that then finds an ancestor answered from unsaved changes
    /// after all (they were made meanwhile) does not write it. `hasPendingChanges`: whether the context has
    /// such changes, when the caller worked it out already.
    func usableSectionCache(
        for request: FetchRequest<ManagedObject>, trackedEntityNames: Set<String>, model: ManagedObjectModel,
        hasPendingChanges: Bool? = nil
    ) -> FetchedResultsCache? {
        guard let cacheName, !(hasPendingChanges ?? !pendingTrackedObjects(among: trackedEntityNames).isEmpty),
            managedObjectContext.parent == nil
                || managedObjectContext.ancestorsHaveNoUnsavedChanges(toEntitiesNamed: trackedEntityNames)
        else { return nil }
        return FetchedResultsCache(name: cacheName, directory: cacheDirectory, request: request,
            sectionNaming: sectionNaming, trackedEntityNames: trackedEntityNames, model: model,
            stores: managedObjectContext.persistentStoreCoordinator?.persistentStores ?? [])
    }
}
