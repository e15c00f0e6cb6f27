import Foundation
import SectionedChanges

/// Hears about the user's actions in a ``TableView``; every method is optional.
@MainActor
public protocol TableViewDelegate: AnyObject {
    /// The selection moved to another row (or to none): by a key, by `selectRow(at:)`, by a reload,
    /// or because the selected row was deleted. Not called when a batch only shifts the selected row's
    /// index path while it stays on the same item.
    func tableViewSelectionDidChange(_ tableView: TableView)

    /// The user pressed Enter on the row at `indexPath`.
    func tableView(_ tableView: TableView, didActivateRowAt indexPath: IndexPath)
}

extension TableViewDelegate {
    public func tableViewSelectionDidChange(_ tableView: TableView) {}

    public func tableView(_ tableView: TableView, didActivateRowAt indexPath: IndexPath) {}
}
