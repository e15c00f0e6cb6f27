/// The order bytes of every placed result, by compact ID: how a controller finds a changed object's old
/// place.
///
/// Split into 64 dictionaries by key. A dictionary grows by rehashing everything it holds; one of a
/// million results would do so in a single quarter-second step on the context's queue (the user interface,
/// for the main context) as an import fills the list. Split, each step rehashes a 64th of that.
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

    /// How many results are placed.
    var count: Int { shards.reduce(0) { $0 + $1.count } }
}
