/// A set of small non-negative integers (attribute or relationship positions) as bits: what an object
/// records of its changed properties on every `setValue`, so inserting must cost a few instructions rather
/// than a hash. Positions below 64 live inline; larger ones (entities with very many properties) in extra
/// words. Iterates in ascending order.
struct IndexBits: Sequence, Hashable, Sendable, ExpressibleByArrayLiteral {
    private var low: UInt64 = 0
    private var high: [UInt64] = []

    init() {}

    init<Indexes: Sequence>(_ indexes: Indexes) where Indexes.Element == Int {
        for index in indexes { insert(index) }
    }

    init(arrayLiteral elements: Int...) { self.init(elements) }

    var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    var count: Int { low.nonzeroBitCount + high.reduce(0) { $0 + $1.nonzeroBitCount } }

    func contains(_ index: Int) -> Bool {
        guard index >= 0 else { return false }
        if index < 64 { return low & (1 << UInt64(index)) != 0 }
        let word = index / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(index % 64)) != 0
    }

    /// Adds `index`; negative indexes are ignored.
    mutating func insert(_ index: Int) {
        guard index >= 0 else { return }
        if index < 64 {
            low |= 1 << UInt64(index)
            return
        }
        let word = index / 64 - 1
        if word >= high.count { high.append(contentsOf: repeatElement(0, count: word - high.count + 1)) }
        high[word] |= 1 << UInt64(index % 64)
    }

    mutating func remove(_ index: Int) {
        guard index >= 0 else { return }
        if index < 64 {
            low &= ~(1 << UInt64(index))
            return
        }
        let word = index / 64 - 1
        if word < high.count { high[word] &= ~(1 << UInt64(index % 64)) }
    }

    static func == (lhs: IndexBits, rhs: IndexBits) -> Bool { lhs.sorted() == rhs.sorted() }

    func hash(into hasher: inout Hasher) {
        for index in self { hasher.combine(index) }
    }

    func makeIterator() -> Iterator { Iterator(low: low, high: high) }

    /// Visits the set bits word by word, lowest first.
    struct Iterator: IteratorProtocol {
        let high: [UInt64]
        /// 0 for the inline word, then 1 + the index into `high`.
        var word = 0
        var remaining: UInt64

        init(low: UInt64, high: [UInt64]) {
            self.high = high
            remaining = low
        }

        mutating func next() -> Int? {
            while remaining == 0 {
                guard word < high.count else { return nil }
                remaining = high[word]
                word += 1
            }
            let bit = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            return word * 64 + bit
        }
    }
}
