import Foundation

/// A property-list value for ``BinaryPropertyList/encode(_:)``, including the UID type keyed archives use
/// (Foundation on Linux cannot write UIDs).
indirect enum PropertyListValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    case data(Data)
    case date(Date)
    /// A keyed archive's reference to an object (an index into `$objects`).
    case uid(UInt32)
    case array([PropertyListValue])
    /// Entries in the order written.
    case dictionary([(String, PropertyListValue)])

    static func == (lhs: PropertyListValue, rhs: PropertyListValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.real(a), .real(b)): a == b
        case let (.boolean(a), .boolean(b)): a == b
        case let (.data(a), .data(b)): a == b
        case let (.date(a), .date(b)): a == b
        case let (.uid(a), .uid(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.dictionary(a), .dictionary(b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }
}

/// Writes binary property lists (`bplist00`) byte for byte from the format: a header, the objects, an offset
/// table and a 32-byte trailer. Transformable values are archived with it (see ``ArchivedValue``), and the tests'
/// fixtures for the keyed-archive readers are made with it, so no file Apple's tools wrote is needed.
enum BinaryPropertyList {
    /// The bytes of `value` as a binary property list.
    static func encode(_ value: PropertyListValue) -> Data {
        var objects: [[UInt8]] = []
        // Flatten depth first; containers are written after their members' indexes are known.
        func add(_ value: PropertyListValue) -> Int {
            let index = objects.count
            objects.append([])
            switch value {
            case .array(let members):
                let refs = members.map { add($0) }
                objects[index] = header(0xA, count: refs.count) + refs.flatMap(reference)
            case .dictionary(let entries):
                let keys = entries.map { add(.string($0.0)) }
                let values = entries.map { add($0.1) }
                objects[index] = header(0xD, count: entries.count) + keys.flatMap(reference) + values.flatMap(reference)
            default:
                objects[index] = scalar(value)
            }
            return index
        }
        _ = add(value)
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let tableOffset = bytes.count
        for offset in offsets { bytes += bigEndian(UInt64(offset), width: 8) }
        bytes += [0, 0, 0, 0, 0, 0, 8, UInt8(referenceWidth)]
        bytes += bigEndian(UInt64(objects.count), width: 8)
        bytes += bigEndian(0, width: 8)
        bytes += bigEndian(UInt64(tableOffset), width: 8)
        return Data(bytes)
    }

    /// Object references are written 4 bytes wide (enough for any fixture).
    private static let referenceWidth = 4

    private static func reference(_ index: Int) -> [UInt8] { bigEndian(UInt64(index), width: referenceWidth) }

    private static func header(_ kind: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [kind << 4 | UInt8(count)] : [kind << 4 | 0xF] + integer(Int64(count))
    }

    private static func integer(_ value: Int64) -> [UInt8] {
        if value >= 0 && value <= 0xFF { return [0x10, UInt8(value)] }
        if value >= 0 && value <= 0xFFFF { return [0x11] + bigEndian(UInt64(value), width: 2) }
        if value >= 0 && value <= 0xFFFF_FFFF { return [0x12] + bigEndian(UInt64(value), width: 4) }
        return [0x13] + bigEndian(UInt64(bitPattern: value), width: 8)
    }

    private static func scalar(_ value: PropertyListValue) -> [UInt8] {
        switch value {
        case .boolean(let flag): return [flag ? 0x09 : 0x08]
        case .integer(let number): return integer(number)
        case .real(let number): return [0x23] + bigEndian(number.bitPattern, width: 8)
        case .date(let date): return [0x33] + bigEndian(date.timeIntervalSinceReferenceDate.bitPattern, width: 8)
        case .data(let bytes): return header(0x4, count: bytes.count) + bytes
        case .string(let text):
            if text.utf8.allSatisfy({ $0 < 0x80 }) { return header(0x5, count: text.utf8.count) + Array(text.utf8) }
            let units = Array(text.utf16)
            return header(0x6, count: units.count) + units.flatMap { bigEndian(UInt64($0), width: 2) }
        case .uid(let value):
            let width = value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : 4
            return [0x80 | UInt8(width - 1)] + bigEndian(UInt64(value), width: width)
        case .array, .dictionary: return []
        }
    }

    private static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
    }
}

/// Builds a keyed archive (`NSKeyedArchiver`'s layout: `$archiver`, `$version`, `$top`, `$objects`) one object at a
/// time: how ``ArchivedValue`` writes Transformable values, and how tests write compiled-model fixtures.
final class KeyedArchiveBuilder {
    private var objects: [PropertyListValue] = [.string("$null")]
    private var classes: [String: UInt32] = [:]

    init() {}

    /// Adds a scalar (string, number, data) and returns its reference.
    func add(_ value: PropertyListValue) -> PropertyListValue {
        objects.append(value)
        return .uid(UInt32(objects.count - 1))
    }

    /// Reserves a slot for an object filled later (for cycles: an entity and its model refer to each other).
    func reserve() -> PropertyListValue {
        objects.append(.string("$null"))
        return .uid(UInt32(objects.count - 1))
    }

    /// Adds an object of class `className` (whose chain up to NSObject is `chain`) with `fields`; into `slot`
    /// when given.
    @discardableResult
    func object(
        _ className: String, chain: [String] = [], fields: [(String, PropertyListValue)], into slot: PropertyListValue? = nil
    ) -> PropertyListValue {
        let classRef: UInt32
        if let known = classes[className] {
            classRef = known
        } else {
            objects.append(.dictionary([("$classname", .string(className)),
                ("$classes", .array(([className] + chain + ["NSObject"]).map(PropertyListValue.string)))]))
            classRef = UInt32(objects.count - 1)
            classes[className] = classRef
        }
        let value = PropertyListValue.dictionary(fields + [("$class", .uid(classRef))])
        if case .uid(let index)? = slot {
            objects[Int(index)] = value
            return .uid(index)
        }
        objects.append(value)
        return .uid(UInt32(objects.count - 1))
    }

    /// An `NSArray` of `members` (references).
    func array(_ members: [PropertyListValue], className: String = "NSArray") -> PropertyListValue {
        object(className, fields: [("NS.objects", .array(members))])
    }

    /// An `NSDictionary` of string keys to references.
    func dictionary(_ entries: [(String, PropertyListValue)]) -> PropertyListValue {
        let keys = entries.map { add(.string($0.0)) }
        return object("NSDictionary", fields: [("NS.keys", .array(keys)), ("NS.objects", .array(entries.map(\.1)))])
    }

    /// The archive's bytes with `root` as its root object.
    func archive(root: PropertyListValue) -> Data {
        BinaryPropertyList.encode(.dictionary([
            ("$archiver", .string("NSKeyedArchiver")), ("$version", .integer(100_000)),
            ("$top", .dictionary([("root", root)])), ("$objects", .array(objects)),
        ]))
    }
}
