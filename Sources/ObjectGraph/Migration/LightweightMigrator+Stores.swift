import Foundation

/// One inferred step of a lightweight migration, for a store type that carries it out in its own storage (the
/// PostgreSQL store): the same inference the SQLite store's migration uses (``LightweightMigrator``), without
/// the SQLite part.
@_spi(StoreImplementation)
public struct InferredMigrationStep: Sendable {
    /// The model the store is in before the step.
    public let source: ManagedObjectModel
    /// The model the store is in after the step.
    public let destination: ManagedObjectModel
    /// Destination entity name → source entity name, for entities that existed.
    public let entitySource: [String: String]
    /// Destination entity name → destination attribute name → source attribute name (inherited ones included).
    public let attributeSource: [String: [String: String]]
    /// Destination entity name → destination relationship name → source relationship name.
    public let relationshipSource: [String: [String: String]]
    /// What the step changes.
    public let changes: [MigrationChange]
}

extension LightweightMigrator {
    /// The steps migrating a store whose metadata holds `storeHashes` takes, inferred as for an SQLite store: the
    /// store's version is the last of the bundle with those hashes. `path` names the store in errors and in the
    /// plan.
    ///
    /// - Throws: ``ObjectGraphError/incompatibleModel(path:entities:reason:)`` when no version has the hashes,
    ///   ``ObjectGraphError/migrationNotInferable(path:from:to:change:reason:)`` for a change that cannot be
    ///   inferred.
    @_spi(StoreImplementation)
    public func inferredSteps(storeHashes: [String: Data], path: String) throws(ObjectGraphError)
        -> (plan: MigrationPlan, steps: [InferredMigrationStep])
    {
        let (plan, mappings) = try inferredChain(storeHashes: storeHashes, entityNumbers: [:], path: path,
            schemaDescribed: false) { versions in versions.lastIndex { $0.entityVersionHashes == storeHashes } }
        return (plan, mappings.map {
            InferredMigrationStep(source: $0.source, destination: $0.destination, entitySource: $0.entitySource,
                attributeSource: $0.attributeSource, relationshipSource: $0.relationshipSource, changes: $0.changes)
        })
    }
}
