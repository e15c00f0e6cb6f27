import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A sliding window over a file's bytes, read in chunks: the scanners parse inside the window, the reader
/// drops what they have consumed and reads more when a row does not fit yet. Memory is the window (about one
/// chunk plus the longest row), whatever the file's size.
final class ChunkedInput {
    /// The window: bytes read and not yet dropped.
    private(set) var storage: [UInt8] = []
    /// The index in `storage` of the first byte not consumed yet.
    private(set) var start = 0
    /// The file offset of `storage[0]`.
    private(set) var base = 0
    /// Whether the whole input has been read (the window holds its end).
    private(set) var isAtEnd = false
    /// The file size when known.
    let size: Int?
    private let descriptor: Int32?
    private let path: String
    private let chunkSize: Int
    /// For bytes in memory read in chunks (tests of chunk boundaries): the bytes not handed out yet.
    private var pending: ArraySlice<UInt8> = []

    /// Opens the file at `url`, and reads its first chunk.
    init(url: URL, chunkSize: Int) throws(ImportReadError) {
        path = url.path
        self.chunkSize = max(1, chunkSize)
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else {
            throw Self.unreadable("cannot read \(url.path): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            close(descriptor)
            throw Self.unreadable("cannot read \(url.path): it is a directory")
        }
        self.descriptor = descriptor
        size = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : nil
        try readMore()
    }

    /// A window over bytes already in memory: all at once, or `chunkSize` bytes at a time as a file would be
    /// read (to test chunk boundaries without files).
    init(bytes: [UInt8], chunkSize: Int? = nil) {
        size = bytes.count
        descriptor = nil
        path = "(memory)"
        self.chunkSize = max(1, chunkSize ?? bytes.count)
        if let chunkSize {
            pending = bytes[...]
            storage = Array(pending.prefix(max(1, chunkSize)))
            pending = pending.dropFirst(storage.count)
            isAtEnd = pending.isEmpty
        } else {
            storage = bytes
            isAtEnd = true
        }
    }

    deinit {
        if let descriptor { close(descriptor) }
    }

    private static func unreadable(_ message: String) -> ImportReadError {
        ImportReadError(kind: .unreadable, message: message, line: 0, column: 0, byteOffset: 0)
    }

    /// The file offset of the next byte to consume.
    var offset: Int { base + start }

    /// Bytes read from the file so far.
    var bytesRead: Int { base + storage.count }

    /// Marks the bytes before `index` (an index into `storage`) as consumed.
    func consume(upTo index: Int) {
        start = index
    }

    /// Drops the consumed bytes and appends the next chunk (at least as much as the window holds, so that a
    /// long row takes a logarithmic number of reads); sets ``isAtEnd`` at the end of the file.
    func readMore() throws(ImportReadError) {
        guard !isAtEnd else { return }
        if start > 0 {
            storage.removeSubrange(0..<start)
            base += start
            start = 0
        }
        let wanted = max(chunkSize, storage.count)
        guard let descriptor else {
            storage.append(contentsOf: pending.prefix(wanted))
            pending = pending.dropFirst(wanted)
            isAtEnd = pending.isEmpty
            return
        }
        let oldCount = storage.count
        storage.append(contentsOf: repeatElement(0, count: wanted))
        var filled = 0
        var failure: Int32 = 0
        storage.withUnsafeMutableBufferPointer { buffer in
            guard let address = buffer.baseAddress else { return }
            while filled < wanted {
                let count = read(descriptor, address + oldCount + filled, wanted - filled)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if count == 0 { break }
                filled += count
            }
        }
        storage.removeLast(wanted - filled)
        if failure != 0 { throw Self.unreadable("cannot read \(path): \(String(cString: strerror(failure)))") }
        if filled < wanted { isAtEnd = true }
    }
}
