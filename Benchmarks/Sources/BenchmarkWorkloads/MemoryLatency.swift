import Foundation

/// The machine's memory latency, measured in the same run as the controller: the physical limit of a batch
/// whose changed objects sit at random places among a million.
///
/// A change batch into a large controller is bound by reads of memory no cache holds (each changed object's
/// registration, values, placement and chunk are somewhere in hundreds of megabytes). What one such read
/// costs differs between machines, and on a shared virtual machine from hour to hour, so the report divides
/// the batch's time by it: the batch's cost in cold reads, a figure that moves with the code, not the host.
public enum MemoryLatency {
    /// Nanoseconds per read of a random cache line of a `megabytes` buffer.
    public struct Result: Sendable {
        /// Each read's address comes from the read before (a chain): nothing overlaps.
        public var dependent: Double
        /// Sixteen such chains interleaved: what reads cost when the processor can overlap them.
        public var overlapped: Double
    }

    /// Follows a random cycle through every cache line of a `megabytes` buffer, `reads` times.
    public static func measure(megabytes: Int = 512, reads: Int = 2_000_000) -> Result {
        let lineWords = 64 / MemoryLayout<Int>.stride
        let lines = max(megabytes, 1) * 1024 * 1024 / 64
        let buffer = UnsafeMutableBufferPointer<Int>.allocate(capacity: lines * lineWords)
        defer { buffer.deallocate() }
        // A random cyclic order of the lines (Sattolo's shuffle gives a single cycle through all of them):
        // each line holds the word offset of the next, so no read can start before the one before ends.
        var order = Array(0..<lines)
        var generator = PersonGenerator(seed: 0x5EED)
        for index in stride(from: lines - 1, to: 0, by: -1) { order.swapAt(index, generator.below(index)) }
        for (position, line) in order.enumerated() {
            buffer[line * lineWords] = order[(position + 1) % lines] * lineWords
        }
        var offset = order[0] * lineWords
        let dependentStart = Measure.now()
        for _ in 0..<reads { offset = buffer[offset] }
        let dependentEnd = Measure.now()
        let chainCount = 16
        var chains = (0..<chainCount).map { order[$0 * (lines / chainCount)] * lineWords }
        let overlappedStart = Measure.now()
        for _ in 0..<(reads / chainCount) {
            for chain in 0..<chainCount { chains[chain] = buffer[chains[chain]] }
        }
        let overlappedEnd = Measure.now()
        // (The chains' ends are used, so the reads cannot be optimised away.)
        if offset < 0 || chains.contains(where: { $0 < 0 }) { print("impossible offset") }
        return Result(dependent: Double(dependentEnd - dependentStart) / Double(reads),
            overlapped: Double(overlappedEnd - overlappedStart) / Double(reads / chainCount * chainCount))
    }
}
