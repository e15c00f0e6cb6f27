import Foundation

extension ManagedObjectModel {
    /// Refuses a predicate that compares an external-storage attribute of `entity` (directly or through to-one
    /// relationships) with anything but nil: stores that keep such values apart from their rows (an SQLite store's
    /// files, a server's `Z_EXTERNALDATA`) hold a reference where the value would be, so they cannot compare the
    /// values (Core Data does not support such predicates either). `avatar == nil` and `avatar != nil` are fine.
    ///
    /// - Parameter reason: why the store cannot, for the error.
    /// - Throws: ``ObjectGraphError/predicate(_:)`` of kind `unsupported`, naming the key.
    func checkExternalDataComparisons(_ predicate: FetchPredicate, on entity: EntityDescription, reason: String)
        throws(ObjectGraphError)
    {
        var refused: (key: String, location: FetchPredicate.SourceLocation?)?
        predicate.node.visitComparisons { comparison in
            guard refused == nil else { return }
            for (side, other) in [(comparison.left, comparison.right), (comparison.right, comparison.left)] {
                guard case .key(let path, let location) = side, endsInExternalAttribute(path, from: entity) else { continue }
                let isNilCheck = (comparison.operation == .equalTo || comparison.operation == .notEqualTo)
                    && other == .value(.null)
                if !isNilCheck { refused = (path, location) }
            }
        }
        guard let refused else { return }
        throw .predicate(FetchPredicateError(kind: .unsupported,
            message: "'\(refused.key)' is stored as external binary data, which predicates can only compare with nil",
            offset: refused.location?.offset, format: refused.location?.format, reason: reason))
    }

    /// Whether `keyPath`, read from `entity` through to-one relationships, ends in an external-storage attribute.
    func endsInExternalAttribute(_ keyPath: String, from start: EntityDescription) -> Bool {
        var entity = start
        let keys = keyPath.split(separator: ".").map(String.init)
        for key in keys.dropLast() {
            guard let relationship = entity.relationship(named: key),
                let destination = self.entity(named: relationship.destinationEntityName)
            else { return false }
            entity = destination
        }
        guard let last = keys.last, let index = entity.attributeIndex(named: last) else { return false }
        return entity.externalBinaryAttributeIndexes.contains(index)
    }
}

extension StoreReplica {
    /// Why a replica refuses to compare external-storage attributes (see ``checkExternalDataComparisons(_:on:)``).
    static let externalComparisonReason =
        "the store keeps such values on its server and reads them on demand; fetch and compare them in memory instead"

    /// Refuses `predicate` when it compares an external-storage attribute of `entity` with anything but nil: the
    /// replica holds a ``StoredValueReference`` where such a value is large, so it cannot compare the values.
    ///
    /// - Throws: ``ObjectGraphError/predicate(_:)`` of kind `unsupported`, naming the key.
    func checkExternalDataComparisons(_ predicate: FetchPredicate?, on entity: EntityDescription)
        throws(ObjectGraphError)
    {
        guard hasExternalBinaryAttributes, let predicate else { return }
        try memory.model.checkExternalDataComparisons(predicate, on: entity, reason: Self.externalComparisonReason)
    }
}
