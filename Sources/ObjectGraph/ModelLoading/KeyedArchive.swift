import Foundation

/// A keyed archive — `NSKeyedArchiver`'s format, in which Core Data writes compiled models (`.mom`), the model
/// cache of a store (`Z_MODELCACHE`) and transformable values — read as plain values, without instantiating any
/// archived class (Linux has none of Core Data's).
///
/// The archive is a property list whose `$objects` array holds every object once; objects refer to each other
/// by UID (an index into `$objects`, 0 meaning nil), and an object is a dictionary of its coder keys plus
/// `$class`, the UID of `{$classname, $classes}`. Foundation parses the property list; this type turns it into
/// ``Value``s and answers the questions a decoder asks: an object's class and keys, and the contents of the
/// standard collection classes (`NS.objects`, `NS.keys`, Core Data's `NSKnownKeysDictionary1`).
///
/// Bad input never crashes: a file that is not a property list, not a keyed archive, has references out of
/// range or is too large is a ``KeyedArchive/Failure``; following references never loops (every walk is bounded
/// by the decoder that asks).
struct KeyedArchive: Sendable {
    /// One value of the archive: a plist scalar, a reference to an object, or a container.
    enum Value: Sendable, Equatable {
        case null
        case string(String)
        case integer(Int64)
        case real(Double)
        case boolean(Bool)
        case data(Data)
        case date(Date)
        /// A UID: the index of an object in `$objects` (0 is nil).
        case reference(Int)
        case array([Value])
        case dictionary([String: Value])
    }

    /// An archived object: its class (and the class chain up to `NSObject`) and its coder keys.
    struct Object: Sendable {
        let className: String
        let classes: [String]
        let fields: [String: Value]

        subscript(key: String) -> Value? { fields[key] }
    }

    /// Why the bytes are not a usable keyed archive.
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// The largest archive read (Core Data's models are kilobytes to a few megabytes).
    static let maximumBytes = 64 << 20
    /// The most objects an archive may hold.
    static let maximumObjects = 2_000_000
    /// The deepest nesting of plist containers accepted inside one object.
    static let maximumNesting = 64

    /// `$objects`, converted.
    let objects: [Value]
    /// The root object's index.
    let rootIndex: Int

    /// Reads the keyed archive in `data` (binary or XML property list).
    ///
    /// - Throws: ``Failure`` saying what is wrong.
    init(data: Data) throws(Failure) {
        guard data.count <= Self.maximumBytes else {
            throw Failure(message: "it is \(data.count) bytes, more than the \(Self.maximumBytes) accepted")
        }
        let top: [String: Value]
        if data.starts(with: Array("bplist00".utf8)) {
            // Binary (what Core Data writes): our own checked reader (see BinaryPropertyListReader for why).
            do {
                guard case .dictionary(let dictionary) = try BinaryPropertyListReader.read(data) else {
                    throw Failure(message: "its property list is not a dictionary")
                }
                top = dictionary
            } catch let failure as Failure {
                throw failure
            } catch let failure as BinaryPropertyListReader.Failure {
                throw Failure(message: "it is not a property list we read: \(failure.message)")
            } catch {
                throw Failure(message: "it is not a property list")
            }
        } else {
            // XML (a hand-written archive): Foundation's parser, whose XML form has no sets and only string keys.
            // Nothing else goes to it: it also takes binary lists under other headers, and traps on some.
            let start = data.prefix(64).drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
            guard start.starts(with: Array("<?xml".utf8)) || start.starts(with: Array("<plist".utf8))
                || start.starts(with: Array("<!DOCTYPE".utf8))
            else { throw Failure(message: "it is not a property list") }
            let plist: Any
            do {
                plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            } catch {
                throw Failure(message: "it is not a property list")
            }
            guard case .dictionary(let dictionary) = try Self.convert(plist, depth: 0) else {
                throw Failure(message: "its property list is not a dictionary")
            }
            top = dictionary
        }
        guard case .string("NSKeyedArchiver")? = top["$archiver"] else {
            throw Failure(message: "it is a property list but not a keyed archive (no $archiver NSKeyedArchiver)")
        }
        guard case .array(let converted)? = top["$objects"] else { throw Failure(message: "it has no $objects array") }
        guard converted.count <= Self.maximumObjects else {
            throw Failure(message: "it holds \(converted.count) objects, more than the \(Self.maximumObjects) accepted")
        }
        guard case .dictionary(let topObjects)? = top["$top"] else { throw Failure(message: "it has no $top dictionary") }
        guard case .reference(let root)? = topObjects["root"], root > 0, root < converted.count else {
            throw Failure(message: "its $top has no root object reference")
        }
        objects = converted
        rootIndex = root
    }

    /// The root object.
    var root: Object? { object(.reference(rootIndex)) }

    /// What `value` refers to (itself when it is not a reference); nil for nil and for references out of range.
    func resolved(_ value: Value?) -> Value? {
        guard let value else { return nil }
        guard case .reference(let index) = value else { return value }
        // (UID 0 is nil; a "$null" string elsewhere is that string.)
        guard index > 0, index < objects.count else { return nil }
        if case .reference = objects[index] { return nil }  // A reference to a reference is not an archive's.
        return objects[index]
    }

    /// The object `value` refers to, with its class; nil when it is not an object.
    func object(_ value: Value?) -> Object? {
        guard case .dictionary(let fields)? = resolved(value), case .dictionary(let classInfo)? = resolved(fields["$class"]),
            case .string(let name)? = resolved(classInfo["$classname"])
        else { return nil }
        var chain: [String] = []
        if case .array(let classes)? = resolved(classInfo["$classes"]) {
            for entry in classes { if case .string(let className)? = resolved(entry) { chain.append(className) } }
        }
        return Object(className: name, classes: chain, fields: fields)
    }

    /// A string: inline, or an `NSString`/`NSMutableString` object (`NS.string`, or UTF-8 `NS.bytes`).
    func string(_ value: Value?) -> String? {
        switch resolved(value) {
        case .string(let text)?: return text
        case .dictionary?:
            guard let object = object(value) else { return nil }
            if case .string(let text)? = resolved(object["NS.string"]) { return text }
            if case .data(let bytes)? = resolved(object["NS.bytes"]) { return String(bytes: bytes, encoding: .utf8) }
            return nil
        default: return nil
        }
    }

    /// An integer (a plist integer, or a Boolean as 0/1).
    func integer(_ value: Value?) -> Int64? {
        switch resolved(value) {
        case .integer(let number)?: return number
        case .boolean(let flag)?: return flag ? 1 : 0
        case .real(let number)?: return number.rounded() == number && abs(number) < 9.0e18 ? Int64(number) : nil
        default: return nil
        }
    }

    /// A Boolean (a plist Boolean, or an integer: nonzero is true).
    func boolean(_ value: Value?) -> Bool? {
        switch resolved(value) {
        case .boolean(let flag)?: return flag
        case .integer(let number)?: return number != 0
        default: return nil
        }
    }

    /// The members of an `NSArray`, `NSSet` or `NSOrderedSet` object (`NS.objects`), or of an inline array.
    func array(_ value: Value?) -> [Value]? {
        switch resolved(value) {
        case .array(let members)?: return members
        case .dictionary?:
            guard let object = object(value), case .array(let members)? = resolved(object["NS.objects"]) else { return nil }
            return members
        default: return nil
        }
    }

    /// The entries of an `NSDictionary` object (`NS.keys` and `NS.objects`), or of Core Data's
    /// `NSKnownKeysDictionary1` (`searchMapping`'s `keys` and `values`), in archive order.
    func dictionary(_ value: Value?) -> [(key: Value, value: Value)]? {
        guard let object = object(value) else { return nil }
        if let keys = array(object["NS.keys"]), let values = array(object["NS.objects"]) {
            guard keys.count == values.count else { return nil }
            return Array(zip(keys, values)).map { (key: $0.0, value: $0.1) }
        }
        if let mapping = self.object(object["searchMapping"]), let keys = array(mapping["keys"]),
            let values = array(object["values"])
        {
            guard keys.count <= values.count else { return nil }
            return Array(zip(keys, values)).map { (key: $0.0, value: $0.1) }
        }
        if object.classes.contains("NSDictionary") { return [] }
        return nil
    }

    /// Turns one Foundation plist value into a ``Value``.
    private static func convert(_ raw: Any, depth: Int) throws(Failure) -> Value {
        guard depth <= maximumNesting else { throw Failure(message: "its objects nest deeper than \(maximumNesting)") }
        switch raw {
        case let flag as Bool where type(of: raw) == Bool.self: return .boolean(flag)
        case let text as String: return .string(text)
        case let bytes as Data: return .data(bytes)
        case let date as Date: return .date(date)
        case let list as [Any]:
            var values: [Value] = []
            values.reserveCapacity(list.count)
            for element in list { values.append(try convert(element, depth: depth + 1)) }
            return .array(values)
        case let dictionary as [String: Any]:
            // An XML property list writes a UID as {CF$UID = n}.
            if dictionary.count == 1, let uid = dictionary["CF$UID"] as? NSNumber { return .reference(uid.intValue) }
            var values: [String: Value] = [:]
            for (key, element) in dictionary { values[key] = try convert(element, depth: depth + 1) }
            return .dictionary(values)
        case let number as NSNumber:
            switch UInt8(bitPattern: number.objCType.pointee) {
            case UInt8(ascii: "c"), UInt8(ascii: "B"): return .boolean(number.boolValue)
            case UInt8(ascii: "f"), UInt8(ascii: "d"): return .real(number.doubleValue)
            default: return .integer(number.int64Value)
            }
        default:
            if let uid = uidValue(raw) { return .reference(uid) }
            throw Failure(message: "it holds a value of an unexpected kind (\(type(of: raw)))")
        }
    }

    /// The index a binary property list's UID holds. Foundation on Linux parses UIDs into an internal class
    /// (`_NSKeyedArchiverUID`) with no public accessor; its stored `value` is read by reflection. If a future
    /// Foundation changes that, the archive is refused with a clear error rather than misread.
    private static func uidValue(_ raw: Any) -> Int? {
        guard String(describing: type(of: raw)).contains("KeyedArchiverUID") else { return nil }
        for child in Mirror(reflecting: raw).children where child.label == "value" {
            if let value = child.value as? UInt32 { return Int(value) }
            if let value = child.value as? Int { return value }
            if let value = child.value as? UInt64, value <= UInt64(Int.max) { return Int(value) }
        }
        return nil
    }
}
