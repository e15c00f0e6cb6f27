/// The order bytes of every placed result, by compact ID: how a controller finds a changed object's old
/// place.
///
/// Split into 64 dictionaries by key. A dictionary grows by rehashing everything it holds; one of a
/// million results would do so in a single quarter-second step on the context's queue (the user interface,
/// for the main context) as an import fills the list. Split, each step rehashes a 64th of that — provided
/// the shards do not all fill up at once, which evenly spread keys make them do: so the controller calls
/// ``growOneShardAhead()`` once per change batch, and shards grow one at a time, before they are full.
struct PlacedOrders: Sendable {
    private static let shardCount = 64
    private var shards = [[PlacedID: [UInt8]]](repeating: [:], count: shardCount)

    private static func shard(of id: PlacedID) -> Int { Int(truncatingIfNeeded: id.key) & (shardCount - 1) }

    /// The order bytes `id` was placed at, or nil when it is not placed.
    subscript(id: PlacedID) -> [UInt8]? {
        get { shards[Self.shard(of: id)][id] }
        set { shards[Self.shard(of: id)][id] = newValue }
    }

    /// Makes room for about `count` results in all.
    mutating func reserveCapacity(_ count: Int) {
        let perShard = count / Self.shardCount + 1
        for shard in shards.indices { shards[shard].reserveCapacity(perShard) }
    }

    /// Doubles the capacity of one shard that holds more than 70 % of what it can hold before it grows by
    /// itself, so that growth is spread over many batches instead of all shards rehashing in one.
    mutating func growOneShardAhead() {
        guard let shard = shards.firstIndex(where: { $0.count > 16 && $0.count * 10 > $0.capacity * 7 }) else {
            return
        }
        shards[shard].reserveCapacity(shards[shard].capacity * 2)
    }

    /// How many results are placed.
    var count: Int { shards.reduce(0) { $0 + $1.count } }
}
