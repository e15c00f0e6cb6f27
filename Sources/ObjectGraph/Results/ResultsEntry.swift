/// One fetched object as the controller keeps it: its compact ID plus the place (order bytes) and section
/// it was placed by, so the controller can find it again after its values change — without holding the
/// object itself, nor its sort keys (the order bytes encode them).
struct ResultsEntry: Sendable {
    /// The object's ID, in the controller's compact form (see ``IDNamespaces``).
    private(set) var placed: ResultID
    /// The section's name, interned in the controller's ``SectionNames``.
    let section: Int32
    /// The entry's place as bytes (``RowOrdering/orderBytes(_:_:)``): what the index compares.
    private(set) var order: [UInt8]

    /// An entry for the object `id` (whose compact form is `placed`) with sort keys `keys`.
    init(id: ManagedObjectID, placed: ResultID, keys: [AttributeValue], section: Int32, ordering: RowOrdering) {
        self.init(placed: placed, order: ordering.orderBytes(keys, id), section: section)
    }

    /// The entry for a keyed row: `values` holds the row's sort keys (one per criterion), then its section
    /// naming's keys. Section names and ID namespaces are numbered in `names` and `namespaces`.
    init(
        row id: ManagedObjectID, values: [AttributeValue], criteria: [SortCriterion], naming: SectionNaming?,
        ordering: RowOrdering, names: inout SectionNames, namespaces: inout IDNamespaces
    ) {
        let sortKeys = zip(criteria, values).map { $0.sortKey(for: $1) }
        let section = names.number(for: naming?.name(values: values[criteria.count...]) ?? "")
        self.init(id: id, placed: namespaces.resultID(for: id), keys: sortKeys, section: section, ordering: ordering)
    }

    /// An entry whose order bytes are known (read from a section cache, or re-keyed).
    init(placed: ResultID, order: [UInt8], section: Int32) {
        self.placed = placed
        self.section = section
        self.order = order
    }

    /// Eight bytes of `order` from `start`, big-endian, padded with zeros: comparing two such words orders
    /// the bytes as ``RowOrdering/compare(_:_:)`` does, or ties (then the whole bytes decide).
    static func prefix(of order: [UInt8], from start: Int = 0) -> UInt64 {
        order.withUnsafeBufferPointer { bytes in
            // Eight bytes there: one load. (Searching the index asks for a few of these per changed object.)
            if start >= 0, start + 8 <= bytes.count, let base = bytes.baseAddress {
                return UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self).bigEndian
            }
            var value: UInt64 = 0
            for offset in start..<(start + 8) {
                value = value << 8 | UInt64(offset >= 0 && offset < bytes.count ? bytes[offset] : 0)
            }
            return value
        }
    }

    /// How many leading bytes `lhs` and `rhs` share.
    static func sharedPrefixCount(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        lhs.withUnsafeBufferPointer { left in
            rhs.withUnsafeBufferPointer { right in
                var count = 0
                let limit = min(left.count, right.count)
                while count < limit, left[count] == right[count] { count += 1 }
                return count
            }
        }
    }
}
