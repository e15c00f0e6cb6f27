/// Reads the attributes of one element of a model file in Xcode's spellings, and words errors about it.
///
/// It knows where the element is (file, line) and what it belongs to (entity, property), so every error
/// it makes names them.
struct ModelElementReader {
    /// The element being read.
    let element: XMLTreeElement
    /// The file (or source name) the element came from.
    let source: String
    /// The entity the element belongs to, if any.
    var entity: String?
    /// The property the element describes or belongs to, if any.
    var property: String?

    /// The attribute's value, or nil when absent.
    func string(_ name: String) -> String? { element[name] }

    /// The attribute's value, or nil when absent or empty (Xcode writes `userDefinedModelVersionIdentifier=""`).
    func nonEmpty(_ name: String) -> String? {
        guard let value = element[name], !value.isEmpty else { return nil }
        return value
    }

    /// The attribute's value; an error when it is absent or empty.
    func required(_ name: String) throws(ModelLoadError) -> String {
        guard let value = nonEmpty(name) else { throw missing(name) }
        return value
    }

    /// A Boolean as Xcode writes it (`YES`/`NO`; also `true`/`false`), `defaultValue` when absent.
    func flag(_ name: String, default defaultValue: Bool = false) throws(ModelLoadError) -> Bool {
        guard let value = element[name] else { return defaultValue }
        switch value.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw invalid(name, value, expected: "YES or NO")
        }
    }

    /// A non-negative count (`minCount`, `maxCount`), nil when absent.
    func count(_ name: String) throws(ModelLoadError) -> Int? {
        guard let value = element[name] else { return nil }
        guard let number = Int(value.trimmingXMLSpace()), number >= 0 else {
            throw invalid(name, value, expected: "a whole number of 0 or more")
        }
        return number
    }

    /// An error saying the attribute `name` is missing.
    func missing(_ name: String) -> ModelLoadError {
        ModelLoadError(file: source, line: line, reason: .missingValue(element: element.name, attribute: name,
            entity: entity, property: property))
    }

    /// An error saying the attribute `name` holds `value`, which is not `expected`.
    func invalid(_ name: String, _ value: String, expected: String) -> ModelLoadError {
        ModelLoadError(file: source, line: line, reason: .invalidValue(element: element.name, attribute: name,
            value: value, entity: entity, property: property, expected: expected))
    }

    /// The element's line, when libxml2 knew it.
    var line: Int? { element.line > 0 ? element.line : nil }

    /// A reader for a child element, keeping the entity and property.
    func child(_ element: XMLTreeElement) -> ModelElementReader {
        ModelElementReader(element: element, source: source, entity: entity, property: property)
    }
}

extension AttributeType {
    /// Reads Xcode's spelling of an attribute type (`"Integer 64"`, `"Binary"`, and the old `"Binary Data"`).
    ///
    /// `ObjectID`, which newer Xcode versions offer, has no counterpart here and gives nil.
    init?(xcodeName: String) {
        switch xcodeName {
        case "Undefined": self = .undefined
        case "Integer 16": self = .integer16
        case "Integer 32": self = .integer32
        case "Integer 64": self = .integer64
        case "Decimal": self = .decimal
        case "Double": self = .double
        case "Float": self = .float
        case "String": self = .string
        case "Boolean": self = .boolean
        case "Date": self = .date
        case "Binary", "Binary Data": self = .binary
        case "UUID": self = .uuid
        case "URI": self = .uri
        case "Transformable": self = .transformable
        case "Composite": self = .composite
        default: return nil
        }
    }
}

extension String {
    /// The string without XML white space (space, tab, CR, LF) at either end.
    func trimmingXMLSpace() -> String {
        let space: Set<Character> = [" ", "\t", "\n", "\r", "\r\n"]
        guard let first = firstIndex(where: { !space.contains($0) }),
            let last = lastIndex(where: { !space.contains($0) })
        else { return "" }
        return String(self[first...last])
    }
}
