import Foundation

/// A background fetch in flight: what it was asked for, and the objects that changed in the context while it
/// ran, each once, with whether its last change deleted it. Confined to the context's queue.
final class BackgroundFetch {
    let ticket = FetchTicket()
    /// What the fetch decided (its request among it); the results follow it once they are in place.
    let plan: FetchPlan
    /// The request fetched.
    var request: FetchRequest<ManagedObject> { plan.request }
    let completion: (Result<Void, ObjectGraphError>) -> Void
    /// Objects with unsaved changes when the fetch started: their rows are left out of it.
    let pendingAtStart: [ManagedObject]
    var observation: ObservationToken?
    /// The changed objects in the order first noted, with whether the last change noted deleted them.
    private(set) var noted: [(object: ManagedObject, deleted: Bool)] = []
    private var slotByIdentity: [ObjectIdentifier: Int] = [:]
    /// Slots by saved ID: a merge may stand for one row with several objects (one it brought in and let go,
    /// then a stand-in for its deletion), and the last one speaks for the row.
    private var slotByID: [ManagedObjectID: Int] = [:]

    init(
        plan: FetchPlan,
        completion: @escaping (Result<Void, ObjectGraphError>) -> Void, pendingAtStart: [ManagedObject]
    ) {
        self.plan = plan
        self.completion = completion
        self.pendingAtStart = pendingAtStart
    }

    /// Notes that `object` changed; `deleted` says whether this change deleted it.
    func note(_ object: ManagedObject, deleted: Bool) {
        let id = object.objectID
        let slot = slotByIdentity[ObjectIdentifier(object)] ?? (id.isTemporaryID ? nil : slotByID[id])
        if let slot {
            slotByIdentity[ObjectIdentifier(noted[slot].object)] = nil
            noted[slot] = (object, deleted)
            slotByIdentity[ObjectIdentifier(object)] = slot
        } else {
            slotByIdentity[ObjectIdentifier(object)] = noted.count
            noted.append((object, deleted))
        }
        if !id.isTemporaryID { slotByID[id] = slotByIdentity[ObjectIdentifier(object)] }
    }

    /// Whether a change of `object` (or of another object standing for its row) was noted.
    func hasNoted(_ object: ManagedObject) -> Bool {
        slotByIdentity[ObjectIdentifier(object)] != nil || (!object.objectID.isTemporaryID && slotByID[object.objectID] != nil)
    }
}

/// Whether a background fetch was cancelled: set on the context's queue, read by the fetching thread between
/// rows, so that a superseded fetch stops reading.
final class FetchTicket: Sendable {
    private let cancelled = Locked(false)

    var isCancelled: Bool { cancelled.withLock { $0 } }

    func cancel() { cancelled.withLock { $0 = true } }
}

/// The ticket of the background fetch running on this thread, if any: the SQLite store stops the fetch's query
/// when it is cancelled (``SQLiteConnection/interruptible(every:stopWhen:_:)``), rather than reading to its end.
enum FetchCancellation {
    @TaskLocal static var ticket: FetchTicket?
}
