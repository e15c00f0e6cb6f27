import Foundation
import SQLiteStorage
import Testing

@testable import ObjectGraph

// The heart of the predicate tests: for every predicate, the rows `evaluate` accepts in memory must be
// exactly the rows SQLite returns for `sqlExpression`, on a table full of awkward values (nil, accents in
// both normal forms, CJK, combining marks, ligatures, NUL, wildcard characters, numbers at the edges of
// Int64 and Double, dates that equal numbers, blobs, URLs, and a column without a declared type that
// mixes all of them).

typealias PredicateTestRandom = SeededRandom

/// Values the fixture and the predicate generator draw from.
enum PredicateTestValues {
    static let strings: [String] = [
        "", "a", "A", "abc", "ABC", "Abc", "Zoë", "Zoe\u{308}", "ZOË", "zoe", "Zoe", "zoë", "Ærøskøbing",
        "aeroskobing", "AERØ", "æ", "東京", "東京都", "京", "Straße", "STRASSE", "strasse", "ß", "ss", "émile", "Émile",
        "E\u{301}mile", "e\u{301}", "Łódź", "lodz", "Lodz", "İstanbul", "istanbul", "ǅemal", "Ǆ", "ǆ", "ﬁle", "file",
        "👍🏽", "👍", "a*b", "a?b", "a\\b", "[x]", "x]", "100%", "under_score", "x' OR 1=1 --", "\"; DROP TABLE t; --",
        "line1\nline2", "tab\tsep", "%K", "%@", "$VAR", "a\u{0}b", "a\u{0}", "Ñandú", "ñandu", "ΣΊΣΥΦΟΣ", "σίσυφος",
        "Ørsted", "Orsted", "ÅSA", "åsa", "Åsa", "A\u{30A}sa", "ﬀ", "42", "3.5", " 7", "-1", "0x10", "1e3", "Z", "z",
        "~", "\u{7F}", "Ａ", "한국", "한", "\u{1100}\u{1161}", "ＡＢＣ",
    ]
    static let integers: [Int64] = [
        -5, -1, 0, 1, 2, 3, 7, 10, 42, 100, 9_007_199_254_740_993, .max, .min, 1_000_000,
    ]
    static let doubles: [Double] = [
        -2.5, -0.0, 0.0, 0.5, 1.0, 3.5, 42.0, 1e300, -1e-300, .infinity, -.infinity, 9_007_199_254_740_992.0, 7.25,
    ]
    static let dates: [Date] = [
        Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 42),
        Date(timeIntervalSinceReferenceDate: 42.5), Date(timeIntervalSinceReferenceDate: -86_400),
        Date(timeIntervalSinceReferenceDate: 700_000_000), Date(timeIntervalSinceReferenceDate: 700_000_000.25),
    ]
    static let uuids: [UUID] = [
        UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)),
        UUID(uuid: (0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
        UUID(uuid: (0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0)),
    ]
    static let binaries: [Data] = [Data(), Data([0]), Data([0x61, 0x62, 0x63]), Data([0xFF, 0xFE]), Data("Zoë".utf8)]
    static let urls: [URL] = ["https://example.org/a", "https://example.org/Zo%C3%AB", "file:///tmp/x", "mailto:a@b.c"]
        .compactMap(URL.init(string:))

    static var textValues: [AttributeValue] { strings.map(AttributeValue.string) }
    static var integerValues: [AttributeValue] { integers.map(AttributeValue.integer) }
    static var doubleValues: [AttributeValue] { doubles.map(AttributeValue.double) }
    static var dateValues: [AttributeValue] { dates.map(AttributeValue.date) }
    static var booleanValues: [AttributeValue] { [.boolean(true), .boolean(false)] }
    static var blobValues: [AttributeValue] { uuids.map(AttributeValue.uuid) + binaries.map(AttributeValue.binary) }
    static var urlValues: [AttributeValue] { urls.map(AttributeValue.uri) }
    static var everything: [AttributeValue] {
        textValues + integerValues + doubleValues + dateValues + booleanValues + blobValues + urlValues + [.null]
    }
}

/// An in-memory SQLite table and the same rows in memory.
struct PredicateTestTable {
    /// A column: its key, its declared SQL type ("" for none) and the values it may hold.
    struct Column {
        var key: String
        var declaredType: String
        var attributeType: AttributeType?
        var pool: [AttributeValue]
        var nullChance: Double

        var columnName: String { "Z" + key.uppercased() }
    }

    static let columns: [Column] = [
        Column(
            key: "name", declaredType: "VARCHAR", attributeType: .string, pool: PredicateTestValues.textValues,
            nullChance: 0.1),
        Column(
            key: "nickname", declaredType: "VARCHAR", attributeType: .string, pool: PredicateTestValues.textValues,
            nullChance: 0.4),
        Column(
            key: "age", declaredType: "INTEGER", attributeType: .integer64, pool: PredicateTestValues.integerValues,
            nullChance: 0.15),
        Column(
            key: "score", declaredType: "FLOAT", attributeType: .double, pool: PredicateTestValues.doubleValues,
            nullChance: 0.15),
        Column(
            key: "born", declaredType: "TIMESTAMP", attributeType: .date, pool: PredicateTestValues.dateValues,
            nullChance: 0.15),
        Column(
            key: "active", declaredType: "INTEGER", attributeType: .boolean, pool: PredicateTestValues.booleanValues,
            nullChance: 0.2),
        Column(
            key: "badge", declaredType: "BLOB", attributeType: nil, pool: PredicateTestValues.blobValues,
            nullChance: 0.3),
        Column(
            key: "homepage", declaredType: "VARCHAR", attributeType: .uri, pool: PredicateTestValues.urlValues,
            nullChance: 0.3),
        Column(
            key: "note", declaredType: "", attributeType: nil, pool: PredicateTestValues.everything, nullChance: 0.1),
    ]

    static func column(forKey key: String) -> String? {
        columns.first { $0.key == key }?.columnName
    }

    let connection: SQLiteConnection
    /// Row values by key, in primary-key order (row i has Z_PK i + 1).
    let rows: [[String: AttributeValue]]

    init(rowCount: Int = 200, seed: UInt64 = 2001) throws {
        connection = try SQLiteConnection.inMemory()
        try PredicateSQLFunctions.register(on: connection)
        let columnList = Self.columns.map { "\($0.columnName) \($0.declaredType)" }.joined(separator: ", ")
        try connection.execute("CREATE TABLE ZPERSON (Z_PK INTEGER PRIMARY KEY, \(columnList))")
        var random = PredicateTestRandom(seed: seed)
        var rows: [[String: AttributeValue]] = []
        for index in 0..<rowCount {
            var row: [String: AttributeValue] = [:]
            for column in Self.columns {
                // The first rows walk through each pool in order, so every value appears at least once.
                let value: AttributeValue
                if index < column.pool.count {
                    value = column.pool[index]
                } else if random.chance(column.nullChance) {
                    value = .null
                } else {
                    value = random.pick(column.pool)
                }
                row[column.key] = value
            }
            rows.append(row)
        }
        let placeholders = Array(repeating: "?", count: Self.columns.count + 1).joined(separator: ", ")
        let insert = try connection.prepare(
            "INSERT INTO ZPERSON (Z_PK, \(Self.columns.map(\.columnName).joined(separator: ", ")))"
                + " VALUES (\(placeholders))"
        )
        for (index, row) in rows.enumerated() {
            let values =
                [SQLiteValue.integer(Int64(index + 1))] + Self.columns.map { (row[$0.key] ?? .null).sqliteValue }
            try insert.run(values)
        }
        self.rows = rows
    }

    /// Primary keys of the rows `predicate` matches in memory.
    func memoryMatches(_ predicate: FetchPredicate) -> Set<Int64> {
        memoryMatches { row in predicate.evaluate { row[$0] ?? .null } }
    }

    func memoryMatches(_ test: ([String: AttributeValue]) -> Bool) -> Set<Int64> {
        var result = Set<Int64>()
        for (index, row) in rows.enumerated() where test(row) { result.insert(Int64(index + 1)) }
        return result
    }

    /// Primary keys of the rows SQLite returns for `predicate`.
    func sqlMatches(_ predicate: FetchPredicate) throws -> Set<Int64> {
        let (sql, bindings) = try predicate.sqlExpression(columnForKey: Self.column(forKey:))
        let result = try connection.rows("SELECT Z_PK FROM ZPERSON WHERE \(sql)", bindings.map(\.sqliteValue))
        return Set(result.compactMap { $0.first?.integerValue })
    }

    /// A readable account of a disagreement: the predicate, its SQL, and the rows each side alone matched.
    func disagreement(_ predicate: FetchPredicate, memory: Set<Int64>, sql: Set<Int64>) -> String {
        let compiled = try? predicate.sqlExpression(columnForKey: Self.column(forKey:))
        func describe(_ keys: Set<Int64>) -> String {
            keys.sorted().prefix(5).map { key in
                let row = rows[Int(key - 1)]
                let values = predicate.referencedKeys.sorted().map { "\($0)=\(String(reflecting: row[$0] ?? .null))" }
                return "#\(key) {\(values.joined(separator: ", "))}"
            }.joined(separator: "; ")
        }
        return """
            memory and SQL disagree for: \(predicate.predicateFormat)
              SQL: \(compiled?.sql ?? "?") with \(compiled?.bindings.map { String(reflecting: $0) } ?? [])
              only in memory: \(describe(memory.subtracting(sql)))
              only in SQL: \(describe(sql.subtracting(memory)))
            """
    }
}

/// Builds random predicate trees over ``PredicateTestTable``'s columns.
struct PredicateTestGenerator {
    var random: PredicateTestRandom

    static let patterns: [String] = [
        ".*", "[a-z]+", "Z.*", "(?i)zoe", ".*ö.*", "\\d+", "東.*", "a\\*b", "a.b", "", ".", "..", "[[:alpha:]]+",
        "\\p{L}+", "Zo.", "(a|ab)(c|bcd)?", "line1.line2", "(?s)line1.line2", "x' OR 1=1 --", "\\Qa*b",
        "[^a-z]*", "e\u{301}.*", ".*\u{0}.*",
    ]

    mutating func key() -> String { random.pick(PredicateTestTable.columns).key }

    mutating func options() -> FetchPredicate.ComparisonOptions {
        random.pick([[], [], [.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive]])
    }

    /// A value likely to matter for `key`: mostly from its own pool, sometimes from anywhere.
    mutating func value(for key: String) -> AttributeValue {
        let pool = PredicateTestTable.columns.first { $0.key == key }?.pool ?? []
        if random.chance(0.08) { return .null }
        if !pool.isEmpty, random.chance(0.7) { return random.pick(pool) }
        return random.pick(PredicateTestValues.everything)
    }

    /// A string operand for the string operators: a piece of a pooled string, possibly re-cased.
    mutating func fragment() -> AttributeValue {
        if random.chance(0.05) { return random.pick(PredicateTestValues.everything) }
        let source = random.pick(PredicateTestValues.strings)
        let scalars = Array(source.unicodeScalars)
        var piece: String
        if scalars.isEmpty || random.chance(0.2) {
            piece = source
        } else {
            let start = Int.random(in: 0..<scalars.count, using: &random)
            let end = Int.random(in: start...scalars.count, using: &random)
            piece =
                random.chance(0.5)
                ? String(String.UnicodeScalarView(scalars[0..<end]))
                : String(String.UnicodeScalarView(scalars[start..<scalars.count]))
        }
        if random.chance(0.25) { piece = random.chance(0.5) ? piece.uppercased() : piece.lowercased() }
        return .string(piece)
    }

    /// A LIKE pattern: a pooled string with some characters replaced by wildcards.
    mutating func likePattern() -> AttributeValue {
        let source = random.pick(PredicateTestValues.strings)
        var pattern = ""
        for scalar in source.unicodeScalars {
            let roll = Double.random(in: 0..<1, using: &random)
            if roll < 0.15 {
                pattern += "?"
            } else if roll < 0.3 {
                pattern += "*"
            } else if roll < 0.35 {
                pattern += "\\" + String(scalar)
            } else {
                pattern.unicodeScalars.append(scalar)
            }
        }
        if random.chance(0.2) { pattern = pattern.uppercased() }
        return .string(random.chance(0.1) ? "*" : pattern)
    }

    mutating func operand(for key: String, operation: FetchPredicate.Operator) -> FetchPredicate.Operand {
        if random.chance(0.1) { return .key(self.key()) }
        switch operation {
        case .beginsWith, .endsWith, .contains: return .value(fragment())
        case .like: return .value(likePattern())
        case .matches: return .value(random.chance(0.9) ? .string(random.pick(Self.patterns)) : value(for: key))
        default: return .value(value(for: key))
        }
    }

    mutating func comparison() -> FetchPredicate.Node {
        let key = self.key()
        let operation = random.pick(FetchPredicate.Operator.allCases)
        let options = self.options()
        switch operation {
        case .in:
            if random.chance(0.15) {
                return .comparison(.init(.key(key), .in, .value(fragment()), options: options))
            }
            let count = Int.random(in: 0...4, using: &random)
            var elements: [FetchPredicate.Operand] = []
            for _ in 0..<count { elements.append(random.chance(0.1) ? .key(self.key()) : .value(value(for: key))) }
            return .comparison(.init(.key(key), .in, .aggregate(elements), options: options))
        case .between:
            var bounds = [value(for: key), value(for: key)]
            if random.chance(0.7) {
                bounds.sort { FetchPredicate.ValueComparison.order($0, $1).map { $0 < 0 } ?? false }
            }
            return .comparison(.init(.key(key), .between, .aggregate(bounds.map { .value($0) }), options: options))
        case .contains where random.chance(0.1):
            let elements = (0..<3).map { _ in FetchPredicate.Operand.value(value(for: key)) }
            return .comparison(.init(.aggregate(elements), .contains, .key(key), options: options))
        default:
            let other = operand(for: key, operation: operation)
            if random.chance(0.2) {
                return .comparison(.init(other, operation, .key(key), options: options))
            }
            return .comparison(.init(.key(key), operation, other, options: options))
        }
    }

    mutating func node(depth: Int = 0) -> FetchPredicate.Node {
        let roll = Double.random(in: 0..<1, using: &random)
        if depth >= 3 || roll < 0.5 { return comparison() }
        if roll < 0.65 { return .not(node(depth: depth + 1)) }
        let count = Int.random(in: 2...3, using: &random)
        let operands = (0..<count).map { _ in node(depth: depth + 1) }
        return roll < 0.83 ? .and(operands) : .or(operands)
    }
}

@Suite struct FetchPredicateDifferentialTests {
    static let handWritten: [String] = [
        "TRUEPREDICATE", "FALSEPREDICATE",
        "name == 'Zoë'", "name == \"Zoe\u{308}\"", "name ==[c] 'zoë'", "name ==[d] 'Zoe'", "name ==[cd] 'ZOE'",
        "name != 'Zoë'", "name == nil", "name != nil", "NOT (name == nil)", "nickname == nil OR nickname == ''",
        "age > 3", "NOT (age > 3)", "age <= 3", "3 < age", "age BETWEEN {0, 10}", "NOT age BETWEEN {0, 10}",
        "age IN {1, 2, 3, nil}", "NOT (age IN {1, 2, 3})", "age IN {}", "age == 9007199254740993",
        "score > 9007199254740992", "age > 9007199254740992.0", "age == 9007199254740992.0",
        "score >= -0.0", "score == 0", "score < 1e999", "score == -1e999", "born > CAST(0, 'NSDate')",
        "born == CAST(42, 'NSDate')", "born == 42", "born BETWEEN {40, 43}", "active == YES", "active == 1",
        "active == TRUE AND age > 3", "active != NO",
        "name BEGINSWITH 'Zo'", "name BEGINSWITH[c] 'zo'", "name BEGINSWITH[cd] 'zoe'", "name BEGINSWITH[d] 'Zoe'",
        "name ENDSWITH 'e'", "name ENDSWITH[cd] 'E'", "name ENDSWITH ''", "name ENDSWITH 'b'", "name CONTAINS 'e'",
        "name CONTAINS[cd] 'E'", "name CONTAINS '京'", "name CONTAINS ''", "name CONTAINS '\\0'",
        "name LIKE 'Z*'", "name LIKE '*e'", "name LIKE '?'", "name LIKE[cd] 'zo?'", "name LIKE 'a\\\\*b'",
        "name LIKE 'a\\\\?b'", "name LIKE '*'", "name LIKE '[x]'", "name LIKE 'line1*line2'",
        "name MATCHES 'Z.*'", "name MATCHES[c] 'z.*'", "name MATCHES[cd] 'zoe'", "name MATCHES '.*'",
        "name MATCHES '\\\\d+'", "name MATCHES 'a|ab'",
        "name IN {'Zoë', 'zoe', nil}", "name IN[c] {'ZOË'}", "name IN[cd] {'zoe', 'strasse'}", "'a' IN name",
        "'東京' IN name", "{'Zoë', 'abc'} CONTAINS name",
        "name == nickname", "name != nickname", "name ==[cd] nickname", "name < nickname", "name BEGINSWITH nickname",
        "name ENDSWITH nickname", "name CONTAINS[c] nickname", "nickname IN {name, 'abc'}",
        "note == 42", "note == '42'", "note > 3", "note < 'a'", "note BEGINSWITH '4'", "note == nil",
        "note == CAST('AAECAwQ=', 'NSData')", "note == age", "note > score", "note ==[c] 'ZOË'",
        "badge == CAST('00000000-0000-0000-0000-000000000001', 'NSUUID')", "badge > CAST('AA==', 'NSData')",
        "homepage BEGINSWITH 'https'", "homepage == CAST('file:///tmp/x', 'NSURL')", "homepage CONTAINS[c] 'ZO'",
        "name CONTAINS[c] '%'", "name CONTAINS[cd] '_'", "name BEGINSWITH[c] '100%'", "name ENDSWITH[cd] 'SCORE'",
        "name CONTAINS[c] 'A\\\\B'", "note CONTAINS[cd] '4'", "homepage CONTAINS[cd] 'EXAMPLE'", "name ENDSWITH[c] 'LE'",
        "name CONTAINS[cd] 'É'", "name BEGINSWITH[cd] 'ﬁ'", "NOT (name CONTAINS[c] 'a')", "name CONTAINS[c] ''",
        "age > 3 AND name BEGINSWITH[c] 'z' OR score < 0", "NOT (age > 3 OR name == nil)",
        "NOT (NOT (age > 3))", "(age > 3) AND NOT (score > 1)", "age > 'abc'", "name > 5", "name BEGINSWITH 5",
        "nickname BEGINSWITH nil", "NOT (nickname BEGINSWITH nil)", "NOT (name CONTAINS 5)", "age == '42'",
        "name == 42", "name < 'a'", "name >[c] 'm'", "name <=[cd] 'm'", "3 > 2", "3 == 3 AND age > 3",
        "nil == nil", "'abc' BEGINSWITH 'ab'", "age > nil", "NOT (age > nil)", "age == active",
    ]

    @Test func handWrittenPredicatesAgree() throws {
        let table = try PredicateTestTable()
        for format in Self.handWritten {
            let predicate = try FetchPredicate(format: format)
            let memory = table.memoryMatches(predicate)
            let sql = try table.sqlMatches(predicate)
            let agree = memory == sql
            #expect(agree, "\(table.disagreement(predicate, memory: memory, sql: sql))")
        }
    }

    @Test func randomPredicatesAgree() throws {
        let table = try PredicateTestTable()
        var generator = PredicateTestGenerator(random: PredicateTestRandom(seed: 0x0B7E_C7_6A_F0))
        var disagreements: [String] = []
        var matchedSomething = 0
        var matchedNotEverything = 0
        for _ in 0..<2_000 {
            let predicate = FetchPredicate(generator.node())
            let memory = table.memoryMatches(predicate)
            let sql = try table.sqlMatches(predicate)
            if memory != sql { disagreements.append(table.disagreement(predicate, memory: memory, sql: sql)) }
            if !memory.isEmpty { matchedSomething += 1 }
            if memory.count < table.rows.count { matchedNotEverything += 1 }
            // The printed form parses back to the same tree.
            let reparsed = try FetchPredicate(format: predicate.predicateFormat)
            #expect(reparsed == predicate, "\(predicate.predicateFormat)")
        }
        #expect(
            disagreements.isEmpty,
            "\(disagreements.count) disagreements; first: \(disagreements.prefix(3).joined(separator: "\n"))")
        // The generator must produce predicates that discriminate, or agreement would prove nothing.
        #expect(matchedSomething > 600)
        #expect(matchedNotEverything > 1_200)
    }

    @Test func fixtureReadsBackAsWritten() throws {
        // The memory side uses the values as written; make sure the store keeps them (affinity aside).
        let table = try PredicateTestTable()
        let names = PredicateTestTable.columns.map(\.columnName).joined(separator: ", ")
        let stored = try table.connection.rows("SELECT \(names) FROM ZPERSON ORDER BY Z_PK")
        #expect(stored.count == table.rows.count)
        for (row, storedRow) in zip(table.rows, stored) {
            for (column, storedValue) in zip(PredicateTestTable.columns, storedRow) {
                let original = row[column.key] ?? .null
                let readBack = AttributeValue(sqliteValue: storedValue, type: column.attributeType ?? .undefined)
                #expect(
                    FetchPredicate.ValueComparison.equal(original, readBack, options: []),
                    "\(column.key): \(String(reflecting: original)) read back as \(String(reflecting: readBack))")
            }
        }
    }

    /// The harness must be able to fail: evaluators with plausible mistakes disagree with SQL.
    @Test func harnessCatchesPlausibleMistakes() throws {
        let table = try PredicateTestTable()
        // Two-valued NOT (nil ages would match `NOT (age > 3)`).
        let negation = try FetchPredicate(format: "NOT (age > 3)")
        let twoValued = table.memoryMatches { row in
            guard case .integer(let age) = row["age"] ?? .null else { return true }
            return !(age > 3)
        }
        #expect(twoValued != (try table.sqlMatches(negation)))
        // Swift's String equality (canonical equivalence: "Zoë" == "Zoe\u{308}").
        let equality = try FetchPredicate(format: "name == 'Zoë'")
        let canonical = table.memoryMatches { row in row["name"]?.stringValue == "Zoë" }
        #expect(canonical != (try table.sqlMatches(equality)))
        // Naive SQL without storage-class guards (the INTEGER column converts '42' to 42).
        let naive = try table.connection.rows("SELECT Z_PK FROM ZPERSON WHERE ZAGE = ?", [.text("42")])
        #expect(
            Set(naive.compactMap { $0.first?.integerValue })
                != table.memoryMatches(try FetchPredicate(format: "age == '42'")))
        // SQL LIKE for CONTAINS[c] (ASCII-only case folding).
        let like = try table.connection.rows("SELECT Z_PK FROM ZPERSON WHERE ZNAME LIKE ?", [.text("%ë%")])
        #expect(
            Set(like.compactMap { $0.first?.integerValue })
                != table.memoryMatches(try FetchPredicate(format: "name CONTAINS[c] 'Ë'")))
    }
}
