import Foundation
import PropertyBased
import Testing
import TestSupport

@testable import ObjectGraph

/// The scalar-by-scalar foldings against folding the whole string at once (their oracle). Compared as UTF-8
/// bytes, which is how SQLite and the controller's order bytes compare them (Swift's `==` would call canonically
/// equivalent spellings equal).
@Suite struct StringFoldingTableTests {
    static func sameBytes(_ lhs: String, _ rhs: String) -> Bool { Array(lhs.utf8) == Array(rhs.utf8) }

    /// Scalars from the scripts and blocks where folding gets interesting: ASCII, Latin-1 and the Latin extensions,
    /// Vietnamese, Greek (final sigma), Cyrillic, Turkish dotted and dotless i, ligatures, combining marks on their
    /// own, a spacing mark with a combining class, Hangul, kana, CJK and its compatibility ideographs, emoji.
    static let alphabet: [Unicode.Scalar] = {
        let ranges: [ClosedRange<UInt32>] = [
            0x20...0x7E, 0xA0...0x24F, 0x300...0x36F, 0x370...0x3FF, 0x400...0x4FF, 0x1E00...0x1EFF,
            0x1D165...0x1D172, 0x3040...0x30FF, 0x4E00...0x4E20, 0xF900...0xF910, 0xAC00...0xAC20,
            0xFB00...0xFB06, 0x1F600...0x1F610,
        ]
        return ranges.flatMap { $0.compactMap(Unicode.Scalar.init) }
    }()

    static func randomText(_ random: inout SeededRandom) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &random) { scalars.append(random.pick(alphabet)) }
        return String(scalars)
    }

    @Test func foldingScalarByScalarEqualsFoldingTheWholeString() async {
        await propertyCheck(count: 2_000, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            var random = SeededRandom(seed: UInt64(seed))
            let text = Self.randomText(&random)
            #expect(Self.sameBytes(StringFolding.folded(text), StringFolding.foldedWhole(text)), "seed \(seed): \(text.debugDescription)")
            #expect(Self.sameBytes(FetchPredicate.TextMatching.removingDiacritics(text),
                FetchPredicate.TextMatching.removingDiacriticsWhole(text)), "seed \(seed): \(text.debugDescription)")
        }
    }

    /// Store connections fold on whatever thread runs their query: the table is shared and filled concurrently.
    @Test func foldingFromSeveralThreadsAtOnceAgrees() {
        let table = ScalarFoldTable(lowercasesASCII: true, slowFold: StringFolding.foldedWhole)
        let mismatches = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var random = SeededRandom(seed: UInt64(thread))
            for _ in 0..<200 {
                let text = Self.randomText(&random)
                if !Self.sameBytes(table.fold(text), StringFolding.foldedWhole(text)) { mismatches.withLock { $0 += 1 } }
            }
        }
        #expect(mismatches.withLock { $0 } == 0)
    }

    @Test func everyScalarOfTheAlphabetFoldsAsItDoesAlone() {
        for scalar in Self.alphabet {
            let text = "x" + String(scalar) + "É"
            #expect(Self.sameBytes(StringFolding.folded(text), StringFolding.foldedWhole(text)), "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test func knownFoldings() {
        #expect(Self.sameBytes(StringFolding.folded("Ærøskøbing"), "aeroskobing"))
        #expect(Self.sameBytes(StringFolding.folded("Nguyễn Hương, Đà Nẵng"), "nguyen huong, da nang"))
        #expect(Self.sameBytes(StringFolding.folded("Émile e\u{301}"), "emile e"))
        #expect(Self.sameBytes(StringFolding.folded("ΣΊΣΥΦΟΣ"), "σισυφοσ"))
        #expect(Self.sameBytes(StringFolding.folded("高橋 花子"), "高橋 花子"))
        #expect(Self.sameBytes(FetchPredicate.TextMatching.removingDiacritics("Łódź Zoë"), "Lodz Zoe"))
    }

    @Test func aSpacingMarkWithACombiningClassIsFoldedWithItsString() {
        // U+1D165 (a musical stem, class 216) and U+1D16D (an augmentation dot, class 226) are spacing marks
        // that canonical decomposition puts in class order: folded one by one they would stay as typed.
        #expect(!ScalarFoldTable.foldsAlone(Unicode.Scalar(0x1D165)!))
        #expect(ScalarFoldTable.foldsAlone(Unicode.Scalar(0x00E9)!))
        let text = "a\u{1D16D}\u{1D165}b"
        #expect(Self.sameBytes(StringFolding.foldedWhole(text), "a\u{1D165}\u{1D16D}b"))
        #expect(Self.sameBytes(StringFolding.folded(text), StringFolding.foldedWhole(text)))
    }
}
