import Testing
@testable import ObjectGraph
import TestSupport

/// The changed-property bits must behave exactly as a set of integers, inline and beyond 64.
@Suite struct IndexBitsTests {
    @Test func behavesLikeASetOfIntegers() {
        var random = SeededRandom(seed: 11)
        for _ in 0..<200 {
            var bits = IndexBits()
            var oracle = Set<Int>()
            for _ in 0..<Int(random.next() % 40) {
                let index = Int(random.next() % 200)
                if random.next() % 3 == 0 {
                    bits.remove(index)
                    oracle.remove(index)
                } else {
                    bits.insert(index)
                    oracle.insert(index)
                }
            }
            #expect(Array(bits) == oracle.sorted())
            #expect(bits.count == oracle.count)
            #expect(bits.isEmpty == oracle.isEmpty)
            for probe in 0..<210 { #expect(bits.contains(probe) == oracle.contains(probe)) }
            #expect(bits == IndexBits(oracle))
        }
        #expect(!IndexBits([3]).contains(-1))
        #expect(IndexBits([64, 0]).sorted() == [0, 64])
    }
}
