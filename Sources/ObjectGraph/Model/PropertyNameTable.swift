/// Finds a property's position from its name by comparing UTF-8 bytes, without `Hasher`: the lookup that
/// every `setValue(_:forKey:)` and `value(forKey:)` makes, where a `[String: Int]` lookup cost a SipHash of
/// the key (about 380 instructions) per call.
///
/// Names are kept as bytes in one buffer; an open-addressing table over a cheap FNV-1a hash of the bytes
/// points into it. A hit means the key has exactly a property name's bytes, so `String ==` would hold too,
/// and the table answers what the dictionary it was built from answers for that name. A miss proves
/// nothing — `String ==` also equates canonically equivalent spellings (composed and decomposed `é`) — so
/// callers fall back to the dictionary, and every answer is the dictionary's answer.
struct PropertyNameTable: Sendable {
    /// One name: where its bytes are in ``bytes`` and the position to answer.
    private struct Entry: Sendable {
        var hash: UInt32
        var start: Int32
        var count: Int32
        var position: Int32
    }

    /// Entries by hash slot; `position` −1 marks an empty slot.
    private let slots: [Entry]
    private let mask: Int
    private let bytes: [UInt8]

    /// A table answering, for each name of `names`, `positions[name]` — the dictionary it stands in for.
    init(_ positions: [String: Int]) {
        var size = 8
        while size < positions.count * 2 { size *= 2 }
        var slots = [Entry](repeating: Entry(hash: 0, start: 0, count: 0, position: -1), count: size)
        var bytes: [UInt8] = []
        // In a fixed order, so that a table is the same however the dictionary iterates.
        for (name, position) in positions.sorted(by: { $0.value < $1.value || ($0.value == $1.value && $0.key < $1.key) }) {
            let utf8 = Array(name.utf8)
            guard utf8.count < Int(Int32.max), bytes.count + utf8.count < Int(Int32.max) else { continue }
            let hash = Self.hash(utf8)
            var slot = Int(hash) & (size - 1)
            while slots[slot].position >= 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Entry(hash: hash, start: Int32(bytes.count), count: Int32(utf8.count), position: Int32(position))
            bytes += utf8
        }
        self.slots = slots
        self.mask = size - 1
        self.bytes = bytes
    }

    /// The position stored for a name with exactly the bytes of `name`; nil when no name has them (which
    /// does not mean that the dictionary has no equal name: see the type's notes).
    @inline(__always)
    func position(ofExactly name: String) -> Int? {
        name.utf8.withContiguousStorageIfAvailable { key in position(ofBytes: key) } ?? nil
    }

    private func position(ofBytes key: UnsafeBufferPointer<UInt8>) -> Int? {
        let hash = Self.hash(key)
        return slots.withUnsafeBufferPointer { slots in
            bytes.withUnsafeBufferPointer { bytes in
                var slot = Int(hash) & mask
                while true {
                    let entry = slots[slot]
                    if entry.position < 0 { return nil }
                    if entry.hash == hash, Int(entry.count) == key.count,
                        Self.equal(key, UnsafeBufferPointer(rebasing: bytes[Int(entry.start)..<Int(entry.start + entry.count)]))
                    {
                        return Int(entry.position)
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    @inline(__always)
    private static func equal(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<lhs.count where lhs[index] != rhs[index] { return false }
        return true
    }

    /// FNV-1a over the bytes, folded to 32 bits: names are short, so this is a handful of instructions per byte.
    @inline(__always)
    private static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash
    }
}
