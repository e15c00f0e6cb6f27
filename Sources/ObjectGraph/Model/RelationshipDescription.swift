/// What happens to the objects at the other end of a relationship when its source object is deleted,
/// with Core Data's raw values (`NSDeleteRule`).
public enum DeleteRule: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Nothing: the destination keeps a dangling reference, which the app must fix.
    case noAction = 0
    /// The destination's inverse is cleared (the default).
    case nullify = 1
    /// The destination objects are deleted too.
    case cascade = 2
    /// The deletion fails while the relationship is not empty.
    case deny = 3

    /// The spelling Xcode writes in model files: "No Action", "Nullify", "Cascade", "Deny".
    public var description: String {
        switch self {
        case .noAction: "No Action"
        case .nullify: "Nullify"
        case .cascade: "Cascade"
        case .deny: "Deny"
        }
    }

    /// Reads Xcode's spelling (case-insensitive, with or without the space).
    public init?(xcodeName: String) {
        switch xcodeName.lowercased().replacingOccurrences(of: " ", with: "") {
        case "noaction": self = .noAction
        case "nullify": self = .nullify
        case "cascade": self = .cascade
        case "deny": self = .deny
        default: return nil
        }
    }
}

/// One relationship of an entity: the counterpart of Core Data's `NSRelationshipDescription`.
///
/// Relationships are declared here and validated with the model (destinations and inverses must exist and
/// point back); following them in the object graph comes with the relationships issue.
public struct RelationshipDescription: Sendable, Hashable, CustomStringConvertible {
    /// The relationship's name, used as its key (`"company"`).
    public var name: String
    /// The name of the entity it points to.
    public var destinationEntityName: String
    /// The name of the relationship on the destination that points back, if any.
    public var inverseName: String?
    /// Whether it holds many objects (a set, or an ordered set when ``isOrdered``).
    public var isToMany: Bool
    /// Whether a to-many relationship keeps its objects in order.
    public var isOrdered: Bool
    /// What deleting the source does to the destination.
    public var deleteRule: DeleteRule
    /// Whether it may be empty when its object is saved.
    public var isOptional: Bool
    /// Whether it lives only in memory.
    public var isTransient: Bool
    /// The fewest objects a to-many relationship may hold (0 for no minimum).
    public var minCount: Int
    /// The most objects it may hold (0 for no maximum; 1 for to-one).
    public var maxCount: Int
    /// The name this relationship had in an earlier model version, for migration.
    public var renamingIdentifier: String?
    /// Extra text mixed into the version hash to force a new version.
    public var versionHashModifier: String?
    /// Free-form key-value pairs from the model file.
    public var userInfo: [String: String]

    /// Creates a relationship; by default an optional, nullifying to-one.
    public init(
        name: String, destination: String, inverse: String? = nil, isToMany: Bool = false, isOrdered: Bool = false,
        deleteRule: DeleteRule = .nullify, isOptional: Bool = true, isTransient: Bool = false, minCount: Int = 0,
        maxCount: Int? = nil, renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.destinationEntityName = destination
        self.inverseName = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.minCount = minCount
        self.maxCount = maxCount ?? (isToMany ? 0 : 1)
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }

    public var description: String {
        "\(name) → \(isToMany ? "[\(destinationEntityName)]" : destinationEntityName)"
            + (inverseName.map { " (inverse \($0))" } ?? "") + " \(deleteRule)"
    }
}
