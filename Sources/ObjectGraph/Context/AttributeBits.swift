/// A set of attribute indexes in one word, for what changed in an event: attributes 0 to 62 by their own
/// bit; the last bit stands for every attribute from 63 on, and for "not known" (``all``).
///
/// Not ``IndexBits``, which is exact at any size but carries an array for indexes from 64 on: this is noted
/// for every changed object of every event and intersected with a controller's keys, so it stays one word
/// with no reference to count, and only ever errs towards "may have changed".
struct AttributeBits: Equatable, Sendable {
    private(set) var rawValue: UInt64

    /// No attribute.
    static let none = AttributeBits(rawValue: 0)
    /// Every attribute (also what is noted when the changed attributes are not known).
    static let all = AttributeBits(rawValue: .max)

    private init(rawValue: UInt64) { self.rawValue = rawValue }

    /// The attribute at `index` (from 63 on, the shared last bit).
    init(index: Int) {
        rawValue = index >= 0 && index < 63 ? 1 << UInt64(index) : 1 << 63
    }

    /// The attributes at `indexes`.
    init(indexes: some Sequence<Int>) {
        rawValue = 0
        for index in indexes { formUnion(AttributeBits(index: index)) }
    }

    mutating func formUnion(_ other: AttributeBits) { rawValue |= other.rawValue }

    /// Whether the two sets may share an attribute.
    func intersects(_ other: AttributeBits) -> Bool { rawValue & other.rawValue != 0 }
}
