import Foundation
import ThumbRuntime

/// The shared credentials file (AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials) and config
/// file (AWS_CONFIG_FILE, else ~/.aws/config), read for the profile AWS_PROFILE names (else
/// `default`), as an AWS SDK reads them: the credentials file's keys win over the config file's.
/// Only static keys are taken; a profile that gets its credentials another way is refused by name.
struct S3SharedFiles {
    let environment: [String: String]

    /// Profile settings that make an SDK fetch credentials some other way, which thumbd does not.
    private static let unsupported = [
        "credential_process": "credential_process is refused: thumbd runs no programs to get credentials",
        "role_arn": "role_arn (assume role) is not supported",
        "web_identity_token_file": "web_identity_token_file is not supported",
        "sso_session": "SSO profiles are not supported",
        "sso_start_url": "SSO profiles are not supported",
        "credential_source": "credential_source is not supported",
    ]

    func credentials() throws(S3CredentialChain.Refusal) -> (credentials: S3Credentials, source: String)? {
        let home = environment["HOME"] ?? ""
        let profile = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        let credentialsPath = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? home + "/.aws/credentials"
        let configPath = environment["AWS_CONFIG_FILE"] ?? home + "/.aws/config"
        // The config file names profiles `[profile name]`, but `[default]`.
        let inConfig = try Self.section(profile == "default" ? "default" : "profile \(profile)", of: configPath) ?? [:]
        let inCredentials = try Self.section(profile, of: credentialsPath) ?? [:]
        let values = inConfig.merging(inCredentials) { $1 }
        let source = "profile \(profile) of \(credentialsPath) or \(configPath)"
        for (name, why) in Self.unsupported where values[name] != nil {
            throw .init(description: "\(source): \(why); give its keys, or S3_ACCESS_KEY_ID")
        }
        guard let id = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else {
            guard values["aws_access_key_id"] == nil, values["aws_secret_access_key"] == nil else {
                throw .init(description: "\(source): give aws_access_key_id and aws_secret_access_key both")
            }
            if environment["AWS_PROFILE"] != nil && values.isEmpty {
                throw .init(description: "AWS_PROFILE=\(profile): no such profile in \(credentialsPath) or \(configPath)")
            }
            return nil
        }
        return (S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: values["aws_session_token"]), source)
    }

    /// The `name = value` lines of one `[section]` of an INI file; nil when the file or the
    /// section is missing.
    private static func section(_ wanted: String, of path: String) throws(S3CredentialChain.Refusal) -> [String: String]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .init(description: "cannot read \(path): \(error.localizedDescription)")
        }
        var current: String?
        var values: [String: String]?
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                current = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                if current == wanted { values = values ?? [:] }
                continue
            }
            guard current == wanted, let equals = line.firstIndex(of: "=") else { continue }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            values?[name] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return values
    }
}
