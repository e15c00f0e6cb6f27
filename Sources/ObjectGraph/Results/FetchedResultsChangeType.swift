/// How an object or section changed, with Core Data's raw values (`NSFetchedResultsChangeType`).
public enum FetchedResultsChangeType: Int, Sendable, Hashable, CustomStringConvertible {
    /// It appeared: reported at its index path after the change.
    case insert = 1
    /// It disappeared: reported at its index path before the change.
    case delete = 2
    /// It changed position: reported from its old index path to its new one (no separate update).
    case move = 3
    /// Its values changed in place: reported at its old index path, with its new one alongside.
    case update = 4

    public var description: String {
        switch self {
        case .insert: "insert"
        case .delete: "delete"
        case .move: "move"
        case .update: "update"
        }
    }
}
