import Foundation

/// Reads a binary property list (`bplist00`) into ``KeyedArchive/Value``s, checking every offset, count and
/// reference, so that no input crashes, loops or runs away with memory.
///
/// Our own reader rather than Foundation's `PropertyListSerialization` because the keyed-archive readers take
/// bytes from files anyone can hand us (`.mom` files, store model caches, Transformable columns), and
/// Foundation on Linux traps on some malformed binary property lists: a byte that turns an array into a set
/// of dictionaries, or a dictionary key into an array, makes its bridging cast fail (found by the
/// compiled-model fuzz target). The format: an 8-byte header, the objects, an offset table, and a 32-byte
/// trailer giving the offset and reference widths, the object count, the top object and the table's offset.
enum BinaryPropertyListReader {
    /// Why the bytes are not a binary property list we read.
    struct Failure: Error, Sendable, Equatable {
        let message: String
    }

    /// The deepest nesting of containers accepted.
    static let maximumDepth = 512

    /// The value the property list in `data` holds. Sets are refused (keyed archives never hold one).
    static func read(_ data: Data) throws(Failure) -> KeyedArchive.Value {
        let bytes = [UInt8](data)
        guard bytes.count >= 40, bytes.starts(with: Array("bplist00".utf8)) else {
            throw Failure(message: "it is not a binary property list")
        }
        let trailer = bytes.count - 32
        let offsetWidth = Int(bytes[trailer + 6])
        let referenceWidth = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetWidth), (1...8).contains(referenceWidth),
            let count = Int(exactly: unsigned(bytes, trailer + 8, 8)),
            let top = Int(exactly: unsigned(bytes, trailer + 16, 8)),
            let tableStart = Int(exactly: unsigned(bytes, trailer + 24, 8)),
            count > 0, top < count, tableStart >= 8, tableStart <= trailer,
            count <= (trailer - tableStart) / offsetWidth
        else { throw Failure(message: "its trailer is damaged") }
        var offsets: [Int] = []
        offsets.reserveCapacity(count)
        for index in 0..<count {
            guard let offset = Int(exactly: unsigned(bytes, tableStart + index * offsetWidth, offsetWidth)),
                offset >= 8, offset < tableStart
            else { throw Failure(message: "object \(index) lies outside the objects") }
            offsets.append(offset)
        }
        var reader = Reader(bytes: bytes, offsets: offsets, referenceWidth: referenceWidth, end: tableStart)
        return try reader.value(top, depth: 0)
    }

    /// A big-endian unsigned integer of `width` bytes at `at` (the caller checked the range).
    static func unsigned(_ bytes: [UInt8], _ at: Int, _ width: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in at..<(at + width) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        let offsets: [Int]
        let referenceWidth: Int
        /// Where the objects end (the offset table's start).
        let end: Int
        /// Objects being read, to refuse a container that contains itself.
        var open: Set<Int> = []
        /// Objects read, by index: an object referenced many times is read once (no blow-up on shared members).
        var done: [Int: KeyedArchive.Value] = [:]

        /// `width` bytes at `at`, checked against the objects' end.
        func range(_ at: Int, _ width: Int) throws(Failure) -> Range<Int> {
            guard at >= 0, width >= 0, at <= end, width <= end - at else {
                throw Failure(message: "an object runs past the end of the objects")
            }
            return at..<(at + width)
        }

        /// An object's length: the marker's low nibble, or (0xF) the integer object after it.
        func length(_ marker: UInt8, _ offset: Int) throws(Failure) -> (count: Int, start: Int) {
            let nibble = Int(marker & 0x0F)
            guard nibble == 0x0F else { return (nibble, offset + 1) }
            let sizeMarker = bytes[try range(offset + 1, 1).lowerBound]
            guard sizeMarker >> 4 == 0x1, sizeMarker & 0x0F <= 3 else { throw Failure(message: "a length is not an integer") }
            let width = 1 << Int(sizeMarker & 0x0F)
            let value = BinaryPropertyListReader.unsigned(bytes, try range(offset + 2, width).lowerBound, width)
            guard let count = Int(exactly: value), count <= end else { throw Failure(message: "a length is too large") }
            return (count, offset + 2 + width)
        }

        mutating func value(_ index: Int, depth: Int) throws(Failure) -> KeyedArchive.Value {
            if let known = done[index] { return known }
            let result = try read(index, depth: depth)
            done[index] = result
            return result
        }

        private mutating func read(_ index: Int, depth: Int) throws(Failure) -> KeyedArchive.Value {
            guard index >= 0, index < offsets.count else { throw Failure(message: "a reference points past the objects") }
            guard depth <= BinaryPropertyListReader.maximumDepth else { throw Failure(message: "it nests too deeply") }
            let offset = offsets[index]
            let marker = bytes[try range(offset, 1).lowerBound]
            let nibble = Int(marker & 0x0F)
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x00: return .null
                case 0x08: return .boolean(false)
                case 0x09: return .boolean(true)
                default: throw Failure(message: "unknown marker 0x\(String(marker, radix: 16))")
                }
            case 0x1:
                guard nibble <= 4 else { throw Failure(message: "an integer is too wide") }
                let width = 1 << nibble
                let at = try range(offset + 1, width).lowerBound
                // (A 16-byte integer keeps its low 8 bytes; 8-byte ones are signed, narrower ones unsigned.)
                let raw = BinaryPropertyListReader.unsigned(bytes, at + max(0, width - 8), min(width, 8))
                return .integer(Int64(bitPattern: raw))
            case 0x2:
                guard nibble == 2 || nibble == 3 else { throw Failure(message: "a real is neither 4 nor 8 bytes") }
                let at = try range(offset + 1, 1 << nibble).lowerBound
                let raw = BinaryPropertyListReader.unsigned(bytes, at, 1 << nibble)
                return .real(nibble == 2 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw))
            case 0x3:
                guard marker == 0x33 else { throw Failure(message: "a date is not 8 bytes") }
                let at = try range(offset + 1, 8).lowerBound
                return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: BinaryPropertyListReader.unsigned(bytes, at, 8))))
            case 0x4:
                let (count, start) = try length(marker, offset)
                return .data(Data(bytes[try range(start, count)]))
            case 0x5:
                let (count, start) = try length(marker, offset)
                return .string(String(decoding: bytes[try range(start, count)], as: UTF8.self))
            case 0x6:
                let (count, start) = try length(marker, offset)
                guard count <= end / 2 else { throw Failure(message: "a string is too long") }
                let slice = bytes[try range(start, count * 2)]
                var units: [UInt16] = []
                units.reserveCapacity(count)
                var position = slice.startIndex
                while position < slice.endIndex {
                    units.append(UInt16(slice[position]) << 8 | UInt16(slice[position + 1]))
                    position += 2
                }
                return .string(String(decoding: units, as: UTF16.self))
            case 0x8:
                let at = try range(offset + 1, nibble + 1).lowerBound
                guard nibble < 4 else { throw Failure(message: "a UID is too wide") }
                return .reference(Int(BinaryPropertyListReader.unsigned(bytes, at, nibble + 1)))
            case 0xA, 0xD:
                let (count, start) = try length(marker, offset)
                let isDictionary = marker >> 4 == 0xD
                guard count <= end / referenceWidth else { throw Failure(message: "a container is too large") }
                let referencesStart = try range(start, count * referenceWidth * (isDictionary ? 2 : 1)).lowerBound
                guard open.insert(index).inserted else { throw Failure(message: "a container contains itself") }
                defer { open.remove(index) }
                func reference(_ position: Int) -> Int {
                    Int(truncatingIfNeeded: BinaryPropertyListReader.unsigned(bytes, referencesStart + position * referenceWidth, referenceWidth))
                }
                if !isDictionary {
                    var members: [KeyedArchive.Value] = []
                    members.reserveCapacity(count)
                    for position in 0..<count { members.append(try value(reference(position), depth: depth + 1)) }
                    return .array(members)
                }
                var entries: [String: KeyedArchive.Value] = [:]
                for position in 0..<count {
                    guard case .string(let key) = try value(reference(position), depth: depth + 1) else {
                        throw Failure(message: "a dictionary key is not a string")
                    }
                    entries[key] = try value(reference(count + position), depth: depth + 1)
                }
                return .dictionary(entries)
            default:
                throw Failure(message: "unsupported marker 0x\(String(marker, radix: 16)) (sets and others)")
            }
        }
    }
}
