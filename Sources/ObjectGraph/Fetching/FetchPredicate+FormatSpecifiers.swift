import Foundation

// `%@`, `%K`, `%d`, `%f`…: how the tokenizer substitutes arguments, left to right, as it meets them.
extension FetchPredicate.Tokenizer {
    typealias ArgumentValue = FetchPredicate.ArgumentValue
    typealias TextArgument = FetchPredicate.TextArgument

    mutating func scanSpecifier() throws(FetchPredicateError) -> Kind {
        let start = position
        position += 1
        guard let first = peek() else {
            throw error("Incomplete format specifier '%'", at: start, kind: .argument)
        }
        if first == "%" {
            position += 1
            throw error(
                "Literal '%%' outside a string", at: start,
                reason: "a percent sign can only appear inside a quoted string")
        }
        if first == "@" || first == "K" {
            position += 1
            if first == "@", let placeholder = takeTextPlaceholder() { return .variable(placeholder) }
            let value = try takeArgument(specifier: first == "@" ? "%@" : "%K", at: start)
            if first == "@" { return .argument(value) }
            guard case .single(let keyValue) = value, let key = keyValue.stringValue else {
                throw error(
                    "Argument \(nextArgument) for %K is not a string", at: start, kind: .argument,
                    reason: "%K takes the name of a key")
            }
            guard
                key.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({
                    Self.isIdentifier(String($0))
                })
            else {
                throw error(
                    "Argument \(nextArgument) for %K is not a valid key", at: start, kind: .argument,
                    reason: "a key is a name made of letters, digits and underscores")
            }
            return .identifier(key, fromArgument: true)
        }
        // printf-style: flags, width, precision, length modifier, conversion.
        while let next = peek(), "-+ #0123456789.".unicodeScalars.contains(next) { position += 1 }
        while let next = peek(), "hlqLzjt".unicodeScalars.contains(next) { position += 1 }
        guard let conversion = peek() else {
            throw error("Incomplete format specifier", at: start, kind: .argument)
        }
        position += 1
        let specifier = String(String.UnicodeScalarView(scalars[start..<position]))
        if "diuoxXDUOfFeEgGaA".unicodeScalars.contains(conversion), let placeholder = takeTextPlaceholder() {
            return .variable(placeholder)
        }
        switch conversion {
        case "d", "i", "u", "o", "x", "X", "D", "U", "O":
            let value = try takeArgument(specifier: specifier, at: start)
            switch value {
            case .single(.integer(let number)): return .argument(.single(.integer(number)))
            case .single(.boolean(let flag)): return .argument(.single(.integer(flag ? 1 : 0)))
            default:
                throw error(
                    "Argument \(nextArgument) for \(specifier) is not an integer", at: start, kind: .argument,
                    reason: "use %@ for values of other kinds")
            }
        case "f", "F", "e", "E", "g", "G", "a", "A":
            let value = try takeArgument(specifier: specifier, at: start)
            switch value {
            case .single(let number) where number.doubleValue != nil && number.stringValue == nil:
                return .argument(.single(.double(number.doubleValue ?? 0)))
            default:
                throw error(
                    "Argument \(nextArgument) for \(specifier) is not a number", at: start, kind: .argument,
                    reason: "use %@ for values of other kinds")
            }
        default:
            throw error(
                "Unsupported format specifier '\(specifier)'", at: start, kind: .argument,
                reason: "use %@ for values, %K for keys, %d or %f for numbers")
        }
    }

    /// For an argument given as text (``FetchPredicate/TextArgument``): the placeholder variable that
    /// stands for it until its type is known.
    mutating func takeTextPlaceholder() -> String? {
        guard nextArgument < arguments.count, arguments[nextArgument] is TextArgument else { return nil }
        defer { nextArgument += 1 }
        return TextArgument.placeholder(nextArgument)
    }

    mutating func takeArgument(specifier: String, at start: Int) throws(FetchPredicateError) -> ArgumentValue {
        guard nextArgument < arguments.count else {
            throw error(
                "Missing argument for \(specifier)", at: start, kind: .argument,
                reason: "the format needs at least \(nextArgument + 1) arguments but \(arguments.count) were given")
        }
        let value = arguments[nextArgument].predicateArgumentValue
        nextArgument += 1
        return value
    }
}
