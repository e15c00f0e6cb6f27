import Foundation
import ObjectGraph
import ObjectGraphPostgres

/// What `store-info` reports about a store and a model.
struct StoreReport {
    /// One entity as the store or the model knows it.
    struct EntityLine: Equatable {
        var name: String
        /// The hash in the store's metadata, if the store knows the entity.
        var storeHash: Data?
        /// The hash the model computes, if the model has the entity.
        var modelHash: Data?
        /// Rows whose entity is exactly this one (not a sub-entity); nil when the store was not opened.
        var rows: Int?
    }

    var storePath: String
    var metadata: StoreMetadata
    /// The model version the store was written with: as its metadata names it, or else the version of the
    /// model bundle whose hashes are the store's; nil when neither says.
    var storeVersionName: String?
    var modelPath: String
    var modelVersionHash: Data
    var matches: Bool
    /// How compatibility was decided (nil for a store that is not SQLite, checked by its hashes only).
    var compatibility: StoreCompatibility? = nil
    var entities: [EntityLine]
    /// Why rows could not be counted, when they could not.
    var countProblem: String?
    /// The files of values stored outside the database (external binary storage).
    var externalData: ExternalBinaryDataUsage? = nil
    /// How the store answers `CONTAINS[cd]` and its kin on the model's text-indexed attributes (nil when the model
    /// indexes none).
    var textSearch: String? = nil

    /// The report as text.
    func rendered() -> String {
        var lines = [
            "Store:               \(storePath)",
            "Store type:          \(metadata.storeType)",
            "Store UUID:          \(metadata.storeUUID)",
            "Store origin:        \(metadata.writer)",
            "Store model version: \(storeVersionName ?? "unknown")",
            "Model:               \(modelPath)",
            "Model version hash:  \(modelVersionHash.hexString)",
        ]
        if let externalData, externalData.fileCount > 0 {
            lines.append("External data:       \(externalData.fileCount) file\(externalData.fileCount == 1 ? "" : "s"), "
                + "\(externalData.byteCount) bytes in \(externalData.folder.path)")
        }
        if let textSearch { lines.append("Text search:         \(textSearch)") }
        switch (compatibility, matches) {
        case (.incompatible(let reason)?, _):
            lines.append("Matches the model:   NO — \(reason)")
        case (let how?, true):
            lines.append("Matches the model:   \(how)")
        case (_, true):
            lines.append("Matches the model:   yes")
        case (_, false):
            lines.append("Matches the model:   NO — the store was written for a different model (entities marked below differ)")
        }
        lines.append("")
        var rows: [[String]] = []
        for entity in entities {
            let note: String
            switch (entity.storeHash, entity.modelHash) {
            case (nil, _): note = "only in the model"
            case (_, nil): note = "only in the store"
            // Core Data's hashes are never ours: with the structure matching, a different hash says nothing.
            case let (store?, model?) where store != model && compatibility != .matchingStructure:
                note = "differs: the model's is \(model.hexString)"
            default: note = ""
            }
            rows.append([entity.name, entity.rows.map(String.init) ?? "-",
                (entity.storeHash ?? entity.modelHash)?.hexString ?? "", note])
        }
        let hasNotes = rows.contains { !$0[3].isEmpty }
        var table = TextTable(headers: ["Entity", "Rows", "Version hash"] + (hasNotes ? ["Note"] : []),
            alignments: [.left, .right, .left, .left])
        table.rows = hasNotes ? rows : rows.map { Array($0.prefix(3)) }
        lines.append(table.rendered())
        if let countProblem { lines += ["", "Rows were not counted: \(countProblem)"] }
        return lines.joined(separator: "\n")
    }
}

/// Reads a store's metadata, compares it with a model, and counts rows per entity when they match.
enum StoreInspector {
    /// Inspects the store at `storeURL` against `model`.
    ///
    /// The metadata is read without the model, so it is shown even when the model does not fit.
    ///
    /// - Throws: ``CommandFailure`` when the file is missing or is not a store.
    static func inspect(storeURL: URL, model: ManagedObjectModel, modelPath: String) throws(CommandFailure)
        -> StoreReport
    {
        let isServer = !storeURL.isFileURL
        let storeName = isServer ? StoreURL.redacted(storeURL) : storeURL.path
        guard isServer || FileManager.default.fileExists(atPath: storeURL.path) else {
            throw CommandFailure("cannot read the store \(storeURL.path): no such file")
        }
        let metadata: StoreMetadata
        do {
            metadata = isServer ? try PostgresStore.metadata(at: storeURL) : try StoreFileType.metadata(at: storeURL)
        } catch {
            throw CommandFailure("cannot read the store \(storeName): \(error)")
        }
        let modelHashes = model.entityVersionHashes
        var matches = model.isConfiguration(compatibleWithVersionHashes: metadata.entityVersionHashes)
        var compatibility: StoreCompatibility?
        if metadata.storeType == "SQLite" {
            // A store Core Data wrote carries hashes we cannot compute: its structure decides.
            compatibility = try? PersistentStoreCoordinator.compatibility(ofStoreAt: storeURL, with: model)
            if metadata.writer != .objectGraph { matches = compatibility?.isCompatible ?? false }
            // Our own store that differs keeps the hash notes below as its explanation.
            if compatibility?.isCompatible != matches || (metadata.writer == .objectGraph && !matches) {
                compatibility = nil
            }
        }
        let names = Set(modelHashes.keys).union(metadata.entityVersionHashes.keys).sorted()
        var entities = names.map {
            StoreReport.EntityLine(name: $0, storeHash: metadata.entityVersionHashes[$0], modelHash: modelHashes[$0])
        }
        var countProblem: String?
        if matches {
            do throws(CommandFailure) {
                let counts = try rowCounts(storeURL: storeURL, model: model)
                for index in entities.indices { entities[index].rows = counts[entities[index].name] }
            } catch {
                countProblem = error.description
            }
        } else {
            countProblem = "the store does not match the model"
        }
        return StoreReport(storePath: storeName, metadata: metadata,
            storeVersionName: versionName(of: metadata, modelPath: modelPath), modelPath: modelPath,
            modelVersionHash: model.versionHash, matches: matches, compatibility: compatibility, entities: entities,
            countProblem: countProblem,
            externalData: isServer ? nil : PersistentStoreCoordinator.externalBinaryDataUsage(ofStoreAt: storeURL),
            textSearch: textSearch(model: model, metadata: metadata, isServer: isServer,
                serverIndexed: isServer ? (try? PostgresStore.hasTextIndexes(at: storeURL, model: model)) ?? false : false))
    }

    /// How the store answers text comparisons of the model's attributes marked for the text search index
    /// ("Index in Spotlight"): through an FTS5 trigram index in an SQLite store ObjectGraph writes, a `pg_trgm`
    /// index in a PostgreSQL store that has one (`serverIndexed`), by testing every row elsewhere — said plainly, so
    /// that nobody expects an index where there is none.
    static func textSearch(model: ManagedObjectModel, metadata: StoreMetadata, isServer: Bool, serverIndexed: Bool)
        -> String?
    {
        // Each attribute under the entity that declares it (sub-entities inherit their parent's).
        let indexed = model.entities.flatMap { entity in
            let inherited = Set(entity.parentEntityName.flatMap(model.entity(named:))?.attributes.map(\.name) ?? [])
            return entity.attributes.filter {
                $0.isIndexedBySpotlight && !$0.isTransient && $0.attributeType == .string && !inherited.contains($0.name)
            }.map { "\(entity.name).\($0.name)" }
        }
        guard !indexed.isEmpty else { return nil }
        let attributes = Array(Set(indexed)).sorted().joined(separator: ", ")
        if isServer {
            return serverIndexed
                ? "pg_trgm trigram index (patterns of three or more characters) for \(attributes)"
                : "scans: the server tests the folded text of every row (no pg_trgm index) for \(attributes)"
        }
        switch (metadata.storeType, metadata.writer) {
        case ("SQLite", .objectGraph):
            return "FTS5 trigram index (patterns of three or more characters) for \(attributes)"
        case ("SQLite", _):
            return "scans: a store Core Data wrote gets no index from ObjectGraph (\(attributes))"
        default:
            return "scans (\(metadata.storeType) store) for \(attributes)"
        }
    }

    /// The model version that wrote the store: the metadata's, or the last version of the bundle at
    /// `modelPath` whose entity hashes are the store's.
    static func versionName(of metadata: StoreMetadata, modelPath: String) -> String? {
        if let name = metadata.modelVersionName { return name }
        guard let bundle = try? ModelBundle(contentsOf: URL(fileURLWithPath: modelPath)) else { return nil }
        return bundle.versionNames.last { name in
            (try? bundle.model(named: name))?.entityVersionHashes == metadata.entityVersionHashes
        }
    }

    /// Rows per entity: objects of the entity itself, without those of its sub-entities.
    static func rowCounts(storeURL: URL, model: ManagedObjectModel) throws(CommandFailure) -> [String: Int] {
        let context = try StoreOpener.openContext(model: model, storeURL: storeURL, creating: false)
        let result: Result<[String: Int], ObjectGraphError> = context.performAndWait {
            do throws(ObjectGraphError) {
                var withDescendants: [String: Int] = [:]
                for entity in model.entities {
                    withDescendants[entity.name] = try context.count(for: FetchRequest(entityName: entity.name))
                }
                var own: [String: Int] = [:]
                for entity in model.entities {
                    let children = model.subentities(of: entity).reduce(0) { $0 + (withDescendants[$1.name] ?? 0) }
                    own[entity.name] = (withDescendants[entity.name] ?? 0) - children
                }
                return .success(own)
            } catch {
                return .failure(error)
            }
        }
        do {
            return try result.get()
        } catch {
            throw CommandFailure("counting rows in \(storeURL.path) failed: \(error)")
        }
    }
}

extension Data {
    /// The bytes as lower-case hexadecimal.
    var hexString: String {
        map { byte in
            let hex = String(byte, radix: 16)
            return byte < 0x10 ? "0" + hex : hex
        }.joined()
    }
}
