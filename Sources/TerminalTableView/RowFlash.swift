/// Why a row is briefly highlighted: the terminal's answer to UIKit's row animations.
public enum RowFlash: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The row (or its section) was inserted.
    case inserted
    /// The row (or its section) was reloaded because its content changed.
    case updated
    /// The row moved to a new position.
    case moved

    public var description: String {
        switch self {
        case .inserted: "inserted"
        case .updated: "updated"
        case .moved: "moved"
        }
    }
}
