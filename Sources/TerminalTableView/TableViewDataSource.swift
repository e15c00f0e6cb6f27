import Foundation
import SectionedChanges

/// Supplies a ``TableView``'s content, as `UITableViewDataSource` does: counts, cells, header texts
/// and the section index.
///
/// The table asks for counts when it reloads and at the end of each batch of updates, and for cells,
/// header texts and index titles only for what it draws, so a data source can serve sections of any
/// size. Only `tableView(_:numberOfRowsInSection:)` and `tableView(_:cellForRowAt:)` are required.
@MainActor
public protocol TableViewDataSource: AnyObject {
    /// The number of sections (default 1).
    func numberOfSections(in tableView: TableView) -> Int

    /// The number of rows in `section`.
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int

    /// The content of the row at `indexPath`.
    func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell

    /// The title drawn in the header line of `section`; nil (the default) for a section without a
    /// header line. Read when the table reloads and after each batch.
    func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String?

    /// Text drawn at the right end of the header line of `section`, for example its row count
    /// (default nil). Read only for headers on screen.
    func tableView(_ tableView: TableView, detailForHeaderInSection section: Int) -> String?

    /// The titles of the section index drawn down the right edge, for example the letters A–Z; nil (the
    /// default) for no index.
    func sectionIndexTitles(for tableView: TableView) -> [String]?

    /// The section to show for the index title `title`, which is at position `index` of the titles.
    /// The default is `index`, right when there is one title per section.
    func tableView(_ tableView: TableView, sectionForSectionIndexTitle title: String, at index: Int) -> Int
}

extension TableViewDataSource {
    public func numberOfSections(in tableView: TableView) -> Int { 1 }

    public func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? { nil }

    public func tableView(_ tableView: TableView, detailForHeaderInSection section: Int) -> String? { nil }

    public func sectionIndexTitles(for tableView: TableView) -> [String]? { nil }

    public func tableView(_ tableView: TableView, sectionForSectionIndexTitle title: String, at index: Int) -> Int {
        index
    }
}
