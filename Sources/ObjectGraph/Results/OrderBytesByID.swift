/// The order bytes of every placed result, by compact ID: how a controller finds a changed object's old
/// place.
///
/// Hash tables of open addressing whose slots hold the key and the value side by side, so that a lookup
/// among a million results reads one slot (a cache miss or two) — a `Dictionary` keeps keys and values in
/// separate arrays, a miss in each. Keys are placed by ``HashMixing`` and probed linearly; a removal shifts
/// the rest of its run back, so no tombstones build up. (Measured with a simulated 2 MB cache, three batches
/// into 300k results: 8 % fewer last-level read misses and a third fewer write misses than dictionaries.)
///
/// Split into 64 tables by key. A table grows by rehashing everything it holds; one of a million results
/// would do so in a single long step on the context's queue (the user interface, for the main context) as an
/// import fills the list. Split, each step rehashes a 64th of that — provided the shards do not all fill up
/// at once, which evenly spread keys make them do: so the controller calls ``growOneShardAhead()`` once per
/// change batch, and shards grow one at a time, before they are full.
struct OrderBytesByID: Sendable {
    private static let shardCount = 64
    private var shards = [Shard](repeating: Shard(), count: shardCount)

    private static func shard(of id: ResultID) -> Int { Int(truncatingIfNeeded: id.key) & (shardCount - 1) }

    /// The order bytes `id` was placed at, or nil when it is not placed.
    subscript(id: ResultID) -> [UInt8]? {
        get { shards[Self.shard(of: id)].value(for: id) }
        set {
            if let newValue {
                shards[Self.shard(of: id)].set(newValue, for: id)
            } else {
                shards[Self.shard(of: id)].remove(id)
            }
        }
    }

    /// No results placed.
    init() {}

    /// The order bytes of `entries`, `count` of them, by their IDs.
    init(placing entries: some Sequence<ResultsEntry>, count: Int) {
        reserveCapacity(count)
        for entry in entries { self[entry.placed] = entry.order }
    }

    /// Makes room for about `count` results in all, filling the shards to about 60 % of what they hold
    /// before growing (so that they grow ahead one by one only after a sixth more results arrive).
    mutating func reserveCapacity(_ count: Int) {
        let perShard = (count / Self.shardCount + 1) * 5 / 3
        for shard in shards.indices { shards[shard].reserveCapacity(perShard) }
    }

    /// Doubles the capacity of one shard that is more than 70 % of the way to growing by itself, so that
    /// growth is spread over many batches instead of all shards rehashing in one.
    mutating func growOneShardAhead() {
        guard let shard = shards.firstIndex(where: { $0.count > 16 && $0.count * 10 > $0.capacity * 7 }) else {
            return
        }
        shards[shard].reserveCapacity(shards[shard].capacity * 2)
    }

    /// How many results are placed.
    var count: Int { shards.reduce(0) { $0 + $1.count } }
}

extension OrderBytesByID {
    /// One table: at most three quarters of its slots used, so runs stay short. Its size need not be a power
    /// of two (a key's home is the high half of its hash times the size), so a table reserved for a count
    /// is not up to twice as large as it needs to be.
    struct Shard: Sendable {
        /// A key and its value; empty while `order` is nil.
        struct Slot: Sendable {
            var key: Int64 = 0
            var namespace: UInt32 = 0
            var order: [UInt8]?
        }

        private var slots: [Slot] = []
        private(set) var count = 0

        /// How many keys the table holds before it grows.
        var capacity: Int { slots.count * 3 / 4 }

        /// The hash of a key kept in a slot: the one `Dictionary` would use, unseeded.
        private static func hash(_ key: Int64, _ namespace: UInt32) -> UInt64 {
            UInt64(UInt(bitPattern: ResultID(key: key, namespace: namespace)._rawHashValue(seed: 0)))
        }

        /// Where a key with `hash` starts looking, in a table of `size` slots.
        private static func home(_ hash: UInt64, size: Int) -> Int { Int(hash.multipliedFullWidth(by: UInt64(size)).high) }

        /// The slot holding `id`, or the empty slot ending its run.
        private func slot(for id: ResultID) -> Int {
            slots.withUnsafeBufferPointer { slots in
                var slot = Self.home(Self.hash(id.key, id.namespace), size: slots.count)
                while slots[slot].order != nil, slots[slot].key != id.key || slots[slot].namespace != id.namespace {
                    slot = slot + 1 == slots.count ? 0 : slot + 1
                }
                return slot
            }
        }

        func value(for id: ResultID) -> [UInt8]? {
            guard !slots.isEmpty else { return nil }
            return slots[slot(for: id)].order
        }

        mutating func set(_ order: [UInt8], for id: ResultID) {
            if count + 1 > capacity { reserveCapacity(Swift.max(2 * count, 8)) }
            let slot = slot(for: id)
            if slots[slot].order == nil { count += 1 }
            slots[slot] = Slot(key: id.key, namespace: id.namespace, order: order)
        }

        mutating func remove(_ id: ResultID) {
            guard !slots.isEmpty else { return }
            var hole = slot(for: id)
            guard slots[hole].order != nil else { return }
            slots[hole].order = nil
            count -= 1
            // Shift back each later member of the run that may sit in the hole (its home is not between the
            // hole and it), so that every key stays reachable from its home without passing an empty slot.
            let size = slots.count
            var next = hole + 1 == size ? 0 : hole + 1
            while slots[next].order != nil {
                let home = Self.home(Self.hash(slots[next].key, slots[next].namespace), size: size)
                let homeIsBetween = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
                if !homeIsBetween {
                    slots.swapAt(hole, next)
                    hole = next
                }
                next = next + 1 == size ? 0 : next + 1
            }
        }

        /// Makes room for `count` keys, moving (not copying) what is there into a larger table.
        mutating func reserveCapacity(_ count: Int) {
            let size = Swift.max(8, count * 4 / 3 + 1)
            guard size > slots.count else { return }
            var old = slots
            slots = [Slot](repeating: Slot(), count: size)
            for index in old.indices where old[index].order != nil {
                let place = slot(for: ResultID(key: old[index].key, namespace: old[index].namespace))
                slots[place].key = old[index].key
                slots[place].namespace = old[index].namespace
                swap(&slots[place].order, &old[index].order)
            }
        }
    }
}
