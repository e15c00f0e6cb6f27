import Foundation

/// The value of a Transformable attribute as Core Data stores it with its default secure transformer
/// (`NSSecureUnarchiveFromData`): a keyed archive of property-list-like Foundation objects — strings, numbers,
/// Booleans, dates, data, URLs, UUIDs, `NSNull`, and arrays, sets and string-keyed dictionaries of them.
///
/// A Transformable attribute holds the archive's bytes (``AttributeValue/binary(_:)``), exactly as Apple's Core
/// Data wrote them; read and write it as an `ArchivedValue` through the attribute's typed accessor
/// (`object["tags"] as ArchivedValue?`, `object["tags"] = ArchivedValue.array([...])`), which decodes and encodes
/// the archive. Archives are written in `NSKeyedArchiver`'s layout, which Apple's secure unarchiver reads.
/// Archives of other classes (a custom `NSSecureCoding` class of an app) are not decoded: ``init(keyedArchive:)``
/// throws, naming the class, and the bytes stay readable as `Data`.
public indirect enum ArchivedValue: Sendable, Hashable {
    case null
    case string(String)
    case integer(Int64)
    case double(Double)
    case boolean(Bool)
    case date(Date)
    case data(Data)
    case url(URL)
    case uuid(UUID)
    case array([ArchivedValue])
    case set(Set<ArchivedValue>)
    case dictionary([String: ArchivedValue])

    /// Why bytes are not an archive of such a value.
    public struct DecodingError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, in words.
        public let reason: String
        public var description: String { "not an archived value: \(reason)" }
    }

    /// The deepest nesting of collections decoded (guards against reference cycles and hostile archives).
    static let maximumDepth = 256

    /// Decodes a keyed archive (`NSSecureUnarchiveFromData`'s format).
    ///
    /// - Throws: ``DecodingError`` for bytes that are not a keyed archive, or that hold a class this type does not
    ///   decode (named in the reason). Never crashes on bad input.
    public init(keyedArchive data: Data) throws(DecodingError) {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data: data)
        } catch {
            throw DecodingError(reason: error.message)
        }
        self = try Self.decode(archive, .reference(archive.rootIndex), depth: 0)
    }

    static func decode(_ archive: KeyedArchive, _ value: KeyedArchive.Value, depth: Int)
        throws(DecodingError) -> ArchivedValue
    {
        guard depth <= maximumDepth else { throw DecodingError(reason: "it nests deeper than \(maximumDepth)") }
        guard let resolved = archive.resolved(value) else { return .null }
        switch resolved {
        case .string(let text): return .string(text)
        case .integer(let number): return .integer(number)
        case .real(let number): return .double(number)
        case .boolean(let flag): return .boolean(flag)
        case .data(let bytes): return .data(bytes)
        case .date(let date): return .date(date)
        case .null: return .null
        case .array, .reference: throw DecodingError(reason: "an object is not a dictionary")
        case .dictionary: break
        }
        guard let object = archive.object(value) else { throw DecodingError(reason: "an object has no class") }
        let classes = Set(object.classes + [object.className])
        func members() throws(DecodingError) -> [ArchivedValue] {
            guard let list = archive.array(value) else { throw DecodingError(reason: "\(object.className) has no NS.objects") }
            var result: [ArchivedValue] = []
            for member in list { result.append(try decode(archive, member, depth: depth + 1)) }
            return result
        }
        if !classes.isDisjoint(with: ["NSArray", "NSMutableArray", "NSOrderedSet", "NSMutableOrderedSet"]) {
            return .array(try members())
        }
        if !classes.isDisjoint(with: ["NSSet", "NSMutableSet"]) { return .set(Set(try members())) }
        if !classes.isDisjoint(with: ["NSDictionary", "NSMutableDictionary"]) {
            guard let entries = archive.dictionary(value) else {
                throw DecodingError(reason: "\(object.className) has no NS.keys and NS.objects")
            }
            var result: [String: ArchivedValue] = [:]
            for (key, member) in entries {
                guard let name = archive.string(key) else {
                    throw DecodingError(reason: "a dictionary has a key that is not a string")
                }
                result[name] = try decode(archive, member, depth: depth + 1)
            }
            return .dictionary(result)
        }
        if classes.contains("NSString") || classes.contains("NSMutableString") {
            guard let text = archive.string(value) else { throw DecodingError(reason: "\(object.className) has no text") }
            return .string(text)
        }
        if classes.contains("NSDate") {
            guard case .real(let seconds)? = archive.resolved(object["NS.time"]) else {
                throw DecodingError(reason: "NSDate has no NS.time")
            }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        }
        if classes.contains("NSData") || classes.contains("NSMutableData") {
            guard case .data(let bytes)? = archive.resolved(object["NS.data"]) else {
                throw DecodingError(reason: "\(object.className) has no NS.data")
            }
            return .data(bytes)
        }
        if classes.contains("NSUUID") {
            guard case .data(let bytes)? = archive.resolved(object["NS.uuidbytes"]), bytes.count == 16 else {
                throw DecodingError(reason: "NSUUID has no 16 NS.uuidbytes")
            }
            let b = [UInt8](bytes)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
                b[13], b[14], b[15])))
        }
        if classes.contains("NSURL") {
            guard let relative = archive.string(object["NS.relative"]) else {
                throw DecodingError(reason: "NSURL has no NS.relative")
            }
            var base: URL?
            if case .url(let baseURL) = try decode(archive, object["NS.base"] ?? .null, depth: depth + 1) { base = baseURL }
            guard let url = URL(string: relative, relativeTo: base) else {
                throw DecodingError(reason: "NSURL's text \"\(relative)\" is not a URL")
            }
            return .url(url.absoluteURL)
        }
        if classes.contains("NSNull") { return .null }
        throw DecodingError(reason: "it holds a \(object.className), which is not a property-list-like Foundation class")
    }

    /// The value as a keyed archive, as Core Data's `NSSecureUnarchiveFromData` transformer stores it: a binary
    /// property list in `NSKeyedArchiver`'s layout, with Foundation's class names (`NSArray`, `NSSet`,
    /// `NSDictionary`, `NSDate`, `NSURL`, `NSUUID`, `NSNull`) and strings, numbers and data inline, as Apple's
    /// archiver writes them.
    public func keyedArchive() -> Data {
        let builder = KeyedArchiveBuilder()
        return builder.archive(root: archived(into: builder))
    }

    /// Adds the value's objects to `builder`, returning the reference to it.
    func archived(into builder: KeyedArchiveBuilder) -> PropertyListValue {
        switch self {
        case .null: return builder.object("NSNull", fields: [])
        case .string(let text): return builder.add(.string(text))
        case .integer(let number): return builder.add(.integer(number))
        case .double(let number): return builder.add(.real(number))
        case .boolean(let flag): return builder.add(.boolean(flag))
        case .data(let bytes): return builder.add(.data(bytes))
        case .date(let date):
            return builder.object("NSDate", fields: [("NS.time", .real(date.timeIntervalSinceReferenceDate))])
        case .url(let url):
            return builder.object("NSURL", fields: [("NS.base", .uid(0)), ("NS.relative", builder.add(.string(url.absoluteString)))])
        case .uuid(let uuid):
            let bytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
            return builder.object("NSUUID", fields: [("NS.uuidbytes", .data(bytes))])
        case .array(let members):
            return builder.array(members.map { $0.archived(into: builder) })
        case .set(let members):
            return builder.array(members.map { $0.archived(into: builder) }, className: "NSSet")
        case .dictionary(let entries):
            return builder.dictionary(entries.sorted { $0.key < $1.key }.map { ($0.key, $0.value.archived(into: builder)) })
        }
    }
}

extension ArchivedValue: AttributeValueConvertible {
    /// Decodes a Transformable attribute's bytes; nil when they are no archive of such a value.
    public init?(attributeValue: AttributeValue) {
        guard case .binary(let bytes) = attributeValue, let value = try? ArchivedValue(keyedArchive: bytes) else {
            return nil
        }
        self = value
    }

    /// The keyed archive's bytes.
    public var attributeValue: AttributeValue { .binary(keyedArchive()) }
}
