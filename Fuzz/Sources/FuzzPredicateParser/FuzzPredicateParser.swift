import Foundation
import ObjectGraph

// A libFuzzer target for the predicate parser. Every input is read as a format string (with arguments for
// its `%` specifiers) and must come back as a predicate or a FetchPredicateError, never a crash or a hang.
// A parsed predicate must print to a format that parses back to the same tree, and must select the same
// objects of a small graph whether it is compiled to SQL, evaluated by the in-memory store, or evaluated
// on the objects themselves.
//
// SwiftPM links executables with `--defsym main=<Module>_main`, so the target defines that symbol and
// hands control to libFuzzer's driver; `LLVMFuzzerTestOneInput` is there for libFuzzer's own `main` too.

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The fixture, made once per process.
let fixture: PredicateFixture = {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("fuzz-predicate-\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.removeItem(at: directory)
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    do {
        return try PredicateFixture(directory: directory)
    } catch {
        fatalError("cannot build the fixture: \(error)")
    }
}()

/// Arguments for the specifiers, in turn: a key for `%K`, numbers for `%d`/`%f`, values and a collection
/// for `%@`. A specifier that gets an argument of the wrong kind is an error, which is fine.
func argumentPool() -> [any PredicateArgument] { [
    "name", 3, 2.5, "Zoë", ["Zoë", "zoe"], "company.name", 7, Optional<String>.none, "x' OR 1=1 --", [1, 2],
    "tags.name", true, Date(timeIntervalSinceReferenceDate: 42),
] }

/// Parses `format`, giving it as many arguments as it has specifiers.
func parse(_ format: String) -> FetchPredicate? {
    let specifiers = min(format.filter { $0 == "%" }.count, 24)
    var count = specifiers
    let pool = argumentPool()
    while count >= 0 {
        let arguments = (0..<count).map { pool[$0 % pool.count] }
        do {
            return try FetchPredicate(format: format, argumentArray: arguments)
        } catch {
            precondition(!error.description.isEmpty, "empty error")
            if let offset = error.offset { precondition(offset >= 0 && offset <= format.count, "offset \(offset)") }
            guard error.kind == .argument, error.message == "Too many arguments" else { return nil }
            count -= 1
        }
    }
    return nil
}

func fuzzOne(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let format = String(decoding: UnsafeBufferPointer(start: bytes, count: bytes == nil ? 0 : count), as: UTF8.self)
    guard let predicate = parse(format) else { return 0 }
    let printed = predicate.predicateFormat
    do {
        let reparsed = try FetchPredicate(format: printed)
        precondition(reparsed == predicate, "\(printed) parses to \(reparsed.predicateFormat)")
    } catch {
        preconditionFailure("the printed form \(printed) does not parse: \(error)")
    }
    _ = predicate.referencedKeys
    _ = predicate.evaluate { _ in .null }
    fixture.check(predicate)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzzOne(bytes, count)
}

@_cdecl("FuzzPredicateParser_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { bytes, size in fuzzOne(bytes, size) }
}
