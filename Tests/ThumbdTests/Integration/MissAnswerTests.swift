import Foundation
import Testing
@testable import ThumbServer

/// A miss is answered the way every later hit is: once thumbd has stored the file, nginx
/// serves it (X-Accel-Redirect), with the same validators, Range and HEAD.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct MissAnswerTests {
    let origin: TestOrigin
    let stack: TestStack

    init() throws {
        origin = try TestOrigin()
        stack = try TestStack(environment: TestStack.signing.merging(["THUMBD_AUTO_WEBP": "true"]) { $1 })
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 600, height: 400)))
    }

    /// The headers a client sees of one answer, but for the ones that differ between any two.
    static let comparedHeaders = ["content-type", "content-length", "cache-control", "etag", "last-modified", "accept-ranges", "vary"]

    @Test func aMissAndTheHitAfterItCarryTheSameHeadersAndBytes() throws {
        let path = "/insecure/rs:fill:120:80/plain/\(origin.url("/photo.jpg"))@webp"

        let miss = try stack.get(path)
        let hit = try stack.get(path)

        #expect(miss.status == 200 && hit.status == 200)
        for name in Self.comparedHeaders {
            #expect(miss.headers[name] == hit.headers[name], "\(name)")
        }
        #expect(miss.headers["etag"] != nil && miss.headers["last-modified"] != nil)
        #expect(miss.headers["accept-ranges"] == "bytes")
        #expect(miss.body == hit.body)
        #expect(try ImageProbe(miss.body).format == "WEBP")
        // Only the miss says thumbd made it, in a header a page's scripts can read
        #expect(miss.headers["server-timing"] == "thumbd;desc=miss")
        #expect(hit.headers["server-timing"] == nil)
        #expect(stack.jobLogLines.count == 1)
    }

    @Test func theFirstAnswersValidatorsRevalidateTo304() throws {
        let path = "/insecure/rs:fit:90:90/plain/\(origin.url("/photo.jpg"))@png"
        let miss = try stack.get(path)
        let etag = try #require(miss.headers["etag"])
        let lastModified = try #require(miss.headers["last-modified"])

        let byTag = try stack.get(path, headers: ["If-None-Match": etag])
        let byDate = try stack.get(path, headers: ["If-Modified-Since": lastModified])

        #expect(byTag.status == 304 && byTag.body.isEmpty)
        #expect(byDate.status == 304)
        #expect(stack.jobLogLines.count == 1)
    }

    @Test func aRangeOnAMissGetsThoseBytesOfTheStoredFile() throws {
        let path = "/insecure/rs:fit:100:100/plain/\(origin.url("/photo.jpg"))@jpg"

        let part = try stack.get(path, headers: ["Range": "bytes=0-99"])

        #expect(part.status == 206)
        #expect(part.body.count == 100)
        let whole = try stack.get(path)
        #expect(part.headers["content-range"] == "bytes 0-99/\(whole.body.count)")
        #expect(Array(whole.body.prefix(100)) == part.body)
    }

    @Test func aHeadMissStoresTheThumbnailAndSendsItsHeadersOnly() throws {
        let path = "/insecure/rs:fit:110:110/plain/\(origin.url("/photo.jpg"))@png"

        let head = try stack.get(path, method: "HEAD")

        #expect(head.status == 200)
        #expect(head.headers["content-type"] == "image/png")
        let hit = try stack.get(path)
        #expect(head.headers["content-length"] == "\(hit.body.count)")
        #expect(head.headers["etag"] == hit.headers["etag"])
        #expect(stack.jobLogLines.count == 1)
    }

    @Test func aNegotiatedMissVariesByAcceptAsItsHitsDo() throws {
        let path = "/insecure/rs:fit:70:70/plain/\(origin.url("/photo.jpg"))"

        let miss = try stack.get(path, headers: ["Accept": "image/webp,*/*"])
        let hit = try stack.get(path, headers: ["Accept": "image/webp,*/*"])

        #expect(miss.headers["content-type"] == "image/webp")
        #expect(miss.headers["vary"] == "Accept" && hit.headers["vary"] == "Accept")
        #expect(miss.headers["etag"] == hit.headers["etag"])
    }

    @Test func aSourceWhoseNameNeedsEscapingIsServedFromItsFile() throws {
        // The source's name holds "?", "&" and "=": the file is named by the signature all the same
        let path = "/insecure/rs:fit:60:60/plain/\(origin.url("/photo.jpg"))%3Fv%3D1%26b%3D2@png"

        let miss = try stack.get(path)
        let hit = try stack.get(path)

        #expect(miss.status == 200, "\(miss.text)")
        #expect(miss.headers["server-timing"] == "thumbd;desc=miss")
        #expect(miss.headers["etag"] == hit.headers["etag"])
        #expect(try ImageProbe(miss.body).width == 60)
        #expect(hit.headers["server-timing"] == nil, "served by nginx alone")
        #expect(stack.cacheFiles() == [stack.servedFile(path, format: "png")])
    }

    @Test func aDownloadKeepsItsFileNameOnEveryAnswerSoNginxNeverServesItBare() throws {
        let path = "/insecure/w:50/fn:holiday/att:1/plain/\(origin.url("/photo.jpg"))@webp"

        let first = try stack.get(path)
        let second = try stack.get(path)

        // Stored under a name only thumbd looks up; both answers come from that file
        #expect(first.headers["content-disposition"] == "attachment; filename=\"holiday.webp\"")
        #expect(second.headers["content-disposition"] == "attachment; filename=\"holiday.webp\"")
        #expect(first.headers["etag"] != nil && first.headers["etag"] == second.headers["etag"])
        #expect(second.headers["server-timing"] == "thumbd;desc=hit")
        #expect(try ImageProbe(first.body).width == 50)
        #expect(stack.jobLogLines.count == 1)
        #expect(origin.requestCount("/photo.jpg") == 1)
        #expect(stack.cacheFiles().allSatisfy { $0.hasPrefix("private/") })
        // without thumbd, nginx has no file of that name to serve without the header
        stack.stopThumbd()
        #expect(try stack.get(path).status == 502)
    }

    @Test func clientsCannotAskForTheStoredFilesLocation() throws {
        let path = "/insecure/rs:fit:80:80/plain/\(origin.url("/photo.jpg"))@png"
        #expect(try stack.get(path).status == 200)
        let stored = try #require(stack.cacheFiles().first)

        #expect(try stack.get(StoredFileRedirect.prefix + "/" + stored).status == 404)
    }
}
