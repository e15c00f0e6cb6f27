/// Memory for parameter bytes that SQLite reads in place (`SQLITE_STATIC`) instead of copying.
///
/// Binding text with `SQLITE_TRANSIENT` makes SQLite allocate and copy every value, and free it again: for
/// a row of short strings that is most of the cost of binding. Copying the bytes into one reused buffer and
/// binding them static costs a `memcpy`. The bytes must stay where they are for as long as any parameter
/// points at them, so buffers only grow by adding new ones (an outgrown buffer is kept, not moved), and
/// everything is forgotten only in ``recycle()``, which its statement calls after clearing its bindings.
final class BindingScratch {
    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    private var used = 0
    /// Outgrown buffers that parameters may still point into, freed at the next ``recycle()``.
    private var retired: [UnsafeMutableRawPointer] = []

    init(capacity: Int = 1024) {
        self.capacity = max(capacity, 16)
        buffer = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit {
        buffer.deallocate()
        for old in retired { old.deallocate() }
    }

    /// Frees outgrown buffers and starts filling the current one from its start. Only call it once no
    /// parameter points into the scratch any more.
    func recycle() {
        used = 0
        guard !retired.isEmpty else { return }
        for old in retired { old.deallocate() }
        retired.removeAll(keepingCapacity: true)
    }

    /// Copies `bytes` in and returns where they now are: valid until the next ``recycle()`` or `deinit`.
    /// Never NULL, also for no bytes (SQLite would bind a NULL pointer as SQL NULL).
    func store(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer {
        if used + bytes.count > capacity {
            retired.append(buffer)
            capacity = max(capacity * 2, bytes.count)
            buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
            used = 0
        }
        let start = buffer + used
        if let base = bytes.baseAddress, !bytes.isEmpty { start.copyMemory(from: base, byteCount: bytes.count) }
        used += bytes.count
        return UnsafeRawPointer(start)
    }
}
