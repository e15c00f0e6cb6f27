import Foundation

extension RowOrdering {
    /// A row's place in this ordering as bytes: comparing two rows' bytes with `memcmp` gives the same
    /// answer as ``precedes(_:_:_:_:)`` (sort keys in turn, then the object ID), at the cost of one byte
    /// comparison instead of a comparison per key. The fetched-results controller's index searches with
    /// them.
    ///
    /// Each key is its storage class (NULL, number, text, blob — SQLite's order), then: numbers as an
    /// order-preserving 8-byte double, integers followed by their exact value (columns hold one kind, so
    /// integers and doubles never meet); text and blobs as their bytes with 0x00 escaped and a 0x00 0x00
    /// terminator, so that a prefix sorts first. Descending keys have their bytes inverted.
    func orderBytes(_ keys: [AttributeValue], _ id: ManagedObjectID) -> [UInt8] {
        // Copied into an array of exactly its size (a controller keeps a million of these: room for escapes
        // that did not happen would cost megabytes).
        withOrderBytes(keys, id) { Array($0) }
    }

    /// Whether `order` is what ``orderBytes(_:_:)`` makes of `keys` and `id` — without making an array.
    func orderBytes(
        _ order: [UInt8], match keys: some Collection<AttributeValue>, _ id: ManagedObjectID
    ) -> Bool {
        withOrderBytes(keys, id) { made in
            order.withUnsafeBufferPointer { compareBytes(made, $0) == 0 }
        }
    }

    /// Calls `body` with the order bytes of `keys` and `id`, written into scratch memory.
    private func withOrderBytes<Result>(
        _ keys: some Collection<AttributeValue>, _ id: ManagedObjectID, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        var entityName = id.entityName
        var storeIdentifier = tieBreaksByStore ? id.storeIdentifier : ""
        // At most: every text byte escaped, plus its class byte and terminator; 17 bytes for an integer.
        var capacity = 1 + 8 + 2 * entityName.utf8.count + 2 + 2 * storeIdentifier.utf8.count + 2
        for key in keys { capacity += Self.maximumEncodedCount(of: key) }
        // Written into scratch memory of the most it can take.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer -> Result in
            guard let base = buffer.baseAddress else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
            var writer = OrderByteWriter(base: base)
            for (index, key) in keys.enumerated() {
                let start = writer.count
                writer.append(key)
                if index < ascending.count, !ascending[index] {
                    for offset in start..<writer.count { base[offset] = ~base[offset] }
                }
            }
            // The tie-break that ends every row's bytes: the object ID; rows of different stores may share a
            // key and an entity, so the store breaks that tie (empty when temporary).
            writer.append(byte: id.isTemporaryID ? 1 : 0)
            writer.append(integer: id.key)
            entityName.withUTF8 { writer.appendEscaped($0) }
            if tieBreaksByStore { storeIdentifier.withUTF8 { writer.appendEscaped($0) } }
            return body(UnsafeBufferPointer(start: base, count: writer.count))
        }
    }

    /// `order` (bytes made for the ID `old`) with the same keys and the ID `new` — what a result placed
    /// under a temporary ID is keyed by once that ID becomes permanent.
    func replacingID(in order: [UInt8], old: ManagedObjectID, new: ManagedObjectID) -> [UInt8] {
        let oldTail = orderBytes([], old)
        return Array(order.prefix(max(order.count - oldTail.count, 0))) + orderBytes([], new)
    }

    /// The most bytes ``OrderByteWriter/append(_:)`` writes for `value`.
    private static func maximumEncodedCount(of value: AttributeValue) -> Int {
        switch value {
        case .null: 1
        case .integer: 17
        case .double, .decimal, .boolean, .date: 9
        case .string(let text): 3 + 2 * text.utf8.count
        case .uri(let url): 3 + 2 * url.absoluteString.utf8.count
        case .binary(let data): 3 + 2 * data.count
        case .uuid: 3 + 2 * 16
        }
    }

    /// Compares two rows' order bytes: negative, zero or positive.
    static func compare(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        lhs.withUnsafeBufferPointer { left in rhs.withUnsafeBufferPointer { right in compareBytes(left, right) } }
    }
}

/// Writes order bytes through a pointer into scratch memory sized beforehand (see
/// ``RowOrdering/orderBytes(_:_:)``): no capacity check per byte.
private struct OrderByteWriter {
    let base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    init(base: UnsafeMutablePointer<UInt8>) { self.base = base }

    mutating func append(byte: UInt8) {
        base[count] = byte
        count += 1
    }

    /// A key: its storage class, then numbers as an order-preserving double (integers also exactly), text
    /// and blobs escaped.
    mutating func append(_ value: AttributeValue) {
        append(byte: UInt8(value.storageClassRank))
        switch value {
        case .null:
            break
        case .integer(let number):
            append(double: Double(number))
            append(integer: number)
        case .double, .decimal, .boolean, .date:
            append(double: value.numericValue)
        case .string(var text):
            text.withUTF8 { appendEscaped($0) }
        case .uri(let url):
            var text = url.absoluteString
            text.withUTF8 { appendEscaped($0) }
        case .binary, .uuid:
            value.sqlBytes.withUnsafeBufferPointer { appendEscaped($0) }
        }
    }

    mutating func append(double: Double) {
        let value = double == 0 ? 0 : double  // -0 and 0 are equal
        let bits = value.bitPattern
        append(bigEndian: bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63))
    }

    mutating func append(integer: Int64) {
        append(bigEndian: UInt64(bitPattern: integer) ^ (1 << 63))
    }

    private mutating func append(bigEndian value: UInt64) {
        UnsafeMutableRawPointer(base + count).storeBytes(of: value.bigEndian, as: UInt64.self)
        count += 8
    }

    /// Bytes with 0x00 escaped as 0x00 0xFF, then the terminator 0x00 0x00 (so that a prefix sorts first).
    mutating func appendEscaped(_ source: UnsafeBufferPointer<UInt8>) {
        for byte in source {
            base[count] = byte
            count += 1
            if byte == 0 {
                base[count] = 0xFF
                count += 1
            }
        }
        base[count] = 0
        base[count + 1] = 0
        count += 2
    }
}
