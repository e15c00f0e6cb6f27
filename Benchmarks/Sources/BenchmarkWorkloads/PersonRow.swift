/// One generated person: the same values go to ObjectGraph and to the raw baseline.
public struct PersonRow: Sendable, Hashable {
    public var firstName: String
    public var lastName: String
    public var email: String
    public var city: String
    public var age: Int64
    /// Seconds since 2001-01-01 (Core Data's date encoding).
    public var createdAt: Double
    /// The upper-case initial of `lastName`.
    public var section: String
}

/// A deterministic generator of people, as in performance-anchors.md §1: 100 first names, surnames with a
/// 3-digit suffix (≈52k distinct last names), unique e-mails. Surnames cover all 26 initials, two each, so a
/// sectioned list has 26 sections.
public struct PersonGenerator: Sendable {
    static let firstNames = [
        "Ada", "Alan", "Alice", "Amir", "Anna", "Ben", "Bea", "Carl", "Chen", "Clara", "Dan", "Dora", "Eli", "Emma",
        "Eva", "Finn", "Fay", "Gus", "Gia", "Hugo", "Hana", "Ian", "Iris", "Jack", "Jade", "Kai", "Kim", "Leo",
        "Lena", "Max", "Mia", "Nico", "Nora", "Otto", "Olga", "Paul", "Pia", "Quinn", "Rosa", "Ravi", "Sam",
        "Sara", "Tom", "Tara", "Udo", "Uma", "Vic", "Vera", "Walt", "Wren", "Xavi", "Xena", "Yann", "Yara", "Zack",
        "Zoe", "Aron", "Bodo", "Cleo", "Dina", "Egon", "Fritz", "Greta", "Hans", "Ines", "Jonas", "Karla", "Lars",
        "Mona", "Nils", "Oskar", "Petra", "Rolf", "Sina", "Timo", "Ute", "Volker", "Wanda", "Yusuf", "Zeno",
        "Abel", "Berta", "Cyril", "Delia", "Emil", "Frida", "Georg", "Heidi", "Igor", "Jana", "Kurt", "Lotte",
        "Malte", "Nadia", "Olaf", "Pablo", "Rita", "Stig", "Tilda", "Ulla",
    ]
    static let surnames = [
        "Adams", "Abbott", "Baker", "Brown", "Clark", "Cooper", "Davis", "Dixon", "Evans", "Ellis", "Fisher",
        "Foster", "Garcia", "Gray", "Harris", "Hughes", "Ingram", "Irwin", "Jones", "Jensen", "King", "Knight",
        "Lewis", "Lopez", "Miller", "Moore", "Nelson", "Norris", "Owens", "Olsen", "Parker", "Price", "Quinn",
        "Quade", "Reed", "Rogers", "Smith", "Stone", "Taylor", "Turner", "Underwood", "Upton", "Vance", "Vega",
        "Walker", "Wilson", "Xiong", "Xu", "Young", "York", "Zhang", "Ziegler",
    ]
    static let cities = ["Berlin", "Lyon", "Oslo", "Porto", "Kyoto", "Lima", "Perth", "Quito", "Tunis", "Zagreb"]

    private var state: UInt64
    private var serial = 0

    /// A generator whose sequence depends only on `seed`.
    public init(seed: UInt64 = 0x5EED) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func next() -> UInt64 {
        // xorshift64*
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    /// The next person.
    public mutating func person() -> PersonRow {
        serial += 1
        let first = Self.firstNames[Int(next() % UInt64(Self.firstNames.count))]
        let surname = Self.surnames[Int(next() % UInt64(Self.surnames.count))]
        let last = surname + String(next() % 900 + 100)
        return PersonRow(
            firstName: first, lastName: last, email: "\(first.lowercased()).\(serial)@example.org",
            city: Self.cities[Int(next() % UInt64(Self.cities.count))], age: Int64(next() % 90 + 10),
            createdAt: 700_000_000 + Double(serial), section: String(surname.prefix(1)))
    }

    /// The next `count` people.
    public mutating func people(_ count: Int) -> [PersonRow] {
        var rows: [PersonRow] = []
        rows.reserveCapacity(count)
        for _ in 0..<count { rows.append(person()) }
        return rows
    }

    /// A last name from the pool, optionally with a given initial.
    public mutating func lastName(initial: Character? = nil) -> String {
        let pool = initial.map { letter in Self.surnames.filter { $0.first == letter } } ?? Self.surnames
        let surname = pool[Int(next() % UInt64(pool.count))]
        return surname + String(next() % 900 + 100)
    }

    /// A random number below `bound`.
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
