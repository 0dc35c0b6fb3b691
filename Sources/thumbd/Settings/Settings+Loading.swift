import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif
import ThumbCache
import ThumbFetch
import ThumbImaging
import ThumbJobs
import ThumbRequest
import ThumbRuntime
import ThumbServer

/// Reads every setting from one lookup (a flag, else THUMBD_NAME, else IMGPROXY_NAME where
/// imgproxy has the same setting) and validates all of them, so a bad start lists every problem
/// at once instead of one per attempt.
extension Settings {
    public struct Problems: Error, CustomStringConvertible {
        public let messages: [String]
        public var description: String { messages.joined(separator: "\n") }
    }

    /// A setting's value: the flag's if given, else the environment's, with where it came from.
    public typealias Lookup = (Setting) -> (value: String, origin: String)?

    /// - Parameter environment: the process's, where the AWS credential chain starts (AWS_*); the
    ///   settings themselves come from `lookup`.
    public static func load(_ lookup: @escaping Lookup, environment: [String: String] = [:]) -> Result<Settings, Problems> {
        var reader = Reader(lookup: lookup)
        var configuration = Settings()
        reader.read(.listen) { configuration.listen = try parse($0, as: ListenAddress.init, expected: "unix:/path or host:port") }
        reader.read(.socketGroup) { configuration.socketGroup = $0.isEmpty ? nil : try groupID($0) }
        reader.decimal(.paramsTimeout) { configuration.paramsTimeout = $0 }
        reader.read(.cacheRoot) { configuration.cacheRoot = try absolutePath($0) }
        reader.read(.cacheIndex) { configuration.cache.indexPath = try absolutePath($0) }
        reader.read(.cacheHitsLog) { configuration.cache.hitsLogPath = try absolutePath($0) }
        reader.integer(.cacheMaxBytes) { configuration.cache.maxBytes = UInt64($0) }
        reader.integer(.cacheMaxEntries) { configuration.cache.maxEntries = $0 }
        reader.integer(.cacheLowWater) { configuration.cache.lowWaterPercent = $0 }
        reader.read(.cacheEvictionPolicy) {
            configuration.cache.evictionPolicy = try parse($0, as: EvictionPolicy.init(rawValue:), expected: "probation or lru")
        }
        reader.integer(.workers) { configuration.workers = $0 }
        reader.read(.logFormat) {
            configuration.logFormat = try parse($0, as: LogFormat.init(rawValue:), expected: "pretty, structured, json or gcp")
        }
        reader.read(.logLevel) { configuration.logLevel = try parse($0, as: Logger.Level.init(imgproxyName:), expected: "debug, info, warn or error") }
        reader.read(.baseURL) { configuration.baseURL = $0.isEmpty ? nil : $0 }
        reader.read(.allowedSources) { configuration.allowedSources = SourceAllowList(prefixes: list($0)) }
        reader.read(.localFileSystemRoot) { configuration.localFileSystemRoot = $0.isEmpty ? nil : try directory($0) }
        reader.integer(.maxSrcFileSize) { configuration.fetch.maxBytes = $0 == 0 ? Int.max : $0 }
        reader.read(.watermarkPath) { configuration.render.watermark = try imageFile($0) }
        reader.read(.watermarkData) { configuration.render.watermark = try imageData($0) }
        reader.decimal(.watermarkOpacity) { configuration.render.watermarkOpacity = $0 }
        reader.read(.fallbackImagePath) { configuration.fallback.image = try imageFile($0) }
        reader.read(.fallbackImageData) { configuration.fallback.image = try imageData($0) }
        reader.read(.fallbackImageURL) { configuration.fallback.url = $0.isEmpty ? nil : $0 }
        reader.integer(.fallbackImageHTTPCode) { code in
            guard code == 0 || code >= 200 else { throw InvalidValue(expected: "expected 0 or an HTTP status from 200 to 599") }
            configuration.fallback.status = code == 0 ? nil : code
        }
        reader.integer(.fallbackImageTTL) { configuration.fallback.maxAge = $0 == 0 ? ThumbnailLifetime.seconds : $0 }
        reader.read(.prometheusBind) { configuration.prometheusBind = $0.isEmpty ? nil : try tcpAddress($0) }
        reader.read(.prometheusNamespace) { configuration.prometheusNamespace = try metricNamespace($0) }
        reader.read(.metricsToken) { configuration.metricsToken = $0.isEmpty ? nil : try bearerToken($0) }
        reader.read(.magickPolicyDir) { configuration.magickPolicyDirectory = try directory($0) }
        // The deprecated names first: the current ones win.
        reader.bool(.enableWebpDetection) { configuration.negotiation.webp = $0 }
        reader.bool(.enableAvifDetection) { configuration.negotiation.avif = $0 }
        reader.bool(.autoWebp) { configuration.negotiation.webp = $0 }
        reader.bool(.autoAvif) { configuration.negotiation.avif = $0 }
        reader.bool(.autoJxl) { configuration.negotiation.jxl = $0 }
        reader.bool(.enforceWebp) { configuration.negotiation.enforceWebp = $0 }
        reader.bool(.enforceAvif) { configuration.negotiation.enforceAvif = $0 }
        reader.bool(.enforceJxl) { configuration.negotiation.enforceJxl = $0 }
        reader.read(.formatNegotiationOrder) { configuration.negotiation.order = try negotiationOrder($0) }
        reader.read(.preferredFormats) { configuration.render.preferredFormats = try preferredFormats($0) }
        reader.decimal(.maxRenderSeconds) { configuration.render.maxRenderSeconds = $0 }
        reader.integer(.maxAnimationFrames) { configuration.render.maxAnimationFrames = $0 }
        reader.decimal(.bestFormatMaxResolution) { configuration.render.bestFormatMaxPixels = Int($0 * 1_000_000) }
        reader.read(.sourceFormats) { configuration.render.sourceFormats = try sourceFormats($0) }
        reader.decimal(.maxSrcResolution) { megapixels in
            configuration.render.maxSourcePixels = Int(megapixels * 1_000_000)
        }
        reader.decimal(.downloadTimeout) { seconds in
            let milliseconds = Int(seconds * 1000)
            configuration.fetch.totalTimeoutMilliseconds = milliseconds
            configuration.fetch.connectTimeoutMilliseconds = min(milliseconds, configuration.fetch.connectTimeoutMilliseconds)
        }
        reader.read(.sourceHeaders) {
            configuration.fetch.extraHeaders = try parse($0, as: SourceHeaders.init, expected: "PREFIX Name: value, entries separated by |")
        }
        reader.decimal(.firstByteTimeout) {
            configuration.fetch.firstByteTimeoutMilliseconds = Int($0 * 1000)
        }
        reader.decimal(.timeout) { configuration.limits.requestTimeout = $0 }
        reader.integer(.requestsQueueSize) { configuration.limits.queueSize = $0 == 0 ? Int.max : $0 }
        reader.integer(.maxConcurrentFetches) { configuration.limits.fetches = $0 }
        reader.integer(.maxConcurrentFetchesPerHost) { configuration.limits.fetchesPerHost = $0 }
        reader.integer(.maxConcurrentRenders) { configuration.limits.renders = $0 }
        reader.integer(.sourceMemoryCacheSize) { configuration.limits.sourceMemoryBytes = $0 }
        reader.decimal(.sourceMemoryCacheSeconds) { configuration.limits.sourceMemorySeconds = $0 }
        reader.decimal(.notFoundCacheTTL) { configuration.limits.failureLifetimes.notFound = $0 }
        reader.decimal(.errorCacheTTL) { configuration.limits.failureLifetimes.failure = $0 }
        reader.integer(.maxRedirects) { configuration.fetch.maxRedirects = $0 }
        reader.read(.userAgent) {
            configuration.fetch.userAgent = $0.replacingOccurrences(of: "%current_version", with: ThumbdVersion.current)
        }
        reader.read(.sourceProxy) { configuration.fetch.proxy = $0.isEmpty ? nil : try proxyURL($0) }
        reader.bool(.allowLoopbackSourceAddresses) { configuration.fetch.addressPolicy.allowLoopback = $0 }
        reader.bool(.allowPrivateSourceAddresses) { configuration.fetch.addressPolicy.allowPrivate = $0 }
        reader.bool(.allowLinkLocalSourceAddresses) { configuration.fetch.addressPolicy.allowLinkLocal = $0 }
        reader.read(.allowedSourceAddresses) {
            configuration.fetch.addressPolicy.allowedRanges = try addressRanges($0)
        }

        configuration.fetch.s3 = readS3(&reader, environment: environment)
        configuration.options = readOptions(&reader)
        configuration.given = Dictionary(uniqueKeysWithValues: Setting.allCases.compactMap { setting in
            lookup(setting).map { (setting, $0.value) }
        })

        if let signing = readSigning(&reader) { configuration.signing = signing }
        let fallbackSources = [Setting.fallbackImagePath, .fallbackImageData, .fallbackImageURL].filter { lookup($0) != nil }
        if fallbackSources.count > 1 {
            reader.problems.append("\(fallbackSources.map(\.name).joined(separator: ", ")): give one fallback image only")
        }
        if lookup(.watermarkPath) != nil && lookup(.watermarkData) != nil {
            reader.problems.append("WATERMARK_PATH, WATERMARK_DATA: give one watermark only")
        }
        do throws(CacheSettings.Problem) {
            try configuration.cache.validate()
        } catch {
            reader.problems.append(error.description)
        }
        return reader.problems.isEmpty ? .success(configuration) : .failure(Problems(messages: reader.problems))
    }

    /// Keys and salts, or insecure mode by name; nil when there is a problem with them. Neither
    /// is not a problem here (`signingProblem` is, for what serves or signs URLs): an empty KEY
    /// leaves every URL refused, never every URL accepted.
    private static func readSigning(_ reader: inout Reader) -> SignatureVerifier? {
        var keys: [[UInt8]] = []
        var salts: [[UInt8]] = []
        var size = 32
        var insecure = false
        let problemsBefore = reader.problems.count
        reader.read(.key) { keys = try hexList($0) }
        reader.read(.salt) { salts = try hexList($0) }
        reader.integer(.signatureSize, why: "a shorter signature can be found by trying") { size = $0 }
        reader.bool(.insecure) { insecure = $0 }
        var trusted: [String] = []
        reader.read(.trustedSignatures) { trusted = list($0) }
        let short = trusted.indices.filter { trusted[$0].utf8.count < SignatureVerifier.minimumTrustedLength }
        if !short.isEmpty, let (_, origin) = reader.lookup(.trustedSignatures) {
            // Said by position and length only: the value is a secret.
            let named = short.map { "signature \($0 + 1) of \(trusted.count) has \(trusted[$0].utf8.count)" }
            reader.problems.append("\(origin): \(named.joined(separator: ", ")) characters, fewer than "
                + "\(SignatureVerifier.minimumTrustedLength): a trusted signature passes with any path, so it must "
                + "be as hard to guess as a key")
        }
        // A bad KEY or SALT is reported already; counting half-read lists would only add noise.
        guard reader.problems.count == problemsBefore else { return nil }
        if insecure {
            guard keys.isEmpty && salts.isEmpty && trusted.isEmpty else {
                reader.problems.append("INSECURE is on but KEY, SALT or TRUSTED_SIGNATURES is set: give a key to sign URLs, "
                    + "or insecure mode, not both")
                return nil
            }
            return .insecure
        }
        guard keys.count == salts.count else {
            reader.problems.append("KEY has \(keys.count) key(s) but SALT has \(salts.count) salt(s): give one salt per key")
            return nil
        }
        return SignatureVerifier(pairs: zip(keys, salts).map(SignatureVerifier.KeyPair.init), size: size, trusted: trusted)
    }

    /// Presets are checked against the security setting, so that one is read first; every
    /// broken preset is named in the one problem of the PRESETS setting.
    private static func readOptions(_ reader: inout Reader) -> OptionParser {
        var onlyPresets = false
        var allowSecurityOptions = false
        var presets = Presets()
        var qualities: [ImageFormat: Int] = [:]
        var base = ProcessingOptions()
        reader.bool(.stripMetadata) { base.stripMetadata = $0 }
        reader.bool(.keepCopyright) { base.keepCopyright = $0 }
        reader.bool(.stripColorProfile) { base.stripColorProfile = $0 }
        reader.bool(.autoRotate) { base.autoRotate = $0 }
        reader.integer(.maxResultDimension) { base.maxResultDimension = $0 == 0 ? nil : $0 }
        reader.bool(.returnAttachment) { base.returnAttachment = $0 }
        reader.read(.skipProcessingFormats) { text in
            guard let option = URLOption(segment: Substring("skp:" + list(text).joined(separator: ":"))) else { return }
            do throws(RequestFailure) {
                try OptionParser().apply(option, to: &base)
            } catch {
                throw InvalidValue(expected: "expected formats, comma-separated: \(error.publicMessage)")
            }
        }
        reader.integer(.quality) { quality in
            for format in ImageFormat.allCases.filter(\.isLossy) { qualities[format] = quality }
        }
        reader.read(.formatQuality) { qualities.merge(try formatQualities($0)) { $1 } }
        reader.integer(.subsampleBelow) { base.subsampleBelow = $0 }
        reader.integer(.webpEffort) { base.webpEffort = $0 }
        reader.integer(.avifSpeed) { base.avifSpeed = $0 }
        reader.integer(.jxlEffort) { base.jxlEffort = $0 }
        reader.read(.avifSubsample) {
            guard let subsample = AVIFSubsample(rawValue: $0.lowercased()) else { throw InvalidValue(expected: "expected auto, on or off") }
            base.avifSubsample = subsample
        }
        reader.bool(.pngQuantize) { base.pngQuantize = $0 }
        reader.bool(.bestFormatByDefault) { base.bestFormat = $0 }
        reader.integer(.pngQuantizationColors) { base.pngQuantizationColors = $0 }
        readAutoQuality(&reader, into: &base.autoQuality)
        reader.bool(.onlyPresets) { onlyPresets = $0 }
        reader.bool(.allowSecurityOptions) { allowSecurityOptions = $0 }
        reader.read(.presets) {
            let parsed: Presets
            do {
                parsed = try Presets(parsing: $0)
            } catch let invalid as Presets.Invalid {
                throw InvalidValue(expected: invalid.messages.joined(separator: "; "))
            }
            let problems = OptionParser(presets: parsed, allowSecurityOptions: allowSecurityOptions, base: base).presetProblems()
            guard problems.isEmpty else { throw InvalidValue(expected: problems.joined(separator: "; ")) }
            presets = parsed
        }
        return OptionParser(presets: presets, onlyPresets: onlyPresets, allowSecurityOptions: allowSecurityOptions,
                            defaultQualities: qualities, base: base)
    }

    /// imgproxy's AUTOQUALITY_* settings but its ml method's, which needs a model thumbd does not run.
    private static func readAutoQuality(_ reader: inout Reader, into autoQuality: inout AutoQuality) {
        reader.read(.autoqualityMethod) {
            guard let method = AutoQuality.Method(rawValue: $0.lowercased()) else {
                let why = $0.lowercased() == "ml" ? "; ml needs a neural network model, which thumbd does not run" : ""
                throw InvalidValue(expected: "expected none, size or dssim\(why)")
            }
            autoQuality.method = method
        }
        reader.decimal(.autoqualityTarget) { autoQuality.target = $0 }
        reader.integer(.autoqualityMin) { autoQuality.minQuality = $0 }
        reader.read(.autoqualityFormatMin) { autoQuality.formatMinQuality = try formatQualities($0) }
        reader.integer(.autoqualityMax) { autoQuality.maxQuality = $0 }
        reader.read(.autoqualityFormatMax) { autoQuality.formatMaxQuality = try formatQualities($0) }
        reader.decimal(.autoqualityAllowedError) { autoQuality.allowedError = $0 }
        reader.decimal(.autoqualityMaxResolution) { autoQuality.maxResolution = $0 }
        reader.decimal(.autoqualityScoreResolution) { autoQuality.scoreResolution = $0 }
        reader.decimal(.autoqualityDssimSlope) { autoQuality.dssimSlope = $0 }
    }

    /// `jpeg,png,heic`: the formats to decode, every unknown name reported.
    private static func sourceFormats(_ text: String) throws -> Set<SourceFormat> {
        let names = list(text).map { $0.lowercased() }
        let unknown = names.filter { SourceFormat(rawValue: $0) == nil }
        guard unknown.isEmpty, !names.isEmpty else {
            let all = SourceFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw InvalidValue(expected: "expected formats from \(all), comma-separated")
        }
        return Set(names.compactMap(SourceFormat.init(rawValue:)))
    }

    /// `jpeg,png,gif`, in order; names imgproxy knows but thumbd does not write are skipped, as
    /// imgproxy skips formats it cannot save.
    private static func preferredFormats(_ text: String) throws -> PreferredFormats {
        let names = list(text).map { $0.lowercased() }.filter { !ImageFormat.otherImgproxyNames.contains($0) }
        guard let formats = PreferredFormats(names.compactMap(ImageFormat.init(extension:))),
              formats.formats.count == names.count else {
            let known = ImageFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw InvalidValue(expected: "expected formats from \(known), comma-separated, at least one")
        }
        return formats
    }

    private static func negotiationOrder(_ text: String) throws -> [ImageFormat] {
        guard let order = FormatNegotiation.order(parsing: text) else {
            throw InvalidValue(expected: "expected avif, jxl and webp, comma-separated, each once")
        }
        return order
    }

    /// `jpeg=80,webp=79,avif=63`, imgproxy's FORMAT_QUALITY.
    private static func formatQualities(_ text: String) throws -> [ImageFormat: Int] {
        var qualities: [ImageFormat: Int] = [:]
        for entry in list(text) {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let format = ImageFormat(extension: parts[0]), let quality = Int(parts[1]),
                  (1...100).contains(quality) else {
                throw InvalidValue(expected: "expected format=quality pairs such as jpeg=80,webp=79 (quality 1 to 100)")
            }
            qualities[format] = quality
        }
        return qualities
    }

    struct Reader {
        let lookup: Lookup
        var problems: [String] = []

        mutating func read(_ setting: Setting, _ apply: (String) throws -> Void) {
            guard let (value, origin) = lookup(setting) else { return }
            do {
                try apply(value)
            } catch {
                let expected = (error as? InvalidValue)?.expected ?? "\(error)"
                guard setting.declaration.secret else {
                    problems.append("\(origin)=\(value.debugDescription): \(expected)")
                    return
                }
                problems.append("\(origin)=\(Settings.secretShown): \(Settings.redacting(value, in: expected))")
            }
        }

        /// A whole number within the setting's declared range.
        mutating func integer(_ setting: Setting, why: String? = nil, _ apply: (Int) throws -> Void) {
            guard case .integer(let range) = setting.declaration.value else {
                preconditionFailure("\(setting.name) is not declared a whole number")
            }
            read(setting) { try apply(try Settings.integer($0, in: range, why: why)) }
        }

        /// A number within the setting's declared range.
        mutating func decimal(_ setting: Setting, _ apply: (Double) throws -> Void) {
            guard case .decimal(let range) = setting.declaration.value else {
                preconditionFailure("\(setting.name) is not declared a number")
            }
            read(setting) { try apply(try Settings.decimal($0, in: range)) }
        }

        mutating func bool(_ setting: Setting, _ apply: (Bool) throws -> Void) {
            read(setting) { try apply(try Settings.bool($0)) }
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

    struct InvalidValue: Error {
        let expected: String
    }

    private static func parse<T>(_ text: String, as make: (String) -> T?, expected: String) throws -> T {
        guard let value = make(text) else { throw InvalidValue(expected: "expected \(expected)") }
        return value
    }

    private static func integer(_ text: String, in range: ClosedRange<Int>, why: String? = nil) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            let expected = "expected a whole number from \(range.lowerBound) to \(range.upperBound)"
            throw InvalidValue(expected: why.map { "\(expected): \($0)" } ?? expected)
        }
        return value
    }

    private static func decimal(_ text: String, in range: ClosedRange<Double>) throws -> Double {
        guard let value = Double(text), range.contains(value) else {
            throw InvalidValue(expected: "expected a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    static func bool(_ text: String) throws -> Bool {
        switch text.lowercased() {
        case "1", "t", "true", "yes": return true
        case "0", "f", "false", "no", "": return false
        default: throw InvalidValue(expected: "expected true or false")
        }
    }

    /// An HTTP(S) proxy only: it tunnels (CONNECT) to the address thumbd checked, where a SOCKS
    /// proxy might resolve the name itself.
    private static func proxyURL(_ text: String) throws -> String {
        guard text.hasPrefix("http://") || text.hasPrefix("https://") else {
            throw InvalidValue(expected: "expected an http:// or https:// proxy URL")
        }
        return text
    }

    private static func tcpAddress(_ text: String) throws -> ListenAddress {
        guard let address = ListenAddress(text), case .tcp = address else { throw InvalidValue(expected: "expected host:port") }
        return address
    }

    /// Prometheus' rule for a name's first part, which becomes one with `_` after it.
    private static func metricNamespace(_ text: String) throws -> String {
        let valid = text.utf8.enumerated().allSatisfy { index, byte in
            byte == UInt8(ascii: "_") || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                || (index > 0 && byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        }
        guard valid else { throw InvalidValue(expected: "expected letters, digits and _, not starting with a digit") }
        return text
    }

    /// A token a client can send as `Authorization: Bearer <token>` (RFC 6750's characters), and
    /// long enough not to be found by trying.
    private static func bearerToken(_ text: String) throws -> String {
        let valid = text.utf8.count >= 16 && text.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-._~+/=".unicodeScalars.contains($0))
        }
        guard valid else {
            throw InvalidValue(expected: "expected at least 16 characters of letters, digits and -._~+/= "
                + "(openssl rand -hex 32 makes one)")
        }
        return text
    }

    /// A group name or number, looked up now so that a typo fails the start.
    private static func groupID(_ text: String) throws -> gid_t {
        if let number = gid_t(text) { return number }
        var entry = Glibc.group()
        var found: UnsafeMutablePointer<Glibc.group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getgrnam_r(text, &entry, &buffer, buffer.count, &found) == 0, found != nil else {
            throw InvalidValue(expected: "expected a group name or number (the group nginx's workers run in)")
        }
        return entry.gr_gid
    }

    private static func absolutePath(_ text: String) throws -> String {
        guard text.hasPrefix("/") else { throw InvalidValue(expected: "expected an absolute path") }
        return text.count > 1 && text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// An image's bytes (the watermark, the fallback), read once at start: a file that is missing
    /// or not an image is a problem now, not a 500 on the first URL that needs it.
    private static func imageFile(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InvalidValue(expected: "expected a readable image file")
        }
        return try image([UInt8](data))
    }

    /// imgproxy's FALLBACK_IMAGE_DATA: the image itself, in base64.
    private static func imageData(_ text: String) throws -> [UInt8] {
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw InvalidValue(expected: "expected an image in base64")
        }
        return try image([UInt8](data))
    }

    private static func image(_ bytes: [UInt8]) throws -> [UInt8] {
        guard ContentSniffer.format(of: bytes) != nil else {
            throw InvalidValue(expected: "expected a \(ContentSniffer.readableNames) image")
        }
        return bytes
    }

    /// An existing directory, checked now so a typo fails the start rather than every local source.
    private static func directory(_ text: String) throws -> String {
        let path = try absolutePath(text)
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw InvalidValue(expected: "expected an existing directory: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw InvalidValue(expected: "expected a directory, not a file")
        }
        return path
    }

    /// Comma-separated items, trimmed, empty ones skipped (a trailing comma is harmless).
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Every entry that is not an address or CIDR range is named in the one problem.
    private static func addressRanges(_ text: String) throws -> [AddressRange] {
        let items = list(text)
        let invalid = items.filter { AddressRange($0) == nil }
        guard invalid.isEmpty else {
            let names = invalid.map(\.debugDescription).joined(separator: ", ")
            throw InvalidValue(expected: "expected addresses or CIDR ranges (10.0.0.5, fd00::/8), not \(names)")
        }
        return items.compactMap(AddressRange.init)
    }

    /// Comma-separated hex strings, as imgproxy takes several keys or salts.
    private static func hexList(_ text: String) throws -> [[UInt8]] {
        var list: [[UInt8]] = []
        for item in text.split(separator: ",") {
            guard let bytes = hex(item.trimmingCharacters(in: .whitespaces)) else {
                throw InvalidValue(expected: "expected hex, comma-separated for several")
            }
            list.append(bytes)
        }
        return list
    }

    private static func hex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count.isMultiple(of: 2), text.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}

extension Logger.Level {
    /// imgproxy's level names, plus swift-log's.
    init?(imgproxyName name: String) {
        switch name.lowercased() {
        case "warn": self = .warning
        case "fatal": self = .critical
        default: self.init(rawValue: name.lowercased())
        }
    }
}
