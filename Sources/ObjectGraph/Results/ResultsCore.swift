/// The results of a fetched-results controller as a value: the entries in order (``ResultsIndex``), their
/// sections as runs, and the order bytes each was placed at, by ID.
///
/// ``apply(_:reporting:resolve:)`` takes one change batch — what leaves, what arrives, what is re-placed
/// and what changed in place, decided by the controller from its context's objects and events — moves the
/// entries, and classifies every change by UIKit's rules (deletions and updates at index paths before the
/// batch, insertions after it, moves both; a re-placed result that keeps its place is an update; never a
/// move to its own index path). It knows nothing of contexts or objects: each change carries the subject
/// the batch gave it (the controller's objects; any value in tests).
struct ResultsCore {
    /// The forms the results take, one at a time.
    enum Form {
        /// In ``index``, with their places: tracked (the usual form).
        case indexed
        /// Their IDs in order, nothing more (fetched with nothing tracking them); ``index`` is empty.
        case untracked([ResultID])
        /// From a section cache whose body is still being read on another thread: its head, and the read;
        /// ``index`` is empty until the body joins it.
        case readingCache(PendingCachedResults)
    }

    /// Which form the results are in.
    var form = Form.indexed
    /// Whether the results come from a section cache still being read (a check without copying its head).
    var isReadingCache: Bool {
        if case .readingCache = form { return true }
        return false
    }
    /// The results in order (in the ``Form/indexed`` form).
    var index = ResultsIndex()
    /// Where each section's results start and how many there are.
    var runs = SectionRuns()
    /// The order bytes of every result by the ID it was placed under; nil until first needed (results read
    /// from a section cache build it on demand, see ``builtOrderBytesByID()``).
    var orderBytesByID: OrderBytesByID?

    /// ``orderBytesByID``, built from the index the first time it is needed.
    mutating func builtOrderBytesByID() -> OrderBytesByID {
        if let orders = orderBytesByID { return orders }
        let orders = OrderBytesByID(placing: index.chunks.lazy.flatMap(\.entries), count: index.count)
        orderBytesByID = orders
        return orders
    }

    /// Applies `batch`; returns what changed, in the batch's terms (nil when the batch holds nothing). Without
    /// `reporting` (results nobody has seen yet) the entries move but no change list is made. `resolve` names
    /// the subject of a result the batch did not mention, which must move out of a mover's way (see
    /// ``avoidingSamePathMoves(_:oldRuns:oldCount:resolve:)``).
    ///
    /// Cost: O(k log n) for k changes among n results (plus n / 32 to refresh chunk offsets).
    mutating func apply<Subject>(
        _ batch: ResultsBatch<Subject>, reporting: Bool, resolve: (ResultID) -> Subject?
    ) -> ResultsChange<Subject>? {
        guard !batch.isEmpty else { return nil }
        var orders = builtOrderBytesByID()
        orderBytesByID = nil
        defer { orderBytesByID = orders }
        let (removed, added, replaced, updatedInPlace) = (batch.removed, batch.added, batch.replaced,
            batch.updatedInPlace)

        // Where everything was, before anything moves.
        let oldRuns = runs
        let oldCount = index.count

        // Take the leavers out and put the arrivals in.
        var leavingOldIndexes: [Int] = []
        leavingOldIndexes.reserveCapacity(removed.count + replaced.count)
        for leaving in removed {
            leavingOldIndexes.append(leaving.oldIndex)
            runs.removeOne(from: leaving.section)
            orders[leaving.placed] = nil
        }
        for replacement in replaced {
            leavingOldIndexes.append(replacement.leaving.oldIndex)
            runs.removeOne(from: replacement.leaving.section)
            orders[replacement.leaving.placed] = nil
        }
        index.remove(atPositions: leavingOldIndexes)
        // In order, so that one search per arrival places it and gives its final position. An arrival's `origin`
        // numbers the new results first, then the re-placed ones.
        let arrivals = added.map { $0.entry } + replaced.map { $0.entry }
        let arrivalOrder = Self.sortedByOrder(arrivals)
        let arrivingNewIndexes = index.insert(sorted: arrivalOrder.map { arrivals[$0] })
        var newIndexes = [Int](repeating: 0, count: arrivals.count)
        var newSectionArrivals: [(entry: ResultsEntry, position: Int)] = []
        for (origin, position) in zip(arrivalOrder, arrivingNewIndexes) {
            let entry = arrivals[origin]
            newIndexes[origin] = position
            orders[entry.placed] = entry.order
            if runs.hasRepeats || !runs.addOne(to: entry.section) { newSectionArrivals.append((entry, position)) }
        }
        updateSections(newSectionArrivals: newSectionArrivals,
            arrivals: zip(arrivalOrder, arrivingNewIndexes).map { (arrivals[$0].section, $1) })
        orders.growOneShardAhead()
        guard reporting else { return ResultsChange(oldRuns: oldRuns, oldCount: oldCount, changes: []) }

        // Where everything is now, and how each change is reported.
        var changes: [ResultsRowChange<Subject>] = []
        changes.reserveCapacity(removed.count + arrivals.count + updatedInPlace.count)
        var scratchRuns = oldRuns
        func oldPath(_ offset: Int) -> RowPath {
            let (section, row) = scratchRuns.locate(offset)
            return RowPath(section: section, row: row)
        }
        for leaving in removed {
            changes.append(ResultsRowChange(object: leaving.subject, type: .delete, oldID: leaving.placed,
                oldIndex: leaving.oldIndex, oldPath: oldPath(leaving.oldIndex)))
        }
        for (number, arrival) in added.enumerated() {
            let offset = newIndexes[number]
            changes.append(ResultsRowChange(object: arrival.subject, type: .insert, newID: arrival.entry.placed,
                newIndex: offset, newPath: rowPath(forGlobalIndex: offset)))
        }
        // (The re-placed results' new positions follow the new ones' in `newIndexes`.)
        let replacedNewIndexes = newIndexes[added.count...]
        let sortedLeavingOldIndexes = leavingOldIndexes.sorted()
        let inPlace = Self.replacedKeepingTheirPlace(
            zip(replaced, replacedNewIndexes).map { place, newIndex in
                (place.leaving.oldIndex, newIndex, place.leaving.section == place.entry.section)
            },
            leavingOldIndexes: sortedLeavingOldIndexes,
            arrivingNewIndexes: arrivingNewIndexes)
        for (offset, (place, newIndex)) in zip(replaced, replacedNewIndexes).enumerated() {
            changes.append(ResultsRowChange(object: place.leaving.subject,
                type: inPlace.contains(offset) ? .update : .move, oldID: place.leaving.placed,
                newID: place.entry.placed,
                oldIndex: place.leaving.oldIndex, newIndex: newIndex, oldPath: oldPath(place.leaving.oldIndex),
                newPath: rowPath(forGlobalIndex: newIndex), identityOnly: place.identityOnly))
        }
        // Objects that neither left nor arrived keep their rank among such objects: the k-th of them now sits
        // after the arrivals whose own rank among them (position minus the arrivals before) is at most k.
        let arrivalRanks = arrivingNewIndexes.enumerated().map { $1 - $0 }
        for leaving in updatedInPlace {
            let rank = leaving.oldIndex - sortedLeavingOldIndexes.countBelow(leaving.oldIndex)
            let offset = rank + arrivalRanks.countBelow(rank + 1)
            changes.append(ResultsRowChange(object: leaving.subject, type: .update, oldID: leaving.placed,
                newID: leaving.placed, oldIndex: leaving.oldIndex, newIndex: offset,
                oldPath: oldPath(leaving.oldIndex), newPath: rowPath(forGlobalIndex: offset)))
        }
        changes = avoidingSamePathMoves(changes, oldRuns: oldRuns, oldCount: oldCount, resolve: resolve)
        return ResultsChange(oldRuns: oldRuns, oldCount: oldCount, changes: changes)
    }

    /// The index path of the result at `offset` (0 ..< count) as two integers.
    mutating func rowPath(forGlobalIndex offset: Int) -> RowPath {
        let (section, row) = runs.locate(offset)
        return RowPath(section: section, row: row)
    }

    /// The offsets of `entries` in order of their order bytes. Sorts plain integers — each entry's first
    /// sixteen order bytes as two words, and its offset — and compares whole order bytes only where those
    /// words tie, instead of moving entries and counting references to their bytes in every comparison.
    static func sortedByOrder(_ entries: [ResultsEntry]) -> [Int] {
        var keys = entries.enumerated().map { offset, entry in
            let words = ResultsIndex.leadingWords(of: entry.order)
            return (first: words.0, second: words.1, offset: offset)
        }
        keys.sort { left, right in
            if (left.first, left.second) != (right.first, right.second) {
                return (left.first, left.second) < (right.first, right.second)
            }
            return RowOrdering.compare(entries[left.offset].order, entries[right.offset].order) < 0
        }
        return keys.map(\.offset)
    }

    /// Updates the section runs after a batch's entries moved: counts were adjusted one by one; new
    /// sections get runs beside their neighbours; a split section (an order that does not group sections)
    /// falls back to rebuilding the runs from the entries.
    private mutating func updateSections(
        newSectionArrivals: [(entry: ResultsEntry, position: Int)], arrivals: [(section: Int32, position: Int)]
    ) {
        if runs.hasRepeats {
            runs = SectionRuns(of: index.allEntries)
            return
        }
        // Each new section, at the position of its first object, after the section before that object.
        var firstPositions: [Int32: (position: Int, count: Int)] = [:]
        for (entry, position) in newSectionArrivals {
            let known = firstPositions[entry.section]
            firstPositions[entry.section] = (min(known?.position ?? position, position), (known?.count ?? 0) + 1)
        }
        for (section, place) in firstPositions.sorted(by: { $0.value.position < $1.value.position }) {
            let previous = place.position == 0 ? -1 : (runs.run(of: index[place.position - 1].section) ?? -1)
            runs.insertRun(section, count: place.count, after: previous)
        }
        runs.removeEmptyRuns()
        // Every arrival must now sit in its own section's run; otherwise the order split a section.
        for (section, position) in arrivals {
            let (run, _) = runs.locate(position)
            if runs.sections[run] != section {
                runs = SectionRuns(of: index.allEntries)
                return
            }
        }
    }
}

/// One change batch as ``ResultsCore/apply(_:reporting:resolve:)`` takes it: results located at their old
/// positions, and the entries of those that arrive. Each result appears once.
struct ResultsBatch<Subject> {
    /// A result that leaves its place: the ID it was placed under, its section and its position.
    struct Leaving {
        let subject: Subject
        let placed: ResultID
        let section: Int32
        var oldIndex = 0
    }

    /// A new result with its entry. (A struct, not a tuple: arrays of tuples holding references are copied
    /// and destroyed through the run time's generic tuple code, several times slower.)
    struct Arrival {
        let subject: Subject
        let entry: ResultsEntry
    }

    /// A result re-placed: where it left and the entry it arrives with.
    struct Replacement {
        let leaving: Leaving
        let entry: ResultsEntry
        /// Re-placed only because its ID changed (see ``ResultsRowChange/identityOnly``).
        var identityOnly = false
    }

    /// Results that leave (deleted, or no longer matching).
    var removed: [Leaving] = []
    /// Results that arrive.
    var added: [Arrival] = []
    /// Results placed anew: their keys or ID changed.
    var replaced: [Replacement] = []
    /// Results that changed and keep their place.
    var updatedInPlace: [Leaving] = []

    var isEmpty: Bool { removed.isEmpty && added.isEmpty && replaced.isEmpty && updatedInPlace.isEmpty }
}

/// What one batch changed: the runs and count before it, and every change in the batch's terms (empty when
/// the batch was applied without reporting).
struct ResultsChange<Subject> {
    let oldRuns: SectionRuns
    let oldCount: Int
    let changes: [ResultsRowChange<Subject>]
}
