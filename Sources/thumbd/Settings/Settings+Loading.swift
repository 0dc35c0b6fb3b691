import Foundation
import ThumbFetch
import ThumbRuntime

/// Reads every declared setting from one lookup (a flag, else THUMBD_NAME, else IMGPROXY_NAME
/// where imgproxy has the same setting, else the settings file) and checks all of them, then
/// the rules each stage declares among its own, so a bad start lists every problem at once
/// instead of one per attempt.
extension Settings {
    public struct Problems: Error, CustomStringConvertible {
        public let messages: [String]
        public var description: String { messages.joined(separator: "\n") }
    }

    /// A setting's value from the first source that has it, with where it came from.
    public typealias Lookup = (Setting<Settings>) -> (value: String, origin: String)?

    /// - Parameter environment: the process's, where the AWS credential chain starts (AWS_*); the
    ///   settings themselves come from `lookup`.
    public static func load(_ lookup: Lookup, environment: [String: String] = [:]) -> Result<Settings, Problems> {
        var settings = Settings()
        settings.fetch.s3.region = [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"]].compactMap { $0 }
            .first { !$0.isEmpty } ?? settings.fetch.s3.region
        var problems: [String] = []
        var refused: Set<String> = []
        // A deprecated name first, so that the current one wins when both are given.
        let ordered = declared.filter { $0.deprecatedFor != nil } + declared.filter { $0.deprecatedFor == nil }
        for setting in ordered {
            guard let (value, origin) = lookup(setting) else { continue }
            settings.given[setting.name] = value
            do {
                try setting.apply(value, to: &settings)
            } catch {
                let invalid = error as? InvalidSetting ?? InvalidSetting(expected: "\(error)")
                problems.append(message(invalid, setting: setting, value: value, origin: origin))
                refused.insert(setting.name)
            }
        }
        problems += exclusiveProblems(given: settings.given)
        for validation in table.validations where validation.names.isDisjoint(with: refused) {
            problems += validation.check(settings).map { problem in
                guard let name = problem.setting, let (value, origin) = lookup(setting(name)) else { return problem.message }
                return message(InvalidSetting(expected: problem.message), setting: setting(name), value: value, origin: origin)
            }
        }
        if let problem = settings.resolveS3Credentials(environment: environment) { problems.append(problem) }
        return problems.isEmpty ? .success(settings) : .failure(Problems(messages: problems))
    }

    /// `origin=value: expected`, the value shown unless it is a secret's.
    private static func message(_ invalid: InvalidSetting, setting: Setting<Settings>, value: String,
                                origin: String) -> String {
        guard invalid.quotesValue else { return "\(origin): \(invalid.expected)" }
        guard setting.secret else { return "\(origin)=\(value.debugDescription): \(invalid.expected)" }
        return "\(origin)=\(secretShown): \(redacting(value, in: invalid.expected))"
    }

    /// Settings that give one thing in several ways (a fallback image from a file, base64 or a
    /// URL): more than one of a group given is a problem naming them.
    private static func exclusiveProblems(given: [String: String]) -> [String] {
        var groups: [String] = []
        var members: [String: [String]] = [:]
        for setting in declared {
            guard let group = setting.exclusive, given[setting.name] != nil else { continue }
            if members[group] == nil { groups.append(group) }
            members[group, default: []].append(setting.name)
        }
        return groups.compactMap { group in
            guard let names = members[group], names.count > 1 else { return nil }
            return "\(names.joined(separator: ", ")): give one \(group) only"
        }
    }

    /// What a message says in place of a secret setting's value.
    static let secretShown = "(secret, not shown)"

    /// `message` without any part of the secret `value` it may quote (a check that names the
    /// entry it refused): each comma-separated entry, and the whole, becomes `secretShown`.
    static func redacting(_ value: String, in message: String) -> String {
        let parts = [value] + value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return parts.filter { !$0.isEmpty }.sorted { $0.count > $1.count }.reduce(message) {
            $0.replacingOccurrences(of: $1, with: secretShown)
        }
    }
}
