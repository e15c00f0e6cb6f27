import Foundation
import ObjectGraph
import TerminalTableView

/// The small form behind `n` (new person) and `e` (edit): one line per attribute, errors shown under the
/// field they belong to.
///
/// Keys: type to edit the focused field, Tab or ↓ for the next field, ↑ for the previous one, Enter to
/// save, Esc to cancel. The form only holds text; turning it into values and saving is the app's job
/// (``values()`` converts, the managed object validates), and errors come back through ``setErrors(_:)``.
public struct PersonForm: Sendable {
    /// One field.
    public struct Field: Sendable, Hashable {
        /// The attribute.
        public var key: String
        /// What the form calls it.
        public var label: String
        /// The text being edited.
        public var editor: LineEditor
        /// Why the last save did not accept it.
        public var error: String?
    }

    /// What a key did to the form.
    public enum Action: Sendable, Hashable {
        /// Nothing that concerns the app.
        case none
        /// The user asked to save.
        case submit
        /// The user asked to leave without saving.
        case cancel
    }

    /// The form's title: `New person` or `Edit Lovelace, Ada`.
    public var title: String
    /// The fields, top to bottom.
    public var fields: [Field]
    /// The focused field.
    public var focus = 0
    /// An error that belongs to no single field (a failed save, say).
    public var generalError: String?

    /// The attributes the form edits, with their labels.
    public static let layout: [(key: String, label: String)] = [
        ("firstName", "First name"), ("lastName", "Last name"), ("email", "Email"), ("city", "City"),
        ("age", "Age"), ("phoneNumber", "Phone"), ("nickname", "Nickname"),
    ]
    /// Fields whose empty text means no value (the model's optional attributes).
    public static let optionalKeys: Set<String> = ["phoneNumber", "nickname"]

    /// An empty form for a new person.
    public init() {
        title = "New person"
        fields = Self.layout.map { Field(key: $0.key, label: $0.label, editor: LineEditor()) }
    }

    /// A form holding `person`'s values.
    public init(editing person: Person) {
        title = "Edit \(person.displayName)"
        fields = Self.layout.map { key, label in
            let text: String
            switch person.value(forKey: key) {
            case .string(let value): text = value
            case .integer(let value): text = String(value)
            case .null: text = ""
            case let other: text = other.description
            }
            return Field(key: key, label: label, editor: LineEditor(text))
        }
    }

    /// Applies a key.
    public mutating func handle(_ key: Key) -> Action {
        switch key {
        case .enter: return .submit
        case .escape: return .cancel
        case .tab, .down: focus = (focus + 1) % fields.count
        case .up: focus = (focus + fields.count - 1) % fields.count
        default:
            if fields[focus].editor.handle(key) { fields[focus].error = nil }
        }
        return .none
    }

    /// The fields' values for the model, or the fields that do not convert (by key, with why).
    public func values() -> Result<[(key: String, value: AttributeValue)], FieldErrors> {
        var values: [(key: String, value: AttributeValue)] = []
        var errors: [String: String] = [:]
        for field in fields {
            let text = field.editor.text.trimmingCharacters(in: .whitespaces)
            switch field.key {
            case "age":
                if let age = Int64(text) {
                    values.append((field.key, .integer(age)))
                } else {
                    errors[field.key] = text.isEmpty ? "an age is needed" : "expected a whole number, found \"\(text)\""
                }
            default:
                values.append((field.key, text.isEmpty && Self.optionalKeys.contains(field.key) ? .null : .string(text)))
            }
        }
        return errors.isEmpty ? .success(values) : .failure(FieldErrors(byKey: errors))
    }

    /// Errors by field key.
    public struct FieldErrors: Error, Sendable, Hashable {
        /// Why each field was refused.
        public var byKey: [String: String]
    }

    /// Shows `errors` under their fields (and clears the others); errors for keys the form does not
    /// show go to ``generalError``. Focuses the first field in error.
    public mutating func setErrors(_ errors: [String: String]) {
        for index in fields.indices { fields[index].error = errors[fields[index].key] }
        let unknown = errors.filter { key, _ in !fields.contains { $0.key == key } }
        generalError = unknown.isEmpty ? nil : unknown.sorted { $0.key < $1.key }
            .map { $0.key.isEmpty ? $0.value : "\($0.key): \($0.value)" }
            .joined(separator: "; ")
        if let first = fields.firstIndex(where: { $0.error != nil }) { focus = first }
    }

    // MARK: - Drawing

    /// Draws the form as a box centred in `rect`.
    public func draw(into buffer: inout ScreenBuffer, in rect: TerminalRect, usesColors: Bool) {
        let labelWidth = 12
        let width = min(rect.width, 64)
        // An error of the whole form (a save the store refused) is wrapped, at most four lines of it.
        let generalLines = generalError.map { Array(DisplayWidth.wrapped($0, width: width - 4).prefix(4)) } ?? []
        let lines = fields.count + fields.filter { $0.error != nil }.count + generalLines.count + 1
        let height = min(rect.height, lines + 2)
        guard width >= 20, height >= 3 else { return }
        let box = TerminalRect(x: rect.x + (rect.width - width) / 2, y: rect.y + (rect.height - height) / 2,
            width: width, height: height)
        OverlayBox.draw(title: title, into: &buffer, in: box)
        let errorStyle = usesColors ? TextStyle(foreground: .red, bold: true) : TextStyle(bold: true)
        var y = box.y + 1
        let inner = box.width - 4
        for (index, field) in fields.enumerated() where y < box.maxY - 1 {
            let focused = index == focus
            buffer.write(field.label, at: box.x + 2, row: y, style: focused ? .bold : .plain, maxWidth: labelWidth)
            field.editor.draw(
                into: &buffer, column: box.x + 2 + labelWidth, row: y, width: inner - labelWidth, showsCursor: focused)
            y += 1
            if let error = field.error, y < box.maxY - 1 {
                buffer.write("↳ \(error)", at: box.x + 2 + labelWidth, row: y, style: errorStyle, maxWidth: inner - labelWidth)
                y += 1
            }
        }
        for line in generalLines where y < box.maxY - 1 {
            buffer.write(line, at: box.x + 2, row: y, style: errorStyle, maxWidth: inner)
            y += 1
        }
        if y < box.maxY - 1 {
            buffer.write("Enter save · Esc cancel · Tab/↑↓ move", at: box.x + 2, row: y, style: .dim, maxWidth: inner)
        }
    }
}
