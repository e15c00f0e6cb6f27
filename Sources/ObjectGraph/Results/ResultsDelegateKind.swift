/// How a controller's delegate hears of change batches: which adapter each ``ResultsReport`` goes to. Decided
/// from the delegate's protocols, in this precedence: a snapshot delegate, then (on results without sections)
/// a difference delegate, then a changeset delegate, else the classic per-change calls.
enum ResultsDelegateKind {
    /// ``FetchedResultsControllerSnapshotDelegate``: a whole snapshot per batch.
    case snapshot
    /// ``FetchedResultsControllerDifferenceDelegate`` on results without sections: a `CollectionDifference`.
    case difference
    /// ``FetchedResultsControllerChangesetDelegate``: one `SectionedChangeset` per batch.
    case changeset
    /// ``FetchedResultsControllerDelegate``'s will-change, per-section and per-object calls, did-change.
    case calls

    init(_ delegate: any FetchedResultsControllerDelegate, sectioned: Bool) {
        if delegate is any FetchedResultsControllerSnapshotDelegate {
            self = .snapshot
        } else if !sectioned, delegate is any FetchedResultsControllerDifferenceDelegate {
            self = .difference
        } else if delegate is any FetchedResultsControllerChangesetDelegate {
            self = .changeset
        } else {
            self = .calls
        }
    }

    /// Whether this delegate knows results by ID, so that a result's new ID (temporary to permanent) is a
    /// change it must hear of even where the result's row stays.
    var knowsResultsByID: Bool {
        switch self {
        case .snapshot, .difference: true
        case .changeset, .calls: false
        }
    }
}
