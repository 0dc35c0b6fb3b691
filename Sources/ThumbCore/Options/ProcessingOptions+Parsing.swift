/// imgproxy's option grammar: `name:arg1:arg2...`, long and short names, empty arguments
/// leave a value as it was. Every failure names the option and the argument.
extension ProcessingOptions {
    public mutating func apply(option segment: Substring) throws(ThumbError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let name = parts[0]
        let args = Array(parts.dropFirst())
        switch name {
        case "resize", "rs":
            try expect(name, args, atMost: 5)
            if let type = args.first, !type.isEmpty { resizingType = try Self.resizingType(name, type) }
            try applySize(name, Array(args.dropFirst()))
        case "size", "s":
            try expect(name, args, atMost: 4)
            try applySize(name, args)
        case "resizing_type", "rt":
            try expect(name, args, exactly: 1)
            resizingType = try Self.resizingType(name, args[0])
        case "width", "w":
            try expect(name, args, exactly: 1)
            width = try Self.dimension(name, args[0])
        case "height", "h":
            try expect(name, args, exactly: 1)
            height = try Self.dimension(name, args[0])
        case "enlarge", "el":
            try expect(name, args, exactly: 1)
            enlarge = try Self.bool(name, args[0])
        case "gravity", "g":
            try expect(name, args, atMost: 3)
            gravity = try Self.gravity(name, args)
        case "quality", "q":
            try expect(name, args, exactly: 1)
            quality = try Self.integer(name, args[0], in: 0...100)
        case "format", "f", "ext":
            try expect(name, args, exactly: 1)
            format = try Self.format(name, args[0])
        default:
            throw .badRequest("unknown option \(name)")
        }
    }

    /// `width:height:enlarge:extend`, shared by `resize` and `size`.
    private mutating func applySize(_ name: String, _ args: [String]) throws(ThumbError) {
        if args.count > 0, !args[0].isEmpty { width = try Self.dimension(name, args[0]) }
        if args.count > 1, !args[1].isEmpty { height = try Self.dimension(name, args[1]) }
        if args.count > 2, !args[2].isEmpty { enlarge = try Self.bool(name, args[2]) }
        if args.count > 3, !args[3].isEmpty, try Self.bool(name, args[3]) {
            throw .badRequest("\(name): extend is not supported")
        }
    }

    private func expect(_ name: String, _ args: [String], exactly count: Int) throws(ThumbError) {
        guard args.count == count else {
            throw .badRequest("\(name) takes \(count) argument\(count == 1 ? "" : "s"), got \(args.count)")
        }
    }

    private func expect(_ name: String, _ args: [String], atMost count: Int) throws(ThumbError) {
        guard !args.isEmpty, args.count <= count else {
            throw .badRequest("\(name) takes 1 to \(count) arguments, got \(args.count)")
        }
    }

    private static func integer(_ name: String, _ text: String, in range: ClosedRange<Int>) throws(ThumbError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw .badRequest("invalid \(name) argument \(text.debugDescription): expected \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    private static func dimension(_ name: String, _ text: String) throws(ThumbError) -> Int {
        try integer(name, text, in: 0...maxDimension)
    }

    private static func bool(_ name: String, _ text: String) throws(ThumbError) -> Bool {
        switch text {
        case "1", "t", "true": return true
        case "0", "f", "false": return false
        default: throw .badRequest("invalid \(name) argument \(text.debugDescription): expected 1, t, true, 0, f or false")
        }
    }

    private static func resizingType(_ name: String, _ text: String) throws(ThumbError) -> ResizingType {
        guard let type = ResizingType(rawValue: text) else {
            throw .badRequest("invalid \(name) resizing type \(text.debugDescription): expected fit, fill or force")
        }
        return type
    }

    private static func format(_ name: String, _ text: String) throws(ThumbError) -> ImageFormat {
        guard let format = ImageFormat(extension: text) else {
            throw .badRequest("invalid \(name) format \(text.debugDescription): expected jpg, png, webp, gif or avif")
        }
        return format
    }

    private static func gravity(_ name: String, _ args: [String]) throws(ThumbError) -> Gravity {
        guard let anchor = Gravity.Anchor(rawValue: args[0]) else {
            let known = Gravity.Anchor.allCases.map(\.rawValue).joined(separator: ", ")
            throw .badRequest("invalid \(name) type \(args[0].debugDescription): expected one of \(known)")
        }
        var gravity = Gravity(anchor: anchor)
        if args.count > 1, !args[1].isEmpty { gravity.offsetX = try offset(name, args[1]) }
        if args.count > 2, !args[2].isEmpty { gravity.offsetY = try offset(name, args[2]) }
        return gravity
    }

    private static func offset(_ name: String, _ text: String) throws(ThumbError) -> Double {
        guard let value = Double(text), value.isFinite, abs(value) <= Double(maxDimension) else {
            throw .badRequest("invalid \(name) offset \(text.debugDescription)")
        }
        return value
    }
}
