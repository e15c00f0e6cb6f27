import Foundation

/// UIKit's `row`/`section` view of a two-element `IndexPath`.
///
/// Foundation on Linux ships `IndexPath` without these accessors. This is the only place in the
/// project that adds them, so the framework, the table view and the app all agree on one definition
/// (two public copies would make every call in a module that imports both ambiguous).
extension IndexPath {
    /// Creates an index path that names `row` within `section`.
    public init(row: Int, section: Int) {
        // One index, then an append: the two indexes stay inline in the path, where an array literal would be
        // allocated and freed (about 300 instructions per path, and a controller makes two per change).
        self.init(index: section)
        append(row)
    }

    /// The section of a two-element index path (its first index).
    public var section: Int { self[0] }

    /// The row of a two-element index path (its second index).
    public var row: Int { self[1] }
}
