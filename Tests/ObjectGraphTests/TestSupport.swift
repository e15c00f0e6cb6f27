import Foundation
import Testing
@testable import ObjectGraph
import SectionedChanges
@_exported import TestSupport

/// The person entity of the first slice.
enum TestModels {
    static func person() -> EntityDescription {
        EntityDescription(name: "Person", attributes: [
            AttributeDescription(name: "firstName", type: .string),
            AttributeDescription(name: "lastName", type: .string, isOptional: false),
            AttributeDescription(name: "email", type: .string),
            AttributeDescription(name: "city", type: .string),
            AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "createdAt", type: .date),
        ])
    }

    /// Items with a section key, a rank and a name: the controller's test subject.
    static func item() -> EntityDescription {
        EntityDescription(name: "Item", attributes: [
            AttributeDescription(name: "group", type: .string),
            AttributeDescription(name: "rank", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "flag", type: .boolean, defaultValue: false),
            AttributeDescription(name: "note", type: .string, isTransient: true),
        ])
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [person(), item()])
    }
}

/// How a test stack stores its rows.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, inMemory, atomic
    var testDescription: String { rawValue }

    /// The store type of this kind.
    var storeType: PersistentStoreType {
        switch self {
        case .sqlite: .sqlite
        case .inMemory: .inMemory
        case .atomic: .atomic
        }
    }
}

/// A coordinator with one store, plus a folder to keep the file in.
struct TestStack {
    let directory = TemporaryDirectory()
    let coordinator: PersistentStoreCoordinator
    let storeURL: URL

    init(_ kind: StoreKind = .sqlite) throws {
        coordinator = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
        storeURL = directory.file("store.sqlite")
        try coordinator.addPersistentStore(ofType: kind.storeType, at: storeURL)
    }

    func context(_ type: ManagedObjectContext.ConcurrencyType = .privateQueue, name: String? = nil)
        -> ManagedObjectContext
    {
        let context = ManagedObjectContext(concurrencyType: type)
        context.persistentStoreCoordinator = coordinator
        context.name = name
        return context
    }
}

/// Records a fetched-results controller's delegate calls and turns each batch into a changeset.
final class ChangeRecorder: FetchedResultsControllerDelegate {
    struct Batch {
        var changeset = SectionedChangeset()
        var inserted: [IndexPath: ManagedObjectID] = [:]
        var reportedObjects: [ManagedObjectID] = []
    }
    private(set) var batches: [Batch] = []
    private var current: Batch?
    private(set) var protocolErrors: [String] = []

    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) {
        if current != nil { protocolErrors.append("willChange twice") }
        current = Batch()
    }

    func controller(
        _ controller: AnyFetchedResultsController, didChange sectionInfo: FetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) {
        guard current != nil else { return protocolErrors.append("section change outside a batch") }
        if !(current?.changeset.deletedRows.isEmpty ?? true) || !(current?.changeset.insertedRows.isEmpty ?? true) {
            protocolErrors.append("section change after object changes")
        }
        switch type {
        case .insert: current?.changeset.insertedSections.insert(sectionIndex)
        case .delete: current?.changeset.deletedSections.insert(sectionIndex)
        default: protocolErrors.append("section \(type)")
        }
    }

    func controller(
        _ controller: AnyFetchedResultsController, didChange anObject: ManagedObject, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        guard current != nil else { return protocolErrors.append("object change outside a batch") }
        current?.reportedObjects.append(anObject.objectID)
        switch (type, indexPath, newIndexPath) {
        case (.insert, nil, let new?):
            current?.changeset.insertedRows.append(new)
            current?.inserted[new] = anObject.objectID
        case (.delete, let old?, nil):
            current?.changeset.deletedRows.append(old)
        case (.move, let old?, let new?):
            // A move may end at its start index path when rows around it changed (the differential
            // test proves each reported move is needed to reach a fresh fetch's order).
            current?.changeset.movedRows.append(RowMove(from: old, to: new))
        case (.update, let old?, let new?):
            current?.changeset.updatedRows.append(RowUpdate(from: old, to: new))
        default:
            protocolErrors.append("bad index paths for \(type): \(String(describing: indexPath)) → \(String(describing: newIndexPath))")
        }
    }

    func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {
        guard let batch = current else { return protocolErrors.append("didChange without willChange") }
        batches.append(batch)
        current = nil
    }

    /// Whether an invalidation (a reset, another writer's restore) makes the recorder fetch again, as a table
    /// view's controller does before reloading.
    var refetchesOnInvalidation = false
    private(set) var invalidations = 0

    func controllerDidInvalidateContent(_ controller: AnyFetchedResultsController) {
        invalidations += 1
        if refetchesOnInvalidation {
            do { try controller.performFetch() } catch { protocolErrors.append("refetch failed: \(error)") }
        }
    }
}

extension AnyFetchedResultsController {
    /// The results as object IDs, one array per section. Reads IDs only, so checking a controller does not
    /// register its objects in the context (which would hide what happens to objects nobody holds).
    var sectionedIDs: [[ManagedObjectID]] {
        (0..<numberOfSections).map { section in
            (0..<numberOfObjects(inSection: section)).compactMap { objectID(at: IndexPath(row: $0, section: section)) }
        }
    }
}

extension ManagedObjectContext {
    /// Saves (on the context's queue, which the caller is on) and returns the did-save it posted, if any.
    func saveCapturingDidSave() throws -> ContextDidSave? {
        let captured = Unchecked<ContextDidSave?>(nil)
        let token = addDidSaveObserver { captured.value = $0 }
        defer { token.cancel() }
        try save()
        return captured.value
    }
}

/// Hands a value to another queue in tests, where the test itself guarantees only one queue uses it at a time.
final class Unchecked<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// Runs `body` on the main dispatch queue (where `.mainQueue` contexts live) and returns its result.
func onMainQueue<T>(_ body: @escaping () throws -> T) async throws -> T {
    let box = Unchecked<(() throws -> T)?>(body)
    let result: Unchecked<Result<T, any Error>?> = await withCheckedContinuation { continuation in
        DispatchQueue.main.async {
            let outcome = Unchecked<Result<T, any Error>?>(Result { try box.value?() ?? { throw CancellationError() }() })
            continuation.resume(returning: outcome)
        }
    }
    guard let outcome = result.value else { throw CancellationError() }
    return try outcome.get()
}
