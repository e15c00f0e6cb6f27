import Foundation
import Testing
import TestSupport
@testable import ObjectGraph

/// Our binary property-list reader: what our writer writes reads back, and the inputs that make Foundation's
/// reader trap on Linux (a set of dictionaries, an array as a dictionary key) or loop are errors.
@Suite struct BinaryPropertyListReaderTests {
    static func value(_ plist: PropertyListValue) -> KeyedArchive.Value {
        switch plist {
        case .string(let text): .string(text)
        case .integer(let number): .integer(number)
        case .real(let number): .real(number)
        case .boolean(let flag): .boolean(flag)
        case .data(let bytes): .data(bytes)
        case .date(let date): .date(date)
        case .uid(let index): .reference(Int(index))
        case .array(let members): .array(members.map(value))
        case .dictionary(let entries): .dictionary(Dictionary(entries.map { ($0.0, value($0.1)) }) { first, _ in first })
        }
    }

    static func random(_ random: inout SeededRandom, depth: Int) -> PropertyListValue {
        switch Int.random(in: 0..<(depth > 0 ? 9 : 7), using: &random) {
        case 0: return .string(["", "abc", "Zoë", "日本", "🙂", String(repeating: "x", count: 20)].randomElement(using: &random) ?? "")
        case 1: return .integer(Int64.random(in: Int64.min...Int64.max, using: &random) >> Int64.random(in: 0...63, using: &random))
        case 2: return .real([0.5, -2.25, 1e300, -0.0].randomElement(using: &random) ?? 0)
        case 3: return .boolean(Bool.random(using: &random))
        case 4: return .data(Data((0..<Int.random(in: 0...30, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
        case 5: return .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -9_999...9_999, using: &random))))
        case 6: return .uid(UInt32.random(in: 0...70_000, using: &random))
        case 7: return .array((0..<Int.random(in: 0...16, using: &random)).map { _ in Self.random(&random, depth: depth - 1) })
        default:
            return .dictionary((0..<Int.random(in: 0...16, using: &random)).map { ("k\($0)", Self.random(&random, depth: depth - 1)) })
        }
    }

    @Test func whatOurWriterWritesReadsBack() throws {
        var generator = SeededRandom(seed: 1_000)
        for _ in 0..<300 {
            let plist = Self.random(&generator, depth: 3)
            #expect(try BinaryPropertyListReader.read(BinaryPropertyList.encode(plist)) == Self.value(plist))
        }
    }

    /// The bytes of `plist` with the marker of the object whose original marker is `from` changed to `to`.
    static func patched(_ plist: PropertyListValue, from: UInt8, to: UInt8) -> Data {
        var bytes = [UInt8](BinaryPropertyList.encode(plist))
        if let index = bytes.indices.dropFirst(8).first(where: { bytes[$0] == from }) { bytes[index] = to }
        return Data(bytes)
    }

    @Test func setsKeysThatAreNotStringsAndCyclesAreErrors() throws {
        // An array of one dictionary whose marker becomes a set's: Foundation traps bridging it.
        let set = Self.patched(.array([.dictionary([("a", .integer(1))])]), from: 0xA1, to: 0xC1)
        #expect(throws: BinaryPropertyListReader.Failure.self) { try BinaryPropertyListReader.read(set) }
        // A dictionary whose key (object 1, a string) is turned into an empty array.
        let key = Self.patched(.dictionary([("k", .integer(1))]), from: 0x51, to: 0xA0)
        #expect(throws: BinaryPropertyListReader.Failure.self) { try BinaryPropertyListReader.read(key) }
        // An array whose member reference points at itself (object 0).
        var cyclic = [UInt8](BinaryPropertyList.encode(.array([.integer(7)])))
        if let marker = cyclic.indices.dropFirst(8).first(where: { cyclic[$0] == 0xA1 }) {
            for offset in 1...4 { cyclic[marker + offset] = 0 }
        }
        #expect(throws: BinaryPropertyListReader.Failure.self) { try BinaryPropertyListReader.read(Data(cyclic)) }
        // Truncations of a valid list: errors or values, never a trap.
        let good = BinaryPropertyList.encode(.dictionary([("a", .array([.string("x"), .data(Data([1, 2]))]))]))
        for cut in 0..<good.count { _ = try? BinaryPropertyListReader.read(good.prefix(cut)) }
    }

    @Test func otherHeadersNeverReachFoundationsParser() throws {
        // Foundation reads "bplist01" as binary too, and traps on a set of dictionaries in it (found by fuzzing).
        var bytes = [UInt8](Self.patched(.array([.dictionary([("a", .integer(1))])]), from: 0xA1, to: 0xC1))
        bytes[7] = UInt8(ascii: "1")
        #expect(throws: KeyedArchive.Failure.self) { try KeyedArchive(data: Data(bytes)) }
        #expect(throws: KeyedArchive.Failure.self) { try KeyedArchive(data: Data("not a list".utf8)) }
    }

    @Test func sharedMembersAreReadOnce() throws {
        // Forty levels, each an array holding the level below twice: 2^40 paths, 41 objects.
        let bytes = BinaryPropertyList.encode(.array([.integer(0)]))
        var list = [UInt8](bytes.prefix(8))  // header
        var offsets: [Int] = []
        offsets.append(list.count)
        list += [0x10, 0x00]  // object 0: the integer 0
        for level in 1...40 {
            offsets.append(list.count)
            list += [0xA2, 0, 0, 0, UInt8(level - 1), 0, 0, 0, UInt8(level - 1)]
        }
        let tableStart = list.count
        for offset in offsets { list += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(offset) >> (8 * UInt64(7 - $0))) } }
        list += [0, 0, 0, 0, 0, 0, 8, 4]
        list += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(offsets.count) >> (8 * UInt64(7 - $0))) }
        list += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(40) >> (8 * UInt64(7 - $0))) }
        list += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(tableStart) >> (8 * UInt64(7 - $0))) }
        guard case .array(let top) = try BinaryPropertyListReader.read(Data(list)) else {
            Issue.record("not an array")
            return
        }
        #expect(top.count == 2)
    }
}
