/// A config template filled in: each `{{name}}` in its text replaced by the value of that name,
/// in one pass, so a value is never searched for placeholders itself. A placeholder without a
/// value is the generator's bug, found by the first site written.
enum NginxTemplate {
    static func filled(_ template: [UInt8], with values: [String: String]) -> String {
        var rest = Substring(String(decoding: template, as: UTF8.self))
        var text = ""
        while let open = rest.firstRange(of: "{{") {
            guard let close = rest[open.upperBound...].firstRange(of: "}}") else {
                preconditionFailure("the template has a {{ without }}")
            }
            let name = String(rest[open.upperBound..<close.lowerBound])
            guard let value = values[name] else { preconditionFailure("the template's {{\(name)}} has no value") }
            text += rest[..<open.lowerBound] + value
            rest = rest[close.upperBound...]
        }
        return text + rest
    }
}
