import Foundation
import ObjectGraph
import TerminalTableView

/// The detail view `Enter` opens: every attribute of one person, read live, so that a change saved
/// elsewhere shows at the next frame.
enum PersonDetailView {
    /// Labels for the model's attributes; attributes missing here are shown by their key.
    static let labels: [String: String] = [
        "firstName": "First name", "lastName": "Last name", "nickname": "Nickname", "email": "Email",
        "phoneNumber": "Phone", "city": "City", "age": "Age", "createdAt": "Created", "birthday": "Birthday", "avatar": "Avatar",
    ]
    /// The order attributes are listed in; others follow alphabetically.
    static let order = ["firstName", "lastName", "nickname", "email", "phoneNumber", "city", "birthday", "age", "createdAt", "avatar"]

    /// The lines of the view: (label, value) pairs.
    @MainActor
    static func lines(for person: Person, sectionMode: PeopleSectionMode) -> [(label: String, value: String)] {
        guard !person.isDeleted, person.managedObjectContext != nil else {
            return [("", "This person was deleted.")]
        }
        let stored = person.entity.attributes.filter { !$0.isTransient && $0.userInfo["derivedFrom"] == nil }
        let keys = order.filter { key in stored.contains { $0.name == key } }
            + stored.map(\.name).filter { !order.contains($0) }.sorted()
        var lines = keys.map { key in
            // A value kept in a file beside the store is shown by its size, without reading the file.
            if let size = person.externalDataSize(forKey: key) { return (labels[key] ?? key, dataSize(size) + " (external)") }
            return (labels[key] ?? key, text(for: person.value(forKey: key)))
        }
        lines.append(("Company", person.company.map { $0.name.isEmpty ? "—" : $0.name } ?? "—"))
        let tags = person.tags.map(\.name).sorted { StringFolding.folded($0) < StringFolding.folded($1) }
        lines.append(("Tags", tags.isEmpty ? "—" : tags.joined(separator: ", ")))
        lines.append(("Section", "\(person.value(forKey: sectionMode.sectionKey).stringValue ?? "") (\(sectionMode.title))"))
        lines.append(("Object ID", person.objectID.description))
        return lines
    }

    /// A value as the detail view shows it: `—` for no value, dates in UTC, data by size (see ``dataSize(_:)``).
    static func text(for value: AttributeValue) -> String {
        switch value {
        case .null: return "—"
        case .string(let text): return text.isEmpty ? "—" : text
        case .integer(let number): return String(number)
        case .boolean(let flag): return flag ? "yes" : "no"
        case .date(let date):
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate, .withSpaceBetweenDateAndTime, .withTime, .withColonSeparatorInTime]
            return formatter.string(from: date) + " UTC"
        case .binary(let data): return dataSize(data.count)
        case let other: return other.description
        }
    }

    /// A size in bytes as the view shows it: `812 bytes`, `14 KB`, `142 KB` (1 KB = 1,024 bytes).
    static func dataSize(_ bytes: Int) -> String {
        bytes < 1_024 ? "\(NumberText.grouped(bytes)) bytes" : "\(NumberText.grouped((bytes + 512) / 1_024)) KB"
    }

    /// Draws the view of `person` in `rect`.
    @MainActor
    static func draw(_ person: Person, sectionMode: PeopleSectionMode, into buffer: inout ScreenBuffer, in rect: TerminalRect) {
        guard rect.width >= 4, rect.height >= 3 else { return }
        let title = person.isDeleted ? "Deleted person" : person.displayName
        OverlayBox.draw(title: title, into: &buffer, in: rect)
        let inner = rect.width - 4
        let labelWidth = 12
        var y = rect.y + 1
        for (label, value) in lines(for: person, sectionMode: sectionMode) where y < rect.maxY - 2 {
            buffer.write(label, at: rect.x + 2, row: y, style: .bold, maxWidth: min(labelWidth, inner))
            if inner > labelWidth {
                let shown = DisplayWidth.of(value) > inner - labelWidth
                    ? String(DisplayWidth.prefix(of: value, fitting: inner - labelWidth - 1).text) + "…" : value
                buffer.write(shown, at: rect.x + 2 + labelWidth, row: y, maxWidth: inner - labelWidth)
            }
            y += 1
        }
        buffer.write("Esc/q back · e edit · d delete", at: rect.x + 2, row: rect.maxY - 2, style: .dim, maxWidth: inner)
    }
}
