import Foundation
import SQLiteStorage
@_exported import TestSupport

/// Runs `body` with a fresh directory under the system temporary directory, removed afterwards.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("SQLiteStorageTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

extension URL {
    func file(_ name: String) -> String { appendingPathComponent(name).path }
}

/// The shared seeded generator, under the name these tests use.
typealias SeededGenerator = SeededRandom

extension SeededGenerator {
    mutating func bytes(count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }

    /// A string drawn from NUL, ASCII, Latin-1, Greek, CJK, emoji and combining marks.
    mutating func string(maxLength: Int) -> String {
        let ranges: [ClosedRange<UInt32>] = [
            0...0, 0x01...0x7F, 0xA0...0xFF, 0x0391...0x03C9, 0x0300...0x036F, 0x4E00...0x4FFF,
            0x1F600...0x1F64F, 0xFFF0...0xFFFD, 0x10000...0x1000F,
        ]
        let length = Int.random(in: 0...maxLength, using: &self)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            let range = ranges[Int.random(in: 0..<ranges.count, using: &self)]
            if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &self)) { scalars.append(scalar) }
        }
        return String(scalars)
    }

    mutating func double() -> Double {
        switch Int.random(in: 0..<6, using: &self) {
        case 0: return Double(bitPattern: next())  // any bit pattern, NaN excluded below
        case 1: return Double.random(in: -1e6...1e6, using: &self)
        case 2: return [0.0, -0.5, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude][
            Int.random(in: 0..<6, using: &self)]
        default: return Double(Int32.random(in: .min ... .max, using: &self)) / 7
        }
    }

    mutating func value() -> SQLiteValue {
        switch Int.random(in: 0..<5, using: &self) {
        case 0: return .null
        case 1:
            return .integer(
                Bool.random(using: &self)
                    ? Int64(bitPattern: next()) : [Int64.min, Int64.max, 0, -1, 1][Int.random(in: 0..<5, using: &self)])
        case 2:
            var d = double()
            while d.isNaN { d = double() }
            return .real(d)
        case 3: return .text(string(maxLength: 40))
        default: return .blob(bytes(count: Int.random(in: 0...64, using: &self)))
        }
    }
}

/// A connection to a new in-memory database with one untyped column, so values keep their storage class.
func valueTable() throws -> SQLiteConnection {
    let db = try SQLiteConnection.inMemory()
    try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v)")
    return db
}

/// Bitwise equality for values, so that -0.0 and 0.0 are told apart.
func identical(_ a: SQLiteValue, _ b: SQLiteValue) -> Bool {
    if case .real(let x) = a, case .real(let y) = b { return x.bitPattern == y.bitPattern }
    return a == b
}
