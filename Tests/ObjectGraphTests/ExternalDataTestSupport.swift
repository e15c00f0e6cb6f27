import Foundation
@testable import ObjectGraph
import SQLiteStorage
import Testing

/// A model with an external-storage attribute (`Photo.image`), a plain Binary one (`Photo.thumbnail`), a unique
/// title, and albums that cascade to their photos: the subject of the external binary storage tests.
enum ExternalDataModel {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Album", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [RelationshipDescription(name: "photos", destination: "Photo", inverse: "album",
                    isToMany: true, deleteRule: .cascade)]),
            EntityDescription(name: "Photo", attributes: [
                AttributeDescription(name: "title", type: .string),
                AttributeDescription(name: "image", type: .binary, allowsExternalBinaryDataStorage: true),
                AttributeDescription(name: "thumbnail", type: .binary),
            ], relationships: [RelationshipDescription(name: "album", destination: "Album", inverse: "photos")]),
        ])
    }

    /// `count` bytes that differ with `seed`.
    static func bytes(_ count: Int, seed: Int = 1) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ 1) })
    }
}

/// An SQLite store of ``ExternalDataModel`` in a fresh folder, with a small threshold, and ways to look at its
/// files and columns without the framework.
final class ExternalDataStack {
    static let threshold = 64
    let directory = TemporaryDirectory(prefix: "objectgraph-external")
    let storeURL: URL
    let model: ManagedObjectModel
    private(set) var coordinator: PersistentStoreCoordinator

    init(_ kind: StoreKind = .sqlite, threshold: Int = ExternalDataStack.threshold) throws {
        storeURL = directory.url.resolvingSymlinksInPath().appendingPathComponent("Photos.sqlite")
        model = try ExternalDataModel.model()
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var options = PersistentStoreOptions()
        options.externalBinaryDataThreshold = threshold
        try coordinator.addPersistentStore(ofType: kind == .sqlite ? .sqlite : .inMemory, configurationName: nil,
            at: storeURL, options: options)
    }

    /// Drops the coordinator and opens the file again with a new one (which cleans up orphaned files).
    func reopen(threshold: Int = ExternalDataStack.threshold) throws {
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var options = PersistentStoreOptions()
        options.externalBinaryDataThreshold = threshold
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: storeURL, options: options)
    }

    func context(name: String? = nil) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.name = name
        return context
    }

    /// `.Photos_SUPPORT/_EXTERNAL_DATA`.
    var externalFolder: URL {
        directory.url.resolvingSymlinksInPath().appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA")
    }

    /// The names of the files in the external folder, sorted.
    var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: externalFolder.path)) ?? []).sorted()
    }

    /// `ZIMAGE` (or another column) of every photo, by title, read with plain SQLite.
    func columns(_ column: String = "ZIMAGE") throws -> [String: SQLiteValue] {
        let connection = try SQLiteConnection(path: storeURL.path, mode: .readOnly)
        defer { connection.close() }
        var result: [String: SQLiteValue] = [:]
        for row in try connection.rows("SELECT ZTITLE, \(column) FROM ZPHOTO") {
            if case .text(let title) = row[0] { result[title] = row[1] }
        }
        return result
    }

    /// The file a column names, or nil when it holds the value (or nil).
    static func fileName(_ column: SQLiteValue?) -> String? {
        guard case .blob(let bytes)? = column, bytes.first == 0x02 else { return nil }
        return String(decoding: bytes.dropFirst(), as: UTF8.self)
    }

    /// Inserts a photo titled `title` with `image` and saves.
    @discardableResult
    func insertPhoto(_ title: String, image: Data?, in context: ManagedObjectContext) throws -> ManagedObjectID {
        try context.performAndWait {
            let photo = try context.insertNewObject(forEntityName: "Photo")
            photo["title"] = title
            photo["image"] = image
            try context.save()
            return photo.objectID
        }
    }

    /// The photo titled `title`, fetched in `context` (call on its queue).
    static func photo(_ title: String, in context: ManagedObjectContext) throws -> ManagedObject? {
        try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo",
            predicate: try FetchPredicate(format: "title == %@", title))).first
    }
}
