import Foundation

/// The avatars of generated people: a few people get one, derived deterministically from each record (so
/// `--seed` still fixes everything). Most avatars are small and stay in the store's row; about one in four is
/// larger than the store's external-storage threshold (100 KiB) and goes to a file in
/// `.<store>_SUPPORT/_EXTERNAL_DATA` (`Person.avatar` allows external binary storage).
///
/// An avatar is a real picture: a binary PPM (`P6`) of a colour gradient, square, sized to the byte count
/// chosen for the person.
public enum GeneratedAvatars {
    /// One person in this many gets an avatar.
    public static let oneIn = 64
    /// The sizes, in bytes, of small avatars (kept in the row) and of large ones (kept in a file).
    public static let smallSizes = 2_000..<16_000
    /// See ``smallSizes``.
    public static let largeSizes = 110_000..<190_000

    /// The approximate size of the avatar of `record`, in bytes; nil when the person has none.
    public static func size(for record: PersonRecord) -> Int? {
        let hash = hash(of: record)
        guard hash % UInt64(oneIn) == 0 else { return nil }
        let sizes = (hash >> 8) % 4 == 0 ? largeSizes : smallSizes
        return sizes.lowerBound + Int((hash >> 16) % UInt64(sizes.count))
    }

    /// The avatar of `record`, or nil when the person has none.
    public static func avatar(for record: PersonRecord) -> Data? {
        guard let size = size(for: record) else { return nil }
        let hash = hash(of: record)
        let side = max(1, Int((Double(size) / 3).squareRoot()))
        var data = Data("P6\n\(side) \(side)\n255\n".utf8)
        data.reserveCapacity(data.count + side * side * 3)
        let red = UInt8(truncatingIfNeeded: hash >> 24)
        let green = UInt8(truncatingIfNeeded: hash >> 32)
        let blue = UInt8(truncatingIfNeeded: hash >> 40)
        var pixels = [UInt8](repeating: 0, count: side * side * 3)
        for y in 0..<side {
            for x in 0..<side {
                let offset = (y * side + x) * 3
                pixels[offset] = red &+ UInt8(truncatingIfNeeded: x)
                pixels[offset + 1] = green &+ UInt8(truncatingIfNeeded: y)
                pixels[offset + 2] = blue &+ UInt8(truncatingIfNeeded: x ^ y)
            }
        }
        data.append(contentsOf: pixels)
        return data
    }

    /// Gives each of `people` (paired with their `records`) its generated avatar, if any.
    public static func attach(_ people: [Person], records: [PersonRecord]) {
        for (person, record) in zip(people, records) {
            if let avatar = avatar(for: record) { person.avatar = avatar }
        }
    }

    /// FNV-1a of the e-mail address (unique per generated person), mixed so that it is independent of the hash
    /// ``GeneratedAffiliations`` uses.
    private static func hash(of record: PersonRecord) -> UInt64 {
        var hash: UInt64 = 0x84222325_cbf29ce4
        for byte in record.email.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash ^= hash >> 33
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        return hash
    }
}
