/// A result's object ID as a controller keeps it: the ID's key plus a small number standing for its
/// entity, store and temporariness (its ``IDNamespaces`` entry). Sixteen bytes with no reference to count,
/// where a ``ManagedObjectID`` holds a reference to count — the controller holds one per result, so this
/// is most of what a million results cost and what every insertion into the index moves.
struct ResultID: Hashable, Sendable {
    /// The ID's ``ManagedObjectID/key``.
    let key: Int64
    /// The ID's namespace in the controller's ``IDNamespaces``.
    let namespace: UInt32

    /// The key and namespace mixed with the table's seed (see ``HashMixing``).
    func _rawHashValue(seed: Int) -> Int { HashMixing.mix(key ^ Int64(namespace) << 48, seed: seed) }
}

/// The (entity, store, temporary or not) combinations of the IDs a controller placed, numbered — a
/// handful per controller (one per entity of the fetch and store it reads, plus temporary IDs).
struct IDNamespaces: Sendable {
    private var namespaces: [ObjectIDNamespace] = []

    /// The compact form of `id`, numbering its namespace the first time one is seen.
    mutating func resultID(for id: ManagedObjectID) -> ResultID {
        if let placed = existingResultID(for: id) { return placed }
        namespaces.append(id.namespace)
        return ResultID(key: id.key, namespace: UInt32(namespaces.count - 1))
    }

    /// The compact form of `id` when its namespace is known (nil means nothing with it was placed).
    func existingResultID(for id: ManagedObjectID) -> ResultID? {
        // A linear search by identity (namespaces are interned): there are few, and most lookups hit the first.
        // An ID read from text may carry a transient namespace of the same names.
        let number = namespaces.firstIndex { $0 === id.namespace } ?? namespaces.firstIndex { $0.names(id.namespace) }
        return number.map { ResultID(key: id.key, namespace: UInt32($0)) }
    }

    /// The compact form of an ID of `entityName` in `storeIdentifier` (a saved one), numbering the
    /// namespace when new: for IDs read without making a ``ManagedObjectID`` (the section cache).
    mutating func namespace(entityName: String, storeIdentifier: String) -> UInt32 {
        let namespace = ObjectIDNamespace.permanent(entityName: entityName, storeIdentifier: storeIdentifier)
        if let number = namespaces.firstIndex(where: { $0 === namespace }) { return UInt32(number) }
        namespaces.append(namespace)
        return UInt32(namespaces.count - 1)
    }

    /// The full ID a compact one stands for.
    func id(for placed: ResultID) -> ManagedObjectID {
        ManagedObjectID(namespace: namespaces[Int(placed.namespace)], key: placed.key)
    }

    /// Whether `placed` stands for a temporary ID.
    func isTemporary(_ placed: ResultID) -> Bool { namespaces[Int(placed.namespace)].isTemporary }

    /// The entity name of the ID `placed` stands for.
    func entityName(of placed: ResultID) -> String { namespaces[Int(placed.namespace)].entityName }

    /// The store identifier of the ID `placed` stands for.
    func storeIdentifier(of placed: ResultID) -> String { namespaces[Int(placed.namespace)].storeIdentifier }
}
