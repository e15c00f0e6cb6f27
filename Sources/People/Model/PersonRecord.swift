import Foundation

/// One person as plain values: the shape of sample data, generated data and import rows.
///
/// A `PersonRecord` is what crosses threads and files; the app turns it into a managed object inside a
/// context. Keeping it a value type lets importers build records on any queue and hand them over safely.
/// In JSON, `createdAt` is an ISO 8601 string such as `"2024-03-05T14:22:10Z"`.
public struct PersonRecord: Codable, Sendable, Hashable {
    /// The given name, in any script, stored as written (no normalization).
    public var firstName: String
    /// The family name, in any script; may start with a lower-case particle such as `van` or `de la`.
    public var lastName: String
    /// The email address; the app treats it as the person's identity when importing.
    public var email: String
    /// The city the person lives in, in its own spelling.
    public var city: String
    /// The age in years.
    public var age: Int64
    /// When the person was added to the database.
    public var createdAt: Date

    /// Creates a record from its values.
    public init(firstName: String, lastName: String, email: String, city: String, age: Int64, createdAt: Date) {
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
        self.city = city
        self.age = age
        self.createdAt = createdAt
    }

    /// A decoder for people JSON: dates as ISO 8601 strings.
    ///
    /// Use it for any people JSON so that every reader agrees on the date format.
    public static func makeJSONDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "expected an ISO 8601 date such as \"2024-03-05T14:22:10Z\", found \"\(text)\"")
            }
            return date
        }
        return decoder
    }

    /// An encoder for people JSON: dates as ISO 8601 strings, keys in a stable order.
    ///
    /// Output written with it reads back with `makeJSONDecoder()` and diffs cleanly.
    public static func makeJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Reads a JSON array of people, such as `Resources/SamplePeople.json`.
    ///
    /// Bad input never traps: an unreadable file, malformed JSON or a record with a missing or mistyped
    /// field throws a `PersonRecordLoadError` that names the file and says where and why.
    public static func loadSamplePeople(from url: URL) throws(PersonRecordLoadError) -> [PersonRecord] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw PersonRecordLoadError(file: url, reason: .unreadable(error.localizedDescription))
        }
        return try decodePeople(from: data, file: url)
    }

    /// Decodes a JSON array of people from bytes; `file` only labels errors.
    ///
    /// This is `loadSamplePeople(from:)` without the file read, for data that is already in memory.
    public static func decodePeople(from data: Data, file: URL) throws(PersonRecordLoadError) -> [PersonRecord] {
        do {
            return try makeJSONDecoder().decode([PersonRecord].self, from: data)
        } catch let error as DecodingError {
            var reason = PersonRecordLoadError.Reason(error)
            if case .malformedJSON = reason, let detail = syntaxErrorDetail(in: data) {
                // JSONDecoder does not say where the syntax error is; JSONSerialization does.
                reason = .malformedJSON(detail)
            }
            throw PersonRecordLoadError(file: file, reason: reason)
        } catch {
            throw PersonRecordLoadError(file: file, reason: .malformedJSON(String(describing: error)))
        }
    }

    private static func syntaxErrorDetail(in data: Data) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch {
            return (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        }
    }
}

/// Why a people JSON file could not be read, and which file it was.
///
/// The description is meant for a person at a terminal, for example
/// `SamplePeople.json: record 12, field "age": expected Int64 but found a string`.
public struct PersonRecordLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The file could not be read at all (missing, no permission, …); the text is the system's.
        case unreadable(String)
        /// The bytes are not valid JSON; the text is the parser's.
        case malformedJSON(String)
        /// The JSON is valid but a value is wrong: `index` is the record's position in the array (when
        /// the problem is inside a record), `field` the key path inside it, `problem` what is wrong.
        case invalidValue(index: Int?, field: String?, problem: String)

        init(_ error: DecodingError) {
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context):
                self = Self.invalid(context, context.debugDescription)
            case .keyNotFound(let key, let context):
                let keyed = DecodingError.Context(
                    codingPath: context.codingPath + [key], debugDescription: context.debugDescription)
                self = Self.invalid(keyed, "is missing")
            case .dataCorrupted(let context):
                if context.codingPath.isEmpty {
                    let underlying = context.underlyingError.map { " (\($0))" } ?? ""
                    self = .malformedJSON(context.debugDescription + underlying)
                } else {
                    self = Self.invalid(context, context.debugDescription)
                }
            @unknown default:
                self = .malformedJSON(String(describing: error))
            }
        }

        private static func invalid(_ context: DecodingError.Context, _ problem: String) -> Reason {
            var path = context.codingPath[...]
            var index: Int?
            if let first = path.first, let position = first.intValue {
                index = position
                path = path.dropFirst()
            }
            let field = path.isEmpty ? nil : path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
                .joined(separator: ".")
            return .invalidValue(index: index, field: field, problem: problem)
        }
    }

    /// The file that was being read.
    public var file: URL
    /// What went wrong, and where in the file.
    public var reason: Reason

    /// Creates an error for `file`.
    public init(file: URL, reason: Reason) {
        self.file = file
        self.reason = reason
    }

    /// One line naming the file, the place in it and the problem.
    public var description: String {
        let name = file.isFileURL ? file.path : file.absoluteString
        switch reason {
        case .unreadable(let why):
            return "\(name): cannot read the file: \(why)"
        case .malformedJSON(let why):
            return "\(name): not valid people JSON: \(why)"
        case .invalidValue(let index, let field, let problem):
            var place: [String] = []
            if let index { place.append("record \(index)") }
            if let field { place.append("field \"\(field)\"") }
            let location = place.isEmpty ? "" : place.joined(separator: ", ") + ": "
            return "\(name): \(location)\(problem)"
        }
    }
}
