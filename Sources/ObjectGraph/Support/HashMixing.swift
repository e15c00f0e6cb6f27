/// The hash of an object ID's key for the standard library's hash tables, in a few instructions.
///
/// `Dictionary` and `Set` place a key by `_rawHashValue(seed:)`, whose default runs the general-purpose
/// (SipHash) hasher: a hundred-odd instructions per lookup, for the context's registry, the row cache and a
/// fetched-results controller's tables, each probed for every object a merge touches. IDs are row keys —
/// mostly consecutive integers, chosen by the store, not by whoever sends data — so the bijective 64-bit
/// finalizer of SplitMix64 (every input bit affects every output bit) spreads them as well. The table's
/// seed is mixed in first, so that two tables of different seeds order the same keys differently, as the
/// standard library expects.
enum HashMixing {
    @inline(__always)
    static func mix(_ key: Int64, seed: Int) -> Int {
        var bits = UInt64(bitPattern: key) &+ UInt64(bitPattern: Int64(seed)) &* 0x9E37_79B9_7F4A_7C15
        bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
        bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(bitPattern: UInt(bits ^ (bits >> 31)))
    }
}
