import Foundation

/// Writes the section cache's compact binary form: variable-length counts, little-endian integers,
/// length-prefixed UTF-8 text and length-prefixed byte runs (order bytes).
struct CacheWriter {
    /// What was written. An array of bytes rather than `Data`: a million entries are tens of millions of
    /// one-byte appends, which `Data` makes several times dearer.
    private(set) var bytes: [UInt8] = []

    /// A writer with room for `capacity` bytes, so that a large cache is not copied as it grows.
    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func count(_ value: Int) {
        var remaining = UInt64(max(value, 0))
        repeat {
            var byte = UInt8(remaining & 0x7F)
            remaining >>= 7
            if remaining != 0 { byte |= 0x80 }
            bytes.append(byte)
        } while remaining != 0
    }

    mutating func integer(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Bytes as they are, after their length.
    mutating func byteRun(_ value: [UInt8]) {
        count(value.count)
        bytes.append(contentsOf: value)
    }

    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        count(utf8.count)
        bytes.append(contentsOf: utf8)
    }

    /// Replaces the file at `url` with `parts`, one after the other, through a temporary file in the same
    /// folder renamed over it: a reader finds the old file or the new one, never a part of one. Not flushed
    /// to disk — after a crash a cache may be torn, and its checksums then send the next fetch to the store.
    /// Returns false (and leaves the old file) when a step fails.
    static func replaceFile(at url: URL, with parts: [[UInt8]]) -> Bool {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent("." + url.lastPathComponent + ".tmp-" + UUID().uuidString)
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return false }
        var written = parts.allSatisfy { part in part.withUnsafeBytes { writeEveryByte($0, to: descriptor) } }
        written = close(descriptor) == 0 && written
        guard written, rename(temporary.path, url.path) == 0 else {
            unlink(temporary.path)
            return false
        }
        return true
    }
}

/// A 64-bit checksum of a cache's bytes, so that a file of the right size whose bytes were damaged is not
/// believed. Eight bytes per step (multiply and rotate), so checking a 35 MB cache takes a few milliseconds.
enum CacheChecksum {
    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
            hash = (hash << 31) | (hash >> 33)
            offset += 8
        }
        while offset < bytes.count {
            hash = (hash ^ UInt64(bytes[offset])) &* 0xC4CE_B9FE_1A85_EC53
            offset += 1
        }
        return hash ^ (hash >> 29)
    }

    static func of(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { of($0) } }

    static func of(_ data: Data) -> UInt64 { data.withUnsafeBytes { of($0) } }
}

/// Reads what ``CacheWriter`` wrote; every read returns nil on malformed or truncated input.
struct CacheReader {
    private let bytes: [UInt8]
    private var position = 0

    init(data: Data) { bytes = [UInt8](data) }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// `count` bytes of the file at `url` from `offset`, read straight into an array (a cache's body is tens
    /// of megabytes); nil when the file cannot be read or is shorter.
    static func bytes(of url: URL, at offset: UInt64, count: Int) -> [UInt8]? {
        guard count >= 0, offset <= UInt64(Int64.max) else { return nil }
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var complete = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                let read = pread(descriptor, buffer.baseAddress.map { $0 + done }, count - done,
                    off_t(offset) + off_t(done))
                if read < 0, errno == EINTR { continue }
                guard read > 0 else { break }
                done += read
            }
            initialized = done
            complete = done == count
        }
        return complete ? bytes : nil
    }

    var isAtEnd: Bool { position == bytes.count }

    /// Bytes not read yet.
    var remaining: Int { bytes.count - position }

    mutating func count() -> Int? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.count, shift < 63 {
            let byte = bytes[position]
            position += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result <= UInt64(Int.max) ? Int(result) : nil }
            shift += 7
        }
        return nil
    }

    mutating func integer() -> Int64? {
        guard bytes.count - position >= 8 else { return nil }
        var value: UInt64 = 0
        for offset in 0..<8 { value |= UInt64(bytes[position + offset]) << (8 * UInt64(offset)) }
        position += 8
        return Int64(bitPattern: value)
    }

    /// A length-prefixed run of bytes (see ``CacheWriter/byteRun(_:)``).
    mutating func byteRun() -> [UInt8]? {
        guard let length = count(), bytes.count - position >= length else { return nil }
        defer { position += length }
        return Array(bytes[position..<(position + length)])
    }

    mutating func string() -> String? {
        guard let length = count(), bytes.count - position >= length else { return nil }
        defer { position += length }
        return String(decoding: bytes[position..<(position + length)], as: UTF8.self)
    }

}
