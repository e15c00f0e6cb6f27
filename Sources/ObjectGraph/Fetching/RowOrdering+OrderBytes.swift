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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 + keys.count * 12)
        for (index, key) in keys.enumerated() {
            let start = bytes.count
            Self.append(key, to: &bytes)
            if index < ascending.count, !ascending[index] {
                for offset in start..<bytes.count { bytes[offset] = ~bytes[offset] }
            }
        }
        appendID(id, to: &bytes)
        return bytes
    }

    /// The tie-break that ends every row's bytes: the object ID.
    private func appendID(_ id: ManagedObjectID, to bytes: inout [UInt8]) {
        bytes.append(id.isTemporaryID ? 1 : 0)
        Self.append(integer: id.key, to: &bytes)
        var name = id.entityName
        name.withUTF8 { Self.appendEscaped($0, to: &bytes) }
        // Rows of different stores may share a key and an entity: the store breaks the tie (empty when temporary).
        guard tieBreaksByStore else { return }
        var store = id.storeIdentifier
        store.withUTF8 { Self.appendEscaped($0, to: &bytes) }
    }

    /// `order` (bytes made for the ID `old`) with the same keys and the ID `new` — what a result placed
    /// under a temporary ID is keyed by once that ID becomes permanent.
    func replacingID(in order: [UInt8], old: ManagedObjectID, new: ManagedObjectID) -> [UInt8] {
        var oldTail: [UInt8] = []
        appendID(old, to: &oldTail)
        var bytes = Array(order.prefix(max(order.count - oldTail.count, 0)))
        appendID(new, to: &bytes)
        return bytes
    }

    private static func append(_ value: AttributeValue, to bytes: inout [UInt8]) {
        bytes.append(UInt8(value.storageClassRank))
        switch value {
        case .null:
            break
        case .integer(let number):
            append(double: Double(number), to: &bytes)
            append(integer: number, to: &bytes)
        case .double, .decimal, .boolean, .date:
            append(double: value.numericValue, to: &bytes)
        case .string(var text):
            text.withUTF8 { appendEscaped($0, to: &bytes) }
        case .uri(let url):
            appendEscaped(url.absoluteString.utf8, to: &bytes)
        case .binary, .uuid:
            appendEscaped(value.sqlBytes, to: &bytes)
        }
    }

    private static func append(double: Double, to bytes: inout [UInt8]) {
        let value = double == 0 ? 0 : double  // -0 and 0 are equal
        let bits = value.bitPattern
        let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: ordered >> UInt64(shift))) }
    }

    private static func append(integer: Int64, to bytes: inout [UInt8]) {
        let ordered = UInt64(bitPattern: integer) ^ (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: ordered >> UInt64(shift))) }
    }

    private static func appendEscaped<Bytes: Sequence<UInt8>>(_ source: Bytes, to bytes: inout [UInt8]) {
        for byte in source {
            bytes.append(byte)
            if byte == 0 { bytes.append(0xFF) }
        }
        bytes.append(0)
        bytes.append(0)
    }

    /// Compares two rows' order bytes: negative, zero or positive.
    static func compare(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        lhs.withUnsafeBufferPointer { left in rhs.withUnsafeBufferPointer { right in compareBytes(left, right) } }
    }
}
