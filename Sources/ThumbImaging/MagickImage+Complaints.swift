import CMagickWand

extension MagickImage {
    /// Everything the readers recorded while reading: on the wand, and on every frame, each
    /// complaint in turn (a frame keeps the first of its most severe on top, and libjpeg may note
    /// harmless padding before it finds corrupt data).
    var readComplaints: [DecoderComplaint] {
        var complaints: [DecoderComplaint] = []
        var severity = UndefinedException
        if let reason = MagickGetException(wand, &severity) {
            defer { MagickRelinquishMemory(reason) }
            if severity != UndefinedException {
                complaints.append(DecoderComplaint(severity: severity, reason: String(cString: reason)))
            }
        }
        var frame = GetImageFromMagickWand(wand).flatMap { GetFirstImageInList($0) }
        while let current = frame {
            if let list = current.pointee.exception.exceptions.map(OpaquePointer.init) {
                ResetLinkedListIterator(list)
                while let entry = GetNextValueInLinkedList(list)?.assumingMemoryBound(to: ExceptionInfo.self).pointee {
                    let reason = entry.reason.map { String(cString: $0) } ?? ""
                    complaints.append(DecoderComplaint(severity: entry.severity, reason: reason))
                }
            }
            frame = GetNextImageInList(current)
        }
        return complaints
    }
}
