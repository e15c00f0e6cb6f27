import Foundation
import ObjectGraph

// A libFuzzer target for the model loader. Every input must come back as a model or a ModelLoadError;
// a crash, a trap or a hang is a finding. A loaded model is walked as the framework walks it (inheritance,
// entity numbers, lookups) so that a model that only *looks* consistent is caught too.
//
// SwiftPM links executables with `--defsym main=<Module>_main`, so the target defines that symbol and
// hands control to libFuzzer's driver; `LLVMFuzzerTestOneInput` is there for libFuzzer's own `main` too.

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
        let model = try ManagedObjectModel.load(xml: data, source: "fuzz")
        exercise(model)
    } catch {
        // Every error must be describable and name its source.
        let text = error.description
        precondition(!text.isEmpty && error.file == "fuzz", "bad error: \(text)")
        if let line = error.line { precondition(line > 0, "line \(line) in \(text)") }
        if let column = error.column { precondition(column > 0, "column \(column) in \(text)") }
    }
    return 0
}

/// Walks a loaded model: every entity resolves, numbers are distinct, relationships lead somewhere.
func exercise(_ model: ManagedObjectModel) {
    var numbers: Set<Int> = []
    for entity in model.entities {
        precondition(model.entity(named: entity.name) === entity, "lookup of \(entity.name)")
        precondition(numbers.insert(model.entityNumber(of: entity)).inserted, "entity number of \(entity.name)")
        _ = model.rootEntity(of: entity)
        _ = model.entityAndDescendants(of: entity)
        for relationship in entity.relationships {
            precondition(model.entity(named: relationship.destinationEntityName) != nil, "destination")
        }
        for attribute in entity.attributes { _ = attribute.description }
    }
    _ = model.description
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzzOne(bytes, count)
}

@_cdecl("FuzzModelLoader_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { bytes, size in fuzzOne(bytes, size) }
}
