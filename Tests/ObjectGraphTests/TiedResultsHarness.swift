import Foundation
import Testing
@testable import ObjectGraph
import SectionedChanges

/// The ways a controller reports a batch: per-change calls, whole snapshots, ID differences, one changeset.
enum DelegateKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case classic, snapshot, difference, changeset
    var testDescription: String { rawValue }
}

/// Every ID a test's objects ever had, mapped to the ID each has now: rows recorded before a save (under
/// temporary IDs) are compared with rows after it (under permanent ones) object by object.
final class IdentityLedger {
    private var objects: [ManagedObject] = []
    private var idsByObject: [ObjectIdentifier: [ManagedObjectID]] = [:]
    private var current: [ManagedObjectID: ManagedObjectID] = [:]

    /// Keeps `object` (and so its registration) alive and follows its IDs.
    func hold(_ object: ManagedObject) {
        if idsByObject[ObjectIdentifier(object)] == nil { objects.append(object) }
        refresh()
    }

    /// Notes the IDs the held objects have now.
    func refresh() {
        for object in objects {
            var ids = idsByObject[ObjectIdentifier(object), default: []]
            if ids.last != object.objectID { ids.append(object.objectID) }
            idsByObject[ObjectIdentifier(object)] = ids
            for id in ids { current[id] = object.objectID }
        }
    }

    /// The ID the object once known by `id` has now (`id` itself for objects not held: saved ones).
    func now(_ id: ManagedObjectID) -> ManagedObjectID { current[id] ?? id }

    func now(_ rows: [[ManagedObjectID]]) -> [[ManagedObjectID]] { rows.map { $0.map(now) } }
}

/// Records per-change calls as a changeset with the inserted objects' IDs.
final class ClassicRecorder: FetchedResultsControllerDelegate {
    private let recorder = ChangeRecorder()
    var batches: [ChangeRecorder.Batch] { recorder.batches }
    var protocolErrors: [String] { recorder.protocolErrors }
    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) {
        recorder.controllerWillChangeContent(controller)
    }
    func controller(
        _ controller: AnyFetchedResultsController, didChange sectionInfo: FetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) { recorder.controller(controller, didChange: sectionInfo, atSectionIndex: sectionIndex, for: type) }
    func controller(
        _ controller: AnyFetchedResultsController, didChange anObject: ManagedObject, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) { recorder.controller(controller, didChange: anObject, at: indexPath, for: type, newIndexPath: newIndexPath) }
    func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {
        recorder.controllerDidChangeContent(controller)
    }
}

final class SnapshotCollector: FetchedResultsControllerSnapshotDelegate {
    var snapshots: [FetchedResultsSnapshot] = []
    var perChangeCalls = 0
    func controller(_ controller: AnyFetchedResultsController, didChangeContentWith snapshot: FetchedResultsSnapshot) {
        snapshots.append(snapshot)
    }
    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) { perChangeCalls += 1 }
}

final class ChangesetCollector: FetchedResultsControllerChangesetDelegate {
    var changesets: [SectionedChangeset] = []
    var perChangeCalls = 0
    func controller(_ controller: AnyFetchedResultsController, didChangeContentWith changeset: SectionedChangeset) {
        changesets.append(changeset)
    }
    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) { perChangeCalls += 1 }
}

final class DifferenceCollector: FetchedResultsControllerDifferenceDelegate {
    var differences: [CollectionDifference<ManagedObjectID>] = []
    var perChangeCalls = 0
    func controller(
        _ controller: AnyFetchedResultsController, didChangeContentWith difference: CollectionDifference<ManagedObjectID>
    ) { differences.append(difference) }
    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) { perChangeCalls += 1 }
}

/// One controller of a given delegate kind over `Item`s, checked after each step against a fresh fetch in the
/// same context and against what it reported. Use it on the context's queue.
final class TiedResultsProbe {
    let kind: DelegateKind
    let context: ManagedObjectContext
    let controller: FetchedResultsController<ManagedObject>
    let ledger: IdentityLedger
    let label: String
    private let classic = ClassicRecorder()
    private let snapshots = SnapshotCollector()
    private let differences = DifferenceCollector()
    private let changesets = ChangesetCollector()
    private var rows: [[ManagedObjectID]]
    private var ids: [ManagedObjectID]
    private var seenBatches = 0
    private var seenSnapshots = 0
    private var seenDifferences = 0
    private var seenChangesets = 0

    /// The request: visible items (`flag == YES`) sorted by group alone (or group, then rank), so that items of a
    /// group tie (their IDs order them); sectioned by group except for the difference kind.
    static func request(byRank: Bool, batchSize: Int) -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Item")
        request.predicate = try? FetchPredicate(format: "flag == YES")
        request.sortCriteria = byRank ? [SortCriterion("group"), SortCriterion("rank")] : [SortCriterion("group")]
        request.fetchBatchSize = batchSize
        return request
    }

    init(_ kind: DelegateKind, context: ManagedObjectContext, ledger: IdentityLedger, byRank: Bool = false,
        batchSize: Int = 0, label: String = "") throws
    {
        self.kind = kind
        self.context = context
        self.ledger = ledger
        self.label = "\(label) \(kind.rawValue) batch \(batchSize)"
        controller = FetchedResultsController(fetchRequest: Self.request(byRank: byRank, batchSize: batchSize),
            managedObjectContext: context, sectionNameKeyPath: kind == .difference ? nil : "group")
        switch kind {
        case .classic: controller.delegate = classic
        case .snapshot: controller.delegate = snapshots
        case .difference: controller.delegate = differences
        case .changeset: controller.delegate = changesets
        }
        try controller.performFetch()
        rows = controller.sectionedIDs
        ids = controller.fetchedObjectIDs ?? []
        seenSnapshots = snapshots.snapshots.count
    }

    /// How many times the delegate heard of a change so far.
    var callbackCount: Int {
        switch kind {
        case .classic: classic.batches.count
        case .snapshot: snapshots.snapshots.count
        case .difference: differences.differences.count
        case .changeset: changesets.changesets.count
        }
    }

    /// The last batch as a changeset (classic and changeset kinds), if any.
    var lastChangeset: SectionedChangeset? {
        kind == .changeset ? changesets.changesets.last : classic.batches.last?.changeset
    }

    /// The results a fresh controller shows now.
    func freshRows() throws -> [[ManagedObjectID]] {
        let fresh = FetchedResultsController(fetchRequest: controller.fetchRequest, managedObjectContext: context,
            sectionNameKeyPath: kind == .difference ? nil : "group")
        try fresh.performFetch()
        return fresh.sectionedIDs
    }

    /// Checks the controller after a step; returns whether the delegate heard of a change.
    @discardableResult
    func check(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Bool {
        ledger.refresh()
        let at = "\(label): \(step)"
        let fresh = try freshRows()
        #expect(controller.sectionedIDs == fresh, "\(at): the controller differs from a fresh fetch",
            sourceLocation: sourceLocation)
        #expect(controller.fetchedObjectIDs == fresh.flatMap { $0 }, "\(at): fetchedObjectIDs differ",
            sourceLocation: sourceLocation)
        for id in controller.fetchedObjectIDs ?? [] {
            #expect(throws: Never.self, "\(at): existingObject(with: \(id))", sourceLocation: sourceLocation) {
                _ = try self.context.existingObject(with: id)
            }
        }
        let previous = ledger.now(rows)
        var heard = false
        switch kind {
        case .classic:
            let new = classic.batches.count - seenBatches
            #expect(new <= 1, "\(at): \(new) batches for one step", sourceLocation: sourceLocation)
            if new == 1, let batch = classic.batches.last {
                heard = true
                #expect(Set(batch.reportedObjects).count == batch.reportedObjects.count,
                    "\(at): an object reported twice", sourceLocation: sourceLocation)
                #expect(throws: Never.self, "\(at)", sourceLocation: sourceLocation) {
                    try batch.changeset.validate(oldRowCounts: previous.map(\.count), newRowCounts: fresh.map(\.count))
                }
                let applied = batch.changeset.applied(to: previous) { batch.inserted[$0].map(self.ledger.now) }
                #expect(applied == fresh, "\(at): applying \(batch.changeset) to \(previous) gives \(String(describing: applied))",
                    sourceLocation: sourceLocation)
                #expect(!batch.changeset.isEmpty, "\(at): an empty batch", sourceLocation: sourceLocation)
            } else {
                #expect(previous == fresh, "\(at): rows changed without a callback", sourceLocation: sourceLocation)
            }
            #expect(classic.protocolErrors.isEmpty, "\(at): \(classic.protocolErrors)", sourceLocation: sourceLocation)
            seenBatches = classic.batches.count
        case .snapshot:
            heard = snapshots.snapshots.count > seenSnapshots
            let last = snapshots.snapshots.last
            let shown = last.map { snapshot in snapshot.sectionIdentifiers.map { snapshot.itemIdentifiers(inSection: $0) } }
            #expect(shown == fresh, "\(at): the last snapshot differs from a fresh fetch", sourceLocation: sourceLocation)
            #expect(snapshots.perChangeCalls == 0, sourceLocation: sourceLocation)
            seenSnapshots = snapshots.snapshots.count
        case .difference:
            heard = differences.differences.count > seenDifferences
            for difference in differences.differences[seenDifferences...] {
                let applied = ids.applying(difference)
                #expect(applied != nil, "\(at): a difference that does not apply", sourceLocation: sourceLocation)
                ids = applied ?? ids
            }
            #expect(ids == fresh.flatMap { $0 }, "\(at): the differences do not give a fresh fetch's IDs",
                sourceLocation: sourceLocation)
            #expect(differences.perChangeCalls == 0, sourceLocation: sourceLocation)
            seenDifferences = differences.differences.count
        case .changeset:
            let new = changesets.changesets.count - seenChangesets
            #expect(new <= 1, "\(at): \(new) changesets for one step", sourceLocation: sourceLocation)
            if new == 1, let changeset = changesets.changesets.last {
                heard = true
                #expect(throws: Never.self, "\(at)", sourceLocation: sourceLocation) {
                    try changeset.validate(oldRowCounts: previous.map(\.count), newRowCounts: fresh.map(\.count))
                }
                // (An inserted row's element is whatever is there now: the check is on everything else.)
                let applied = changeset.applied(to: previous) { path in
                    path.section < fresh.count && path.row < fresh[path.section].count ? fresh[path.section][path.row] : nil
                }
                #expect(applied == fresh, "\(at): applying \(changeset) to \(previous) gives \(String(describing: applied))",
                    sourceLocation: sourceLocation)
                #expect(!changeset.isEmpty, "\(at): an empty changeset", sourceLocation: sourceLocation)
            } else {
                #expect(previous == fresh, "\(at): rows changed without a changeset", sourceLocation: sourceLocation)
            }
            #expect(changesets.perChangeCalls == 0, sourceLocation: sourceLocation)
            seenChangesets = changesets.changesets.count
        }
        rows = fresh
        return heard
    }
}

/// Inserts a visible (or hidden) item of `group` in `context`, held by `ledger`.
@discardableResult
func insertItem(_ context: ManagedObjectContext, group: String = "A", rank: Int64 = 0, visible: Bool = true,
    ledger: IdentityLedger) throws -> ManagedObject
{
    let item = try context.insertNewObject(forEntityName: "Item")
    item["group"] = group
    item["rank"] = rank
    item["flag"] = visible
    ledger.hold(item)
    return item
}
