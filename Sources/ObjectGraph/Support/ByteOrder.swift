import Foundation

/// Compares two byte buffers lexicographically, a prefix first (SQLite's BINARY collation): negative,
/// zero or positive.
func compareBytes(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Int {
    let count = min(lhs.count, rhs.count)
    if count > 0, let left = lhs.baseAddress, let right = rhs.baseAddress {
        let order = memcmp(left, right, count)
        if order != 0 { return order < 0 ? -1 : 1 }
    }
    return lhs.count < rhs.count ? -1 : (lhs.count == rhs.count ? 0 : 1)
}
