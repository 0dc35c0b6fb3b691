import ArgumentParser
import ThumbRuntime

/// thumbd(1): the subcommands from the command line's own declarations and every setting from the
/// settings' declarations, in man(7) markup, so that the page cannot fall behind either.
extension Settings {
    public static func manPage(version: String) -> String {
        var lines = [
            #".TH THUMBD 1 "" "thumbd \#(roff(version))" "User Commands""#,
            ".SH NAME",
            #"thumbd \- \#(roff(Thumbd.configuration.abstract))"#,
            ".SH SYNOPSIS",
            #".B thumbd"#,
            #"[\fICOMMAND\fR] [\fIOPTIONS\fR]"#,
            ".SH DESCRIPTION",
            roff(Thumbd.configuration.discussion),
            ".SH COMMANDS",
        ]
        for command in Thumbd.configuration.subcommands {
            lines += commandEntries(command, prefix: "thumbd")
        }
        lines += [
            ".SH SETTINGS",
            "Each setting is an environment variable and an entry of the settings file.",
            roff(SettingFlags.summary { $0 }),
            "Secret values (keys, salts, credentials) are never printed.",
        ]
        for declaration in declared {
            lines.append(".TP")
            lines.append(#"\fB\-\-\#(roff(declaration.flag))\fR"#)
            lines.append(roff(declaration.details ?? declaration.help))
            lines.append(".br")
            lines.append("Environment: " + declaration.environmentNames.map { #"\fB\#(roff($0))\fR"# }.joined(separator: ", ") + ".")
            if let value = declaration.defaultText(in: defaults) {
                lines.append(".br")
                lines.append("Default: " + roff(value) + ".")
            }
            if let range = declaration.rangeText {
                lines.append(".br")
                lines.append("Range: " + roff(range) + ".")
            }
        }
        lines += [
            ".SH FILES",
            ".TP", #"\fI/etc/thumbd/thumbd.env\fR"#, "The settings file of the Debian package, read again on SIGHUP.",
            ".TP", #"\fI/var/cache/thumbd\fR"#, "The thumbnails nginx serves.",
            ".TP", #"\fI/var/lib/thumbd\fR"#, "The cache index.",
            ".SH SIGNALS",
            ".TP", ".B SIGHUP", "Read the settings again; a setting that cannot change without a restart is named in the log.",
            ".TP", ".B SIGTERM", "Finish the requests under way, then exit.",
            ".SH SEE ALSO",
            #"\fBnginx\fR(8); /usr/share/doc/thumbd"#,
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A command's entry, then its subcommands' (`thumbd cache stats`).
    private static func commandEntries(_ command: ParsableCommand.Type, prefix: String) -> [String] {
        let configuration = command.configuration
        let name = prefix + " " + (configuration.commandName ?? command._commandName)
        var lines = [".TP", #"\fB\#(roff(name))\fR"#, roff(configuration.abstract)]
        for subcommand in configuration.subcommands {
            lines += commandEntries(subcommand, prefix: name)
        }
        return lines
    }

    /// Text as man(7) shows it: backslashes and dashes escaped, what is not ASCII as groff's
    /// `\[uXXXX]`, no line starting with a control character, no blank line (a paragraph break in
    /// the middle of an entry).
    private static func roff(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        return escaped.unicodeScalars.map(glyph).joined()
            .split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.first == "." || $0.first == "'" ? "\\&" + $0 : String($0) }
            .joined(separator: "\n")
    }

    /// A character as groff takes it: itself when ASCII, else its code point (`\[u2013]`).
    private static func glyph(_ scalar: Unicode.Scalar) -> String {
        guard !scalar.isASCII else { return String(scalar) }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
    }
}
