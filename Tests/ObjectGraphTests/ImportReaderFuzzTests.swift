import Foundation
import Testing
@testable import ObjectGraph

/// Fuzz-style tests of the streaming reader: seeded random damage to valid files (truncation, flipped and
/// inserted bytes, structural characters, invalid UTF-8, huge fields). Every input must end in rows or a
/// typed ``ImportReadError`` with positions inside the input — never a crash — and must read the same in
/// chunks of any size as all at once. (Fuzz/Sources/FuzzImportReader runs the same checks under libFuzzer.)
@Suite("streaming import reader, fuzzed")
struct ImportReaderFuzzTests {
    static let seeds: [(ImportFileReader.Format, String)] = [
        (.json, "[{\"name\": \"Ada\", \"age\": 36, \"born\": \"1815-12-10\", \"tags\": [\"x\", {\"y\": null}]},\n"
            + " {\"name\": \"Zoë \\\"Z\\\" \\u00e9\", \"age\": -1.5e3, \"ok\": true}]"),
        (.jsonLines, "{\"name\": \"Ada\", \"age\": 36}\n{\"name\": \"東京\", \"n\": null}\r\n\n{\"a\": [1, 2]}\n"),
        (.csv, "name,age,note\n\"Lovelace, Ada\",36,\"line\nbreak\"\r\nBob,,\"\"\"q\"\"\"\nCarl,41,x\n"),
    ]

    static let alphabet: [[UInt8]] = [
        [0x22], [0x2C], [0x0A], [0x0D], [0x7B], [0x7D], [0x5B], [0x5D], [0x3A], [0x5C], [0x20], [0x00],
        [0xFF], [0xC3], [0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xEF, 0xBB, 0xBF],
        Array("\\u".utf8), Array("\\ud800".utf8), Array("null".utf8), Array("1e999".utf8),
    ]

    static func mutate(_ bytes: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let at = Int.random(in: 0...bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: bytes = Array(bytes.prefix(at))  // truncated
            case 1 where at < bytes.count: bytes[at] = UInt8.random(in: 0...255, using: &random)
            case 2: bytes.insert(contentsOf: random.pick(alphabet), at: at)
            case 3 where at < bytes.count: bytes.remove(at: at)
            case 4:  // a huge field or string
                let huge = [UInt8](repeating: random.pick([UInt8(ascii: "a"), 0x22, 0xC3]), count: Int.random(in: 1...70_000, using: &random))
                bytes.insert(contentsOf: huge, at: at)
            default:  // a copied range
                let from = Int.random(in: 0...bytes.count, using: &random)
                let to = min(bytes.count, from + Int.random(in: 0...40, using: &random))
                bytes.insert(contentsOf: bytes[from..<to], at: at)
            }
        }
        return bytes
    }

    @Test("damaged files give rows or typed errors, the same in any chunk size")
    func damagedFiles() {
        var random = SeededRandom(seed: 0x1A9_0436)
        var errors = 0
        for round in 0..<1200 {
            let (format, text) = random.pick(Self.seeds)
            let bytes = Self.mutate(Array(text.utf8), &random)
            let data = Data(bytes)
            let limit = random.chance(0.2) ? 4096 : ImportFileReader.defaultMaximumRowBytes
            let whole = ReadOutcome(ImportFileReader(data: data, format: format, chunkSize: nil, maximumRowBytes: limit))
            let chunk = random.pick([1, 2, 7, 64, 1000])
            let chunked = ReadOutcome(ImportFileReader(data: data, format: format, chunkSize: chunk, maximumRowBytes: limit))
            if let error = whole.error {
                errors += 1
                if error.kind != .layout {
                    #expect(error.line >= 1 && error.column >= 1 && error.byteOffset <= bytes.count,
                        "round \(round): \(error) @\(error.byteOffset) of \(bytes.count)")
                }
            }
            // A row over the limit may be found earlier or later depending on what was read; otherwise equal.
            if whole.error?.kind != .rowTooLarge, chunked.error?.kind != .rowTooLarge {
                #expect(chunked == whole, "round \(round), chunk \(chunk): \(String(decoding: bytes.prefix(300), as: UTF8.self))")
            }
            // The sniffed format must not crash either.
            _ = ReadOutcome(ImportFileReader(data: data))
        }
        #expect(errors > 100, "the damage should break many files: \(errors)")
    }

    @Test("random bytes never crash the JSON or CSV readers")
    func randomBytes() {
        var random = SeededRandom(seed: 77)
        for _ in 0..<600 {
            let count = Int.random(in: 0...300, using: &random)
            var bytes: [UInt8] = []
            for _ in 0..<count { bytes += random.chance(0.5) ? random.pick(Self.alphabet) : [UInt8.random(in: 0...255, using: &random)] }
            for format in ImportFileReader.Format.allCases {
                let outcome = ReadOutcome(ImportFileReader(data: Data(bytes), format: format, chunkSize: 3,
                    maximumRowBytes: 1 << 20))
                if let error = outcome.error, error.kind != .layout { #expect(error.byteOffset <= bytes.count) }
            }
            let csv = CSVRecordReader(data: Data(bytes), chunkSize: 5)
            while (try? csv.next()) != nil {}
            _ = try? ImportJSONValue.parse(Data(bytes))
        }
    }
}
