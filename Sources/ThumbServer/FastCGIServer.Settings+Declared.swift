#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// The FastCGI side's settings: where it listens, for whom, and with how many workers.
extension FastCGIServer.Settings: DeclaresSettings {
    public static let settings: [Setting<FastCGIServer.Settings>] = [
        Setting("LISTEN",
                .field(\.address, read: FastCGIServer.Settings.address, show: \.description),
                help: "unix:/path/to/socket or host:port to take FastCGI connections on."),
        Setting("SOCKET_GROUP",
                .optional(\.socketGroup, read: FastCGIServer.Settings.groupID, show: { "\($0)" }),
                default: .described("thumbd's own"),
                help: "The group nginx's workers run in: the unix socket is made 0660 in it.",
                details: "The group nginx's workers run in: a unix socket thumbd makes is 0660 in it (needs "
                    + "chown, or thumbd running in that group). Under the package's units thumbd.socket makes the "
                    + "socket, in www-data's group: leave it unset."),
        Setting("PARAMS_TIMEOUT",
                .decimal(\.paramsTimeout, 0.1...600),
                help: "Seconds a FastCGI connection has to send its request's parameters."),
        Setting("WORKERS",
                .integer(\.workers, 1...1024),
                default: .described("2 x cores"),
                help: "FastCGI worker threads.",
                details: "Worker threads that parse and answer requests the accepting thread hands them; a miss "
                    + "does not hold one while its job runs. (imgproxy's `IMGPROXY_WORKERS` is thumbd's "
                    + "`MAX_CONCURRENT_RENDERS`.)"),
    ]

    static func address(_ text: String) throws -> ListenAddress {
        guard let address = ListenAddress(text) else {
            throw InvalidSetting(expected: "expected unix:/path or host:port")
        }
        return address
    }

    /// A group name or number, looked up now so that a typo fails the start.
    static func groupID(_ text: String) throws -> gid_t {
        if let number = gid_t(text) { return number }
        var entry = Glibc.group()
        var found: UnsafeMutablePointer<Glibc.group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getgrnam_r(text, &entry, &buffer, buffer.count, &found) == 0, found != nil else {
            throw InvalidSetting(expected: "expected a group name or number (the group nginx's workers run in)")
        }
        return entry.gr_gid
    }
}
