import Foundation
import ObjectGraph

// A libFuzzer target for the compiled-model reader: Foundation's property-list parser, the keyed-archive reader
// (UIDs, object references, NSDictionary / NSKnownKeysDictionary1 entries) and the .mom decoder, with composite
// attributes and the archived predicates of fetch request templates. Every input must
// come back as a model or a ModelLoadError; a crash, a trap or a hang is a finding. A loaded model is walked as
// the framework walks it.
//
// SwiftPM links executables with `--defsym main=<Module>_main`, so the target defines that symbol and hands
// control to libFuzzer's driver; `LLVMFuzzerTestOneInput` is there for libFuzzer's own `main` too.

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Loads one input and checks what came back.
func fuzzOne(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    do {
        let model = try ManagedObjectModel.load(compiled: data, source: "fuzz")
        var numbers: Set<Int> = []
        for entity in model.entities {
            precondition(model.entity(named: entity.name) === entity, "lookup of \(entity.name)")
            precondition(numbers.insert(model.entityNumber(of: entity)).inserted, "entity number of \(entity.name)")
            for relationship in entity.relationships {
                precondition(model.entity(named: relationship.destinationEntityName) != nil, "destination")
            }
        }
        for entity in model.entities {
            for composite in entity.compositeAttributes {
                precondition(composite.attributeType == .composite, "composite \(composite.name)")
                precondition(entity.compositeAttribute(named: composite.name) != nil, "composite lookup")
            }
            _ = entity.ownDeclaredAttributes
        }
        for template in model.fetchRequestTemplates {
            // An archived predicate is read at load; its format must parse back (or the template says why not).
            if template.unreadablePredicate == nil, let format = template.predicateFormat {
                precondition((try? FetchPredicate(format: format)) != nil, "template \(template.name): \(format)")
            }
        }
        _ = model.entityVersionHashes
        _ = model.description
    } catch {
        precondition(!error.description.isEmpty && error.file == "fuzz", "bad error: \(error.description)")
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzzOne(bytes, count)
}

@_cdecl("FuzzCompiledModel_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { bytes, size in fuzzOne(bytes, size) }
}
