import ArgumentParser
import ThumbCore

struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Print the signed URL path for PATH with the configured key and salt.",
        discussion: "Example: thumbd sign --key 736563726574 --salt 68656C6C6F /rs:fill:300:200/plain/https://example.com/cat.jpg@webp"
    )

    @OptionGroup var settings: SettingsOptions

    @Argument(help: "The path after the signature, starting with /: options, then the source.")
    var path: String

    func run() throws {
        guard path.hasPrefix("/") else { throw ValidationError("PATH must start with /") }
        let signing = try settings.configuration().signing
        let signature = signing.pairs.first.map { signing.signature(for: Substring(path), with: $0) } ?? "insecure"
        print("/\(signature)\(path)")
    }
}
