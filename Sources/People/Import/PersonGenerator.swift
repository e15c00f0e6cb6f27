import Foundation

/// A small, fast, seedable random number generator (SplitMix64).
///
/// The standard library's generator cannot be seeded, and imports, tests and benchmarks need the same
/// people for the same seed on every machine. SplitMix64 passes the usual statistical tests, costs a few
/// arithmetic operations per number, and every seed (zero included) is fine.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// Returns the next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Makes up plausible people, deterministically, for imports, demos, tests and benchmarks.
///
/// The same seed gives the same people in the same order on every platform. Names come from pools of
/// many languages and scripts, so that a large import fills every section from A to Z, puts CJK, Greek
/// and Cyrillic last names under `#`, and gives about half of the people an accented or non-Latin
/// name, to exercise case- and diacritic-insensitive sorting and searching. Most people have a first
/// name from the same language as their last name; one in four has one from any language.
///
/// Emails are ASCII and carry a running serial number (`ada.abbott.17@example.org`), so they are unique
/// within one generator. To keep them unique across several runs, start later runs with a `firstSerial`
/// past the serials already used.
///
/// Generation is cheap (table look-ups and one string interpolation per person), so a 100,000-person
/// import spends its time in the store, not here.
public struct PersonGenerator: Sendable {
    private var random: SplitMix64
    private let pools: Pools

    /// The serial number the next person's email will carry.
    public private(set) var nextSerial: Int

    /// Creates a generator whose people are fixed by `seed`; emails are numbered from `firstSerial`.
    public init(seed: UInt64, firstSerial: Int = 1) {
        random = SplitMix64(seed: seed)
        pools = Pools.shared
        nextSerial = firstSerial
    }

    /// Makes up the next person.
    public mutating func next() -> PersonRecord {
        let group = pools.groups[pools.groupByTicket[pick(pools.groupByTicket.count)]]
        let last = group.lastNames[pick(group.lastNames.count)]
        let first = random.next() & 3 == 0
            ? pools.allFirstNames[pick(pools.allFirstNames.count)]
            : group.firstNames[pick(group.firstNames.count)]
        let city = group.cities[pick(group.cities.count)]
        let domain = Pools.domains[pick(Pools.domains.count)]
        let serial = nextSerial
        nextSerial &+= 1
        let age = 18 + Int64(pick(73))
        let seconds = Pools.earliestCreation + Double(pick(Pools.creationSpan))
        return PersonRecord(
            firstName: first.text,
            lastName: last.text,
            email: "\(first.slug).\(last.slug).\(serial)@\(domain)",
            city: city,
            age: age,
            createdAt: Date(timeIntervalSince1970: seconds)
        )
    }

    /// Makes up the next `count` people (none when `count` is zero or negative).
    public mutating func make(_ count: Int) -> [PersonRecord] {
        guard count > 0 else { return [] }
        var people: [PersonRecord] = []
        people.reserveCapacity(count)
        for _ in 0..<count {
            people.append(next())
        }
        return people
    }

    private mutating func pick(_ count: Int) -> Int {
        Int(truncatingIfNeeded: random.next(upperBound: UInt64(count)))
    }
}

// MARK: - Name pools

/// A name as shown, and the ASCII spelling used in email addresses.
private struct PoolName: Sendable {
    let text: String
    let slug: String

    init(_ text: String, slug: String? = nil) {
        self.text = text
        self.slug = slug ?? PoolName.asciiSlug(text)
    }

    /// Lower-cases, strips diacritics, spells out letters that have no decomposition, keeps a–z and 0–9.
    static func asciiSlug(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        var slug = ""
        for scalar in folded.unicodeScalars {
            switch scalar {
            case "a"..."z", "0"..."9": slug.unicodeScalars.append(scalar)
            case "A"..."Z": slug += scalar.properties.lowercaseMapping
            case "æ", "Æ": slug += "ae"
            case "ø", "Ø": slug += "o"
            case "ł", "Ł": slug += "l"
            case "đ", "Đ", "ð", "Ð": slug += "d"
            case "œ", "Œ": slug += "oe"
            case "þ", "Þ": slug += "th"
            case "ß": slug += "ss"
            case "ı": slug += "i"
            default: break
            }
        }
        return slug.isEmpty ? "person" : slug
    }
}

/// Names written in Latin letters; the email spelling is derived from them.
private func plain(_ names: [String]) -> [PoolName] {
    names.map { PoolName($0) }
}

/// Names in other scripts, each with the ASCII spelling to use in email addresses.
private func romanized(_ names: KeyValuePairs<String, String>) -> [PoolName] {
    names.map { PoolName($0.key, slug: $0.value) }
}

/// Names and cities that go together, and how often the group is drawn.
private struct NameGroup: Sendable {
    let weight: Int
    let firstNames: [PoolName]
    let lastNames: [PoolName]
    let cities: [String]

    init(weight: Int, first: [PoolName], last: [PoolName], cities: [String]) {
        self.weight = weight
        self.firstNames = first
        self.lastNames = last
        self.cities = cities
    }

    init(weight: Int, first: [String], last: [String], cities: [String]) {
        self.init(weight: weight, first: plain(first), last: plain(last), cities: cities)
    }
}

/// The generator's tables, built once and shared by every generator.
private final class Pools: Sendable {
    static let shared = Pools()

    static let domains = ["example.org", "example.com", "example.net"]
    /// 2019-01-01T00:00:00Z.
    static let earliestCreation: Double = 1_546_300_800
    /// Seven years of seconds: people were created between 2019 and the end of 2025.
    static let creationSpan = 7 * 365 * 24 * 60 * 60

    let groups: [NameGroup]
    /// Group indices, each repeated `weight` times, so that a uniform pick is a weighted pick.
    let groupByTicket: [Int]
    let allFirstNames: [PoolName]

    private init() {
        let groups = Pools.makeGroups()
        self.groups = groups
        groupByTicket = groups.indices.flatMap { Array(repeating: $0, count: groups[$0].weight) }
        allFirstNames = groups.flatMap(\.firstNames)
    }

    private static func makeGroups() -> [NameGroup] {
        [
            NameGroup(
                weight: 30,
                first: ["Ada", "Oliver", "Grace", "Harry", "Amelia", "Jack", "Isla", "Noah", "Sam", "Ruby",
                        "Ethan", "Chloe", "Liam", "Emily", "Mason", "Hannah", "Owen", "Lucy", "Henry", "Ivy",
                        "Leo", "Freya", "Arthur", "Poppy", "George", "Willow", "Theo", "Evelyn", "Jacob", "Maya",
                        "Daniel", "Olivia", "Samuel", "Abigail", "Joseph", "Harper", "Zoë", "Nora", "Quentin",
                        "Violet", "Xander", "Yvonne", "Kyle", "Uma", "Rose", "Felix", "Edward", "Alice"],
                last: ["Abbott", "Adams", "Allen", "Baker", "Bennett", "Brooks", "Carter", "Clarke", "Collins",
                       "Dawson", "Dixon", "Ellis", "Evans", "Fletcher", "Foster", "Gray", "Griffin", "Hughes",
                       "Harris", "Irving", "Ingram", "Jennings", "Johnson", "Kendall", "Knight", "Lawrence",
                       "Lewis", "Morgan", "Mitchell", "Newman", "Nash", "Osborne", "Owens", "Parker", "Powell",
                       "Quinn", "Quigley", "Reynolds", "Russell", "Sutton", "Smith", "Turner", "Thompson",
                       "Underwood", "Upton", "Vaughan", "Vance", "Walsh", "Wright", "Xavier", "Yates", "Young",
                       "Zimmer", "O'Brien", "McAllister"],
                cities: ["London", "Leeds", "Manchester", "Bristol", "Edinburgh", "Dublin", "New York", "Chicago",
                         "Seattle", "Toronto", "Vancouver", "Sydney", "Melbourne", "Auckland", "Cape Town"]
            ),
            NameGroup(
                weight: 8,
                first: ["Jürgen", "Lena", "Lukas", "Sophie", "Jörg", "Anja", "Günter", "Käthe", "Maximilian",
                        "Mia", "Jonas", "Clara", "Tobias", "Marlene", "Björn", "Hanna", "Uwe", "Heike"],
                last: ["Müller", "Schröder", "Weiß", "Bäcker", "Krüger", "Vogel", "Zimmermann", "Hoffmann",
                       "Köhler", "Schäfer", "Fuchs", "Wagner", "Becker", "von Essen", "Gößmann", "Übel",
                       "Quandt", "Jäger", "Nußbaum", "Ostermann", "Yildiz-Berger"],
                cities: ["Berlin", "München", "Köln", "Düsseldorf", "Hamburg", "Zürich", "Wien", "Graz", "Bern"]
            ),
            NameGroup(
                weight: 4,
                first: ["Daan", "Sanne", "Bram", "Femke", "Joost", "Lotte", "Sem", "Anouk", "Ruud", "Ilse"],
                last: ["van Dijk", "van der Meer", "de Jong", "de Vries", "Bakker", "Visser", "Jansen",
                       "van den Berg", "IJzerman", "Smit", "Kuipers", "ter Horst"],
                cities: ["Amsterdam", "Rotterdam", "Utrecht", "Eindhoven", "Antwerpen", "Gent"]
            ),
            NameGroup(
                weight: 6,
                first: ["Åsa", "Björn", "Sigríður", "Søren", "Ingrid", "Mikael", "Ærin", "Øystein", "Linnéa",
                        "Astrid", "Jóhann", "Freja", "Magnús", "Sölvi", "Kjersti", "Aino"],
                last: ["Åberg", "Ærenlund", "Østergaard", "Øberg", "Lindqvist", "Nyström", "Söderberg",
                       "Hjálmarsson", "Úlfarsson", "Jónsdóttir", "Kristiansen", "Halvorsen", "af Klint",
                       "Engström", "Rasmussen", "Virtanen", "Mäkinen", "Þórsdóttir", "Ødegård", "Quist"],
                cities: ["Malmö", "Göteborg", "Stockholm", "Aarhus", "København", "Tromsø", "Oslo", "Reykjavík",
                         "Helsinki", "Tampere", "Ærøskøbing"]
            ),
            NameGroup(
                weight: 6,
                first: ["Renée", "Étienne", "Chloé", "Amélie", "François", "Hélène", "Jérôme", "Noémie", "Océane",
                        "Gaëlle", "Raphaël", "Zoé", "Léa", "Théo", "Inès", "Maël"],
                last: ["Émond", "Lefèvre", "Dubois", "Garnier", "Moreau", "Fournier", "Giraud", "le Gall",
                       "Béranger", "Rousseau", "Yvon", "Xiberras", "Quéré", "Vasseur", "d'Aubigné", "Ébrard",
                       "Nègre", "Caron"],
                cities: ["Paris", "Lyon", "Marseille", "Toulouse", "Nîmes", "Genève", "Lausanne", "Montréal",
                         "Québec", "Bruxelles", "Liège"]
            ),
            NameGroup(
                weight: 8,
                first: ["José", "María", "Lucía", "Sofía", "Martín", "Álvaro", "Inés", "Andrés", "Ramón",
                        "Begoña", "Iñaki", "Valentina", "Mateo", "Camila", "Jesús", "Ximena", "Joaquín", "Paz"],
                last: ["Álvarez", "García", "Jiménez", "Núñez", "Ortega", "de la Cruz", "del Río", "Íñiguez",
                       "Zapata", "Quintero", "Quispe", "Ximénez", "Yáñez", "Uribe", "Vargas", "Castañeda",
                       "Muñoz", "Hernández", "López", "Ibáñez", "Echeverría", "Rodríguez", "Peña"],
                cities: ["Madrid", "Sevilla", "Málaga", "Córdoba", "A Coruña", "Bilbao", "Bogotá", "Medellín",
                         "Ciudad de México", "Lima", "Buenos Aires", "Santiago", "Quito"]
            ),
            NameGroup(
                weight: 5,
                first: ["João", "Conceição", "Gonçalo", "Leonor", "Tomás", "Mariana", "Luís", "Beatriz", "Thiago",
                        "Letícia"],
                last: ["da Silva", "dos Santos", "Gonçalves", "Magalhães", "Araújo", "Fernandes", "Pereira",
                       "Oliveira", "Sousa", "Carvalho", "Ribeiro", "Assunção"],
                cities: ["São Paulo", "Rio de Janeiro", "Brasília", "Belém", "Curitiba", "Lisboa", "Porto",
                         "Coimbra"]
            ),
            NameGroup(
                weight: 4,
                first: ["Giulia", "Lorenzo", "Chiara", "Niccolò", "Francesca", "Matteo", "Ilaria", "Andrea",
                        "Gianluca", "Beatrice"],
                last: ["Rossi", "Bianchi", "Esposito", "Ricci", "di Marco", "Lombardi", "Fabbri", "Zanetti",
                       "Quaranta", "Greco", "Colombo", "De Luca", "Vitale"],
                cities: ["Roma", "Milano", "Torino", "Napoli", "Bologna", "Firenze", "Palermo"]
            ),
            NameGroup(
                weight: 5,
                first: ["Łukasz", "Małgorzata", "Paweł", "Agnieszka", "Wojciech", "Zuzanna", "Jiří", "Tereza",
                        "Kateřina", "Ondřej", "Bartłomiej", "Zoltán", "Réka"],
                last: ["Łukasiewicz", "Łopatka", "Wójcik", "Kowalczyk", "Zieliński", "Nowak", "Kamińska",
                       "Čapek", "Dvořák", "Novotná", "Řezníček", "Šimková", "Szabó", "Tóth", "Kovács",
                       "Ujváry", "Yanev"],
                cities: ["Kraków", "Warszawa", "Łódź", "Gdańsk", "Wrocław", "Praha", "Brno", "Plzeň",
                         "Budapest", "Pécs"]
            ),
            NameGroup(
                weight: 4,
                first: ["Ayşe", "Mehmet", "Elif", "Çağrı", "Gökhan", "Şebnem", "Oğuz", "Zeynep", "Emre", "İrem"],
                last: ["Ünal", "Çelik", "Çakır", "Şahin", "Öztürk", "Yılmaz", "Işık", "İnce", "Güneş", "Aydın",
                       "Uçar", "Erdoğan", "Koç"],
                cities: ["İstanbul", "Ankara", "İzmir", "Eskişehir", "Bursa", "Antalya"]
            ),
            NameGroup(
                weight: 3,
                first: ["Đorđe", "Milica", "Nikola", "Jelena", "Luka", "Ivana", "Dušan", "Snežana", "Žarko",
                        "Ana"],
                last: ["Đorđević", "Đukić", "Jovanović", "Živković", "Šimić", "Horvat", "Kovačević", "Babić",
                       "Petrović", "Vuković"],
                cities: ["Beograd", "Niš", "Novi Sad", "Zagreb", "Split", "Ljubljana", "Sarajevo"]
            ),
            NameGroup(
                weight: 3,
                first: ["Thảo", "Đức", "Minh", "Hương", "Quang", "Ngọc", "Phương", "Tuấn", "Linh", "Hải"],
                last: ["Nguyễn", "Trần", "Lê", "Phạm", "Vũ", "Đặng", "Bùi", "Hoàng", "Quách", "Đỗ"],
                cities: ["Hà Nội", "Hồ Chí Minh", "Đà Nẵng", "Huế", "Hải Phòng"]
            ),
            NameGroup(
                weight: 4,
                first: romanized(["花子": "hanako", "太郎": "taro", "優子": "yuko", "翔太": "shota", "さくら": "sakura",
                                  "健": "ken"]) + plain(["Haruto", "Yui", "Sōta", "Aoi"]),
                last: romanized(["田中": "tanaka", "鈴木": "suzuki", "佐藤": "sato", "高橋": "takahashi",
                                 "渡辺": "watanabe", "山本": "yamamoto"])
                    + plain(["Yamamoto", "Itō", "Nakamura", "Ōta", "Kobayashi", "Matsumoto"]),
                cities: ["東京", "大阪", "京都", "札幌", "Yokohama", "Fukuoka", "Nagoya"]
            ),
            NameGroup(
                weight: 4,
                first: romanized(["伟": "wei", "芳": "fang", "秀英": "xiuying", "磊": "lei", "静": "jing"])
                    + plain(["Xiaoming", "Mei", "Jun", "Yuxuan", "Zihan"]),
                last: romanized(["王": "wang", "李": "li", "张": "zhang", "刘": "liu", "陈": "chen", "杨": "yang"])
                    + plain(["Xu", "Zhang", "Huang", "Guo", "Xie", "Qian", "Wu"]),
                cities: ["北京", "上海", "深圳", "香港", "台北", "Chengdu", "Hangzhou", "Singapore"]
            ),
            NameGroup(
                weight: 3,
                first: romanized(["민준": "minjun", "서연": "seoyeon", "지훈": "jihoon", "하은": "haeun"])
                    + plain(["Ji-woo", "Seo-yun", "Do-hyun"]),
                last: romanized(["김": "kim", "이": "lee", "박": "park", "최": "choi"])
                    + plain(["Jeong", "Kang", "Yoon", "Han"]),
                cities: ["서울", "부산", "Incheon", "Daegu", "Gwangju"]
            ),
            NameGroup(
                weight: 2,
                first: romanized(["Γιώργος": "giorgos", "Ελένη": "eleni", "Анна": "anna", "Дмитрий": "dmitry"])
                    + plain(["Nikos", "Katerina", "Olga", "Pavel"]),
                last: romanized(["Παπαδόπουλος": "papadopoulos", "Иванова": "ivanova", "Смирнов": "smirnov"])
                    + plain(["Papadakis", "Kuznetsov", "Volkova", "Economou", "Yakovlev"]),
                cities: ["Αθήνα", "Thessaloniki", "Москва", "Kyiv", "Tbilisi", "Sofia"]
            ),
            NameGroup(
                weight: 3,
                first: ["Aisha", "Omar", "Fatima", "Youssef", "Amara", "Kwame", "Chiamaka", "Tendai", "Zainab",
                        "Ibrahim", "Nia", "Oluwaseun"],
                last: ["Okafor", "Mensah", "Abubakar", "Diallo", "Nwosu", "Haddad", "El-Amin", "Ndlovu",
                       "Kamau", "Oyelaran", "Bello", "Ogunleye"],
                cities: ["Lagos", "Accra", "Nairobi", "Dakar", "Casablanca", "Cairo", "Johannesburg", "Kigali"]
            ),
            NameGroup(
                weight: 3,
                first: ["Aarav", "Priya", "Rohan", "Ananya", "Vikram", "Saanvi", "Arjun", "Ishita", "Kabir",
                        "Meera"],
                last: ["Sharma", "Patel", "Iyer", "Reddy", "Gupta", "Banerjee", "Nair", "Kapoor", "Venkatesan",
                       "Joshi", "Upadhyay"],
                cities: ["Mumbai", "Bengaluru", "Delhi", "Chennai", "Pune", "Kolkata"]
            ),
        ]
    }
}
