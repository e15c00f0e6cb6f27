/// One change that lightweight migration carries out between two model versions, as inferred from the
/// models (names, `renamingIdentifier`s, types, optionality, relationships and indexes).
///
/// A dry run (`objectgraph migrate --dry-run`, ``LightweightMigrator/plan(storeAt:)``) lists these without
/// touching the store.
public enum MigrationChange: Sendable, Hashable, CustomStringConvertible {
    /// A new entity: an empty table (or columns in its root's table), a new `Z_PRIMARYKEY` number.
    case entityAdded(String)
    /// An entity left the model: its rows (and join rows) are deleted.
    case entityRemoved(String)
    /// An entity renamed through its `renamingIdentifier`: rows, number and relationships keep.
    case entityRenamed(from: String, to: String)
    /// A new stored attribute: existing rows get its default value (or nil when it is optional without one).
    case attributeAdded(entity: String, attribute: String, defaultValue: AttributeValue)
    /// A stored attribute left the entity: its column is dropped.
    case attributeRemoved(entity: String, attribute: String)
    /// An attribute renamed through its `renamingIdentifier`: its values move to the new column.
    case attributeRenamed(entity: String, from: String, to: String)
    /// A numeric type widened (Integer 16 → 32 → 64, Float → Double): values are kept as they are.
    case attributeWidened(entity: String, attribute: String, from: AttributeType, to: AttributeType)
    /// A required attribute became optional.
    case attributeMadeOptional(entity: String, attribute: String)
    /// An optional attribute became required: rows without a value get its default.
    case attributeMadeRequired(entity: String, attribute: String, defaultValue: AttributeValue)
    /// A new stored relationship (empty, unless its inverse existed and its links are carried over).
    case relationshipAdded(entity: String, relationship: String)
    /// A stored relationship left the entity: its column or join table goes.
    case relationshipRemoved(entity: String, relationship: String)
    /// A relationship renamed through its `renamingIdentifier`: its links are kept.
    case relationshipRenamed(entity: String, from: String, to: String)
    /// A to-one relationship became to-many (`toMany` true) or the reverse; links move between foreign-key
    /// columns and join tables. A to-many relationship that becomes to-one keeps, of several links, the one to
    /// the destination with the lowest primary key.
    case relationshipCardinalityChanged(entity: String, relationship: String, toMany: Bool)
    /// A to-many relationship became ordered or unordered (new orders follow primary keys).
    case relationshipOrderingChanged(entity: String, relationship: String, ordered: Bool)
    /// A fetch index or uniqueness constraint was added.
    case indexAdded(entity: String, index: String)
    /// A fetch index or uniqueness constraint was removed.
    case indexRemoved(entity: String, index: String)

    /// One line for reports: `attribute added: Person.birthday (default nil)`.
    public var description: String {
        switch self {
        case .entityAdded(let name): "entity added: \(name)"
        case .entityRemoved(let name): "entity removed: \(name) (its rows are deleted)"
        case let .entityRenamed(from, to): "entity renamed: \(from) → \(to)"
        case let .attributeAdded(entity, attribute, value):
            "attribute added: \(entity).\(attribute) (existing rows get \(value.isNull ? "nil" : value.description))"
        case let .attributeRemoved(entity, attribute): "attribute removed: \(entity).\(attribute)"
        case let .attributeRenamed(entity, from, to): "attribute renamed: \(entity).\(from) → \(to)"
        case let .attributeWidened(entity, attribute, from, to): "attribute widened: \(entity).\(attribute) \(from) → \(to)"
        case let .attributeMadeOptional(entity, attribute): "attribute made optional: \(entity).\(attribute)"
        case let .attributeMadeRequired(entity, attribute, value):
            "attribute made required: \(entity).\(attribute) (rows without a value get \(value))"
        case let .relationshipAdded(entity, relationship): "relationship added: \(entity).\(relationship)"
        case let .relationshipRemoved(entity, relationship): "relationship removed: \(entity).\(relationship)"
        case let .relationshipRenamed(entity, from, to): "relationship renamed: \(entity).\(from) → \(to)"
        case let .relationshipCardinalityChanged(entity, relationship, toMany):
            "relationship made \(toMany ? "to-many" : "to-one"): \(entity).\(relationship)"
        case let .relationshipOrderingChanged(entity, relationship, ordered):
            "relationship made \(ordered ? "ordered" : "unordered"): \(entity).\(relationship)"
        case let .indexAdded(entity, index): "index added: \(entity).\(index)"
        case let .indexRemoved(entity, index): "index removed: \(entity).\(index)"
        }
    }
}

/// One step of a migration: from one model version to the next, with the changes it makes.
public struct MigrationStep: Sendable, Hashable, CustomStringConvertible {
    /// The model version the store is in before the step.
    public let sourceVersion: String
    /// The model version the store is in after the step.
    public let destinationVersion: String
    /// What the step changes, entities first.
    public let changes: [MigrationChange]

    /// `People → People 2:` then one indented line per change.
    public var description: String {
        (["\(sourceVersion) → \(destinationVersion):"] + changes.map { "  \($0)" }).joined(separator: "\n")
    }
}

/// What migrating a store takes: the store's version, and the steps (one per model version after it, up to
/// the destination), run in order in one SQLite transaction.
public struct MigrationPlan: Sendable, Hashable, CustomStringConvertible {
    /// The store file.
    public let storePath: String
    /// The name of the model version the store was written with.
    public let sourceVersion: String
    /// The name of the model version the store is migrated to.
    public let destinationVersion: String
    /// The steps, oldest first; empty when the store already fits the destination model.
    public let steps: [MigrationStep]

    /// Whether nothing needs to change.
    public var isEmpty: Bool { steps.isEmpty }

    /// Every step's report, or a line saying the store is up to date.
    public var description: String {
        steps.isEmpty ? "\(storePath) is already at model version \(destinationVersion)."
            : steps.map(\.description).joined(separator: "\n")
    }
}
