import CLibXML2
import Foundation

// The only file that calls libxml2. It turns a document into a small Swift tree (`XMLTreeElement`) and
// libxml2's complaints into `XMLReadFailure`; everything that knows about Core Data lives elsewhere.
//
// Foundation's XMLParser is not used: on Linux it traps on invalid UTF-8 in names and reports success for
// some malformed documents (see reliability-anchors §3.4). libxml2 is asked for the safe subset only:
// no network, no external DTD, no entity substitution; a document type declaration stops the parse (Xcode
// never writes one, and it is where entity bombs live).

/// One element of a parsed document: its name, attributes, child elements, text and the line it starts on.
struct XMLTreeElement: Sendable, Hashable {
    /// The element's name (`"entity"`).
    var name: String
    /// Its attributes by name, entity references resolved (`&quot;` → `"`).
    var attributes: [String: String]
    /// Its child elements, in document order.
    var children: [XMLTreeElement]
    /// The text directly inside it (text and CDATA children, concatenated).
    var text: String
    /// The line of its start tag, from 1.
    var line: Int

    /// The value of the attribute `name`, if present.
    subscript(_ name: String) -> String? { attributes[name] }

    /// The child elements named `name`.
    func children(named name: String) -> [XMLTreeElement] { children.filter { $0.name == name } }
}

/// Why a document could not be read into a tree.
struct XMLReadFailure: Error, Sendable, Hashable {
    /// What went wrong.
    enum Kind: Sendable, Hashable {
        /// The bytes are not well-formed XML (or not UTF-8, or declare a DTD).
        case malformed
        /// The document is larger, deeper or has more elements than the reader accepts.
        case tooLarge
    }

    var kind: Kind
    /// A message for people, without a trailing newline.
    var message: String
    /// The line of the problem, from 1, when known.
    var line: Int?
    /// The column of the problem, from 1, when known.
    var column: Int?
}

/// Reads XML bytes into an `XMLTreeElement` tree with libxml2, within fixed limits.
enum XMLTreeReader {
    /// How much a document may hold. The defaults are far above any real model file.
    struct Limits: Sendable {
        /// The most bytes a document may have.
        var maxBytes = 16 << 20
        /// The most elements a document may have.
        var maxElements = 250_000
        /// The deepest nesting of elements (libxml2 also refuses more than 256 on its own).
        var maxDepth = 128
    }

    /// Parses `data` into the tree under its root element.
    ///
    /// - Parameter allowsDocumentType: whether a `<!DOCTYPE>` line may be present (property lists have one;
    ///   model files never do). Its external DTD is never loaded, and entity declarations stop the parse
    ///   either way.
    static func read(_ data: Data, allowsDocumentType: Bool = false, limits: Limits = Limits()) throws(XMLReadFailure)
        -> XMLTreeElement
    {
        guard data.count <= limits.maxBytes else {
            throw XMLReadFailure(kind: .tooLarge, message: "The document has \(data.count) bytes; at most "
                + "\(limits.maxBytes) are accepted.", line: nil, column: nil)
        }
        try checkUTF8(data)
        _ = libxml2Ready
        guard let context = xmlNewParserCtxt() else {
            throw XMLReadFailure(kind: .malformed, message: "libxml2 could not create a parser.", line: nil,
                column: nil)
        }
        defer { xmlFreeParserCtxt(context) }
        // A DOCTYPE stops the parse before libxml2 reads its contents, and so does any entity declaration.
        if !allowsDocumentType {
            context.pointee.sax.pointee.internalSubset = { context, _, _, _ in
                xmlStopParser(context?.assumingMemoryBound(to: xmlParserCtxt.self))
            }
        }
        context.pointee.sax.pointee.entityDecl = { context, _, _, _, _, _ in
            xmlStopParser(context?.assumingMemoryBound(to: xmlParserCtxt.self))
        }

        let options = XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_NOCDATA.rawValue | XML_PARSE_BIG_LINES.rawValue
        let document = data.withUnsafeBytes { bytes -> xmlDocPtr? in
            guard let base = bytes.baseAddress else { return nil }
            return xmlCtxtReadMemory(context, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil,
                "UTF-8", Int32(bitPattern: options))
        }
        defer { if let document { xmlFreeDoc(document) } }
        if context.pointee.errNo == Int32(XML_ERR_USER_STOP.rawValue) {
            let place = lastError(context)
            throw XMLReadFailure(kind: .malformed, message: allowsDocumentType ? "Entity declarations are not allowed."
                : "Document type declarations are not allowed in a model file.", line: place.line, column: place.column)
        }
        guard let document, context.pointee.wellFormed != 0, let root = xmlDocGetRootElement(document) else {
            let error = lastError(context)
            throw XMLReadFailure(kind: .malformed, message: error.message ?? "The document has no root element.",
                line: error.line, column: error.column)
        }
        return try tree(from: root, document: document, limits: limits)
    }

    /// libxml2's global set-up, done once before the first parse (thread-safe: a global `let`).
    private static let libxml2Ready: Void = xmlInitParser()

    /// The parser's last error: message, line and column (libxml2 keeps the column in `int2`).
    private static func lastError(_ context: xmlParserCtxtPtr) -> (message: String?, line: Int?, column: Int?) {
        guard let error = xmlCtxtGetLastError(context), error.pointee.code != 0 else {
            let line = context.pointee.input.map { Int($0.pointee.line) } ?? 0
            let column = context.pointee.input.map { Int($0.pointee.col) } ?? 0
            return (nil, line > 0 ? line : nil, column > 0 ? column : nil)
        }
        let message = error.pointee.message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) }
        let line = error.pointee.line > 0 ? Int(error.pointee.line) : nil
        let column = error.pointee.int2 > 0 ? Int(error.pointee.int2) : nil
        return (message, line, column)
    }

    /// Builds the tree without recursion, counting elements and depth.
    private static func tree(from root: xmlNodePtr, document: xmlDocPtr, limits: Limits) throws(XMLReadFailure)
        -> XMLTreeElement
    {
        struct Frame {
            var element: XMLTreeElement
            var next: xmlNodePtr?
        }
        var stack = [Frame(element: element(root, document), next: root.pointee.children)]
        var count = 1
        while let top = stack.indices.last {
            guard let node = stack[top].next else {
                let done = stack.removeLast().element
                guard let parent = stack.indices.last else { return done }
                stack[parent].element.children.append(done)
                continue
            }
            stack[top].next = node.pointee.next
            switch node.pointee.type {
            case XML_ELEMENT_NODE:
                count += 1
                let line = xmlGetLineNo(node)
                guard count <= limits.maxElements else {
                    throw XMLReadFailure(kind: .tooLarge, message: "The document has more than \(limits.maxElements) "
                        + "elements.", line: line > 0 ? line : nil, column: nil)
                }
                guard stack.count < limits.maxDepth else {
                    throw XMLReadFailure(kind: .tooLarge, message: "Elements are nested more than \(limits.maxDepth) "
                        + "levels deep.", line: line > 0 ? line : nil, column: nil)
                }
                stack.append(Frame(element: element(node, document), next: node.pointee.children))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = node.pointee.content { stack[top].element.text += string(content) }
            default:
                break
            }
        }
        return stack.first?.element ?? element(root, document)
    }

    /// One element's name, attributes and line, without its children.
    private static func element(_ node: xmlNodePtr, _ document: xmlDocPtr) -> XMLTreeElement {
        var attributes: [String: String] = [:]
        var attribute = node.pointee.properties
        while let current = attribute {
            if let name = current.pointee.name {
                var value = ""
                if let raw = xmlNodeListGetString(document, current.pointee.children, 1) {
                    value = string(raw)
                    clibxml2_free(raw)
                }
                attributes[string(name)] = value
            }
            attribute = current.pointee.next
        }
        let line = xmlGetLineNo(node)
        return XMLTreeElement(name: node.pointee.name.map(string) ?? "", attributes: attributes, children: [], text: "",
            line: line > 0 ? line : 0)
    }

    /// A libxml2 string (always UTF-8) as a Swift string.
    private static func string(_ pointer: UnsafePointer<xmlChar>) -> String {
        let count = strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Refuses bytes that are not UTF-8, naming the line and column of the first bad byte.
    private static func checkUTF8(_ data: Data) throws(XMLReadFailure) {
        if data.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) != nil { return }
        var decoder = UTF8()
        var iterator = data.makeIterator()
        var line = 1
        var column = 1
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                offset += UTF8.width(scalar)
                if scalar == "\n" {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            case .emptyInput:
                return
            case .error:
                throw XMLReadFailure(kind: .malformed, message: "The document is not valid UTF-8 (bad byte at offset "
                    + "\(offset)).", line: line, column: column)
            }
        }
    }
}
