import Foundation
import SectionedChanges

/// A fetched-results controller without its result type: what delegates receive.
///
/// Use ``FetchedResultsController`` to create one. The controller fetches the objects its request
/// describes, groups them into sections by `sectionNameKeyPath`, and — while it has a delegate — keeps
/// them up to date as its context changes (local edits, saves, merges from other contexts), reporting
/// each change batch to the delegate with UIKit-correct index paths.
///
/// It lives on its context's queue: create it, read it and let it call its delegate there.
open class AnyFetchedResultsController {
    /// The request whose results the controller holds. Change it only before ``performFetch()``, or
    /// call ``performFetch()`` again after changing it.
    public var fetchRequest: FetchRequest<ManagedObject>
    /// The context the controller fetches from and listens to.
    public let managedObjectContext: ManagedObjectContext
    /// The key whose value names each object's section; nil for one unnamed section.
    public let sectionNameKeyPath: String?
    /// Core Data's cache name; accepted for compatibility (results are always computed, never cached).
    public let cacheName: String?
    /// Receives change batches. Without a delegate the results stay as fetched (Core Data's rule).
    public weak var delegate: (any FetchedResultsControllerDelegate)?

    var entries: [ResultsEntry] = []
    var sectionNames: [String] = []
    var sectionStarts: [Int] = []
    var hasFetched = false
    var ordering: RowOrdering
    private var observation: ObservationToken?

    init(
        fetchRequest: FetchRequest<ManagedObject>, managedObjectContext: ManagedObjectContext,
        sectionNameKeyPath: String?, cacheName: String?
    ) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = managedObjectContext
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        self.ordering = RowOrdering(criteria: fetchRequest.sortCriteria)
    }

    /// Fetches the results and starts tracking changes.
    ///
    /// - Throws: ``ObjectGraphError/missingSortCriteria`` without sort criteria,
    ///   ``ObjectGraphError/sectionsOutOfOrder(index:sectionName:)`` when the first sort criterion does
    ///   not keep sections together (Core Data's error 134060), or any fetch error.
    public func performFetch() throws(ObjectGraphError) {
        guard !fetchRequest.sortCriteria.isEmpty else { throw .missingSortCriteria }
        let objects = try managedObjectContext.fetch(fetchRequest)
        ordering = RowOrdering(criteria: fetchRequest.sortCriteria)
        var fetched = objects.map { makeEntry($0, ordering: ordering) }
        // The store sorted by the same rules; sorting again costs little and makes tie order exact even
        // for values the store and memory read differently (for example a computed section key).
        fetched.sort { ordering.precedes($0.keys, $0.object.objectID, $1.keys, $1.object.objectID) }
        let (names, starts) = try Self.sections(of: fetched)
        entries = fetched
        sectionNames = names
        sectionStarts = starts
        placedKeys = Dictionary(uniqueKeysWithValues: fetched.map { (ObjectIdentifier($0.object), $0.keys) })
        hasFetched = true
        if observation == nil {
            observation = managedObjectContext.addObjectsDidChangeObserver { [weak self] change in
                self?.contextDidChange(change)
            }
        }
    }

    // MARK: - Results

    /// All fetched objects in order, or nil before ``performFetch()``.
    public var fetchedObjectsUntyped: [ManagedObject]? { hasFetched ? entries.map(\.object) : nil }

    /// The number of fetched objects.
    public var numberOfFetchedObjects: Int { entries.count }

    /// The sections, in order (one unnamed section when there is no section key path and any objects).
    public var sections: [FetchedResultsSectionInfo]? {
        guard hasFetched else { return nil }
        return sectionNames.indices.map(sectionInfo(at:))
    }

    /// The number of sections.
    public var numberOfSections: Int { sectionNames.count }

    /// The number of objects in `section`.
    public func numberOfObjects(inSection section: Int) -> Int {
        guard section >= 0, section < sectionStarts.count else { return 0 }
        let end = section + 1 < sectionStarts.count ? sectionStarts[section + 1] : entries.count
        return end - sectionStarts[section]
    }

    /// The name of `section`.
    public func sectionName(at section: Int) -> String? {
        section >= 0 && section < sectionNames.count ? sectionNames[section] : nil
    }

    func sectionInfo(at index: Int) -> FetchedResultsSectionInfo {
        let start = sectionStarts[index]
        let end = index + 1 < sectionStarts.count ? sectionStarts[index + 1] : entries.count
        let name = sectionNames[index]
        return FetchedResultsSectionInfo(name: name, indexTitle: resolvedIndexTitle(forSectionName: name),
            slice: entries[start..<end])
    }

    /// The object at `indexPath`.
    ///
    /// - Precondition: `indexPath` is inside the results (a programmer error otherwise, as in Core Data).
    public func untypedObject(at indexPath: IndexPath) -> ManagedObject {
        guard let offset = globalIndex(of: indexPath) else {
            preconditionFailure("Index path (section \(indexPath.section), row \(indexPath.row)) is outside the "
                + "\(sectionNames.count) section(s) of the fetched results.")
        }
        return entries[offset].object
    }

    /// The index path of `object`, or nil when it is not in the results.
    public func indexPath(forObject object: ManagedObject) -> IndexPath? {
        guard let offset = position(of: object) else { return nil }
        return indexPath(forGlobalIndex: offset, starts: sectionStarts)
    }

    // MARK: - Index titles

    /// The index title for a section name: by default its first letter, capitalised (Core Data's rule).
    /// Subclasses may override it; the delegate's answer, when it gives one, wins.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        guard let first = sectionName.first else { return nil }
        return String(first).uppercased()
    }

    /// The index titles of all sections, in order and without repeats.
    open var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        return sectionNames.compactMap(resolvedIndexTitle(forSectionName:)).filter { seen.insert($0).inserted }
    }

    /// The section for an index title: the first section with that title (or `index` when none has it).
    open func section(forSectionIndexTitle title: String, at index: Int) -> Int {
        sectionNames.firstIndex { resolvedIndexTitle(forSectionName: $0) == title } ?? index
    }

    func resolvedIndexTitle(forSectionName name: String) -> String? {
        delegate?.controller(self, sectionIndexTitleForSectionName: name) ?? sectionIndexTitle(forSectionName: name)
    }

    // MARK: - Positions

    func makeEntry(_ object: ManagedObject, ordering: RowOrdering) -> ResultsEntry {
        ResultsEntry(object: object, keys: ordering.sortKeys(for: object),
            sectionName: sectionName(of: object))
    }

    /// The section name of an object: its section key's value as text ("" for nil).
    func sectionName(of object: ManagedObject) -> String {
        guard let key = sectionNameKeyPath else { return "" }
        switch object.value(forKey: key) {
        case .null: return ""
        case .string(let text): return text
        case let other: return other.description
        }
    }

    func globalIndex(of indexPath: IndexPath) -> Int? {
        guard indexPath.count == 2, indexPath.section >= 0, indexPath.section < sectionStarts.count,
            indexPath.row >= 0, indexPath.row < numberOfObjects(inSection: indexPath.section)
        else { return nil }
        return sectionStarts[indexPath.section] + indexPath.row
    }

    func indexPath(forGlobalIndex offset: Int, starts: [Int]) -> IndexPath {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return IndexPath(row: offset - starts[low], section: low)
    }

    /// Where `object` is in `entries`: a binary search by the keys it was placed with.
    func position(of object: ManagedObject) -> Int? {
        guard let placed = placedKeys[ObjectIdentifier(object)] else { return nil }
        var low = 0
        var high = entries.count
        while low < high {
            let mid = (low + high) / 2
            let entry = entries[mid]
            if entry.object === object { return mid }
            if ordering.precedes(entry.keys, entry.object.objectID, placed, object.objectID) {
                low = mid + 1
            } else {
                high = mid
            }
        }
        if low < entries.count, entries[low].object === object { return low }
        // The order of an object changed without the controller hearing of it: find it the slow way.
        return entries.firstIndex { $0.object === object }
    }

    var placedKeys: [ObjectIdentifier: [AttributeValue]] = [:]

    /// Section names and start offsets of sorted entries, checking that each section is contiguous.
    static func sections(of entries: [ResultsEntry]) throws(ObjectGraphError) -> ([String], [Int]) {
        var names: [String] = []
        var starts: [Int] = []
        var seen: Set<String> = []
        for (offset, entry) in entries.enumerated() where names.last != entry.sectionName {
            guard seen.insert(entry.sectionName).inserted else {
                throw .sectionsOutOfOrder(index: offset, sectionName: entry.sectionName)
            }
            names.append(entry.sectionName)
            starts.append(offset)
        }
        return (names, starts)
    }
}
