/// Why a model file could not be loaded: which file, where in it, and what was wrong.
///
/// Every problem a model file can have — unreadable, not XML, not a Core Data model, a value Xcode would
/// never write, or a model that contradicts itself — comes back as this one error, so that a command-line
/// tool can print it as `file:line:column: reason` and a test can match on ``reason``.
public struct ModelLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// The file or folder could not be read (missing, a permission problem, …).
        case unreadable(String)
        /// The bytes are not well-formed UTF-8 XML; the message is libxml2's (or ours for encoding errors).
        case malformedXML(String)
        /// The input is XML (or a folder) but not a Core Data model, for the reason given.
        case notAModel(String)
        /// The input is larger than the loader accepts (bytes, elements, nesting, inheritance depth).
        case tooLarge(String)
        /// An element lacks an attribute that it needs, such as an entity's `name`.
        case missingValue(element: String, attribute: String, entity: String?, property: String?)
        /// An attribute holds a value that cannot mean anything, such as `attributeType="Integer 8"`.
        case invalidValue(element: String, attribute: String, value: String, entity: String?, property: String?,
            expected: String)
        /// A model bundle has no version of that name.
        case unknownVersion(String)
        /// The file is well-formed but the model contradicts itself (checked by ``ManagedObjectModel``).
        case inconsistent(ModelError)

        /// The reason in words, without the file and line (``ModelLoadError/description`` adds them).
        public var description: String {
            switch self {
            case .unreadable(let message): "cannot read the model: \(message)"
            case .malformedXML(let message): "malformed XML: \(message)"
            case .notAModel(let message): "not a Core Data model: \(message)"
            case .tooLarge(let message): "model too large: \(message)"
            case let .missingValue(element, attribute, entity, property):
                "<\(element)>\(Self.place(entity, property)) has no '\(attribute)'"
            case let .invalidValue(element, attribute, value, entity, property, expected):
                "<\(element)>\(Self.place(entity, property)) has \(attribute)=\"\(Self.shortened(value))\"; "
                    + "expected \(expected)"
            case .unknownVersion(let name): "the bundle has no model version named '\(name)'"
            case .inconsistent(let error): error.description
            }
        }

        private static func place(_ entity: String?, _ property: String?) -> String {
            switch (entity, property) {
            case let (entity?, property?): " of '\(entity).\(property)'"
            case let (entity?, nil): " of entity '\(entity)'"
            case let (nil, property?): " '\(property)'"
            case (nil, nil): ""
            }
        }

        private static func shortened(_ value: String) -> String {
            value.count <= 80 ? value : String(value.prefix(80)) + "…"
        }
    }

    /// The path of the file (or folder) at fault, or the source name given to
    /// ``ManagedObjectModel/load(xml:source:classes:)``.
    public var file: String
    /// The line of the problem, from 1, when known.
    public var line: Int?
    /// The column of the problem, from 1, when known (XML syntax errors have one).
    public var column: Int?
    /// What was wrong.
    public var reason: Reason

    /// Creates an error.
    public init(file: String, line: Int? = nil, column: Int? = nil, reason: Reason) {
        self.file = file
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// `file:line:column: reason`, as compilers print it (missing parts left out).
    public var description: String {
        var place = file
        if let line {
            place += ":\(line)"
            if let column { place += ":\(column)" }
        }
        return "\(place): \(reason)"
    }
}
