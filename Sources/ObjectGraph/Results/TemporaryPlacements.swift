/// The results a controller placed under a temporary ID (objects not saved yet), findable by object and
/// by that ID: saving gives such objects permanent IDs, and the controller must still find them.
struct TemporaryPlacements {
    private(set) var byObject: [ObjectIdentifier: (object: ManagedObject, id: ManagedObjectID)] = [:]
    private var byID: [ManagedObjectID: ManagedObject] = [:]

    var isEmpty: Bool { byObject.isEmpty }

    subscript(key: ObjectIdentifier) -> (object: ManagedObject, id: ManagedObjectID)? {
        get { byObject[key] }
        set {
            if let old = byObject[key] { byID[old.id] = nil }
            byObject[key] = newValue
            if let newValue { byID[newValue.id] = newValue.object }
        }
    }

    /// The object placed under temporary ID `id`.
    func object(for id: ManagedObjectID) -> ManagedObject? { byID[id] }
}
