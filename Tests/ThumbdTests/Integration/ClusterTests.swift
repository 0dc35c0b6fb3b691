import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbCache
@testable import ThumbJobs
@testable import ThumbRequest

/// deploy/cluster: three thumbd hosts, an origin and a front nginx that hashes by source, as real
/// network hosts (network namespaces on a bridge), driven through the front as clients would.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized,
       .enabled(if: ClusterRun.canMakeNamespaces,
                "network namespaces cannot be made here: needs root and iproute2's ip (deploy/test installs it)"))
struct ClusterTests {
    static let hosts = 3
    /// The test vector's key and salt ("secret", "hello"), given to deploy/cluster as THUMBD_KEY and THUMBD_SALT.
    static let verifier = SignatureVerifier(pairs: [.init(key: Array("secret".utf8), salt: Array("hello".utf8))])

    /// 30 small photos (small, so that 380 renders cost the suite little), each its own pair of colours.
    static let photos: [String: [UInt8]] = {
        let colors = ["red", "green", "blue", "orange", "purple", "teal"]
        return Dictionary(uniqueKeysWithValues: (0..<30).map { index in
            let spec = "gradient:\(colors[index % 6])-\(colors[(index / 6 + index + 1) % 6])"
            return (String(format: "photo-%02d.jpg", index), TestImages.draw(spec, width: 200, height: 150, format: .jpeg))
        })
    }()

    struct Thumbnail {
        let photo: String
        let path: String
        let width: Int
        let format: ImageFormat
    }

    /// 10 sizes of each photo, JPEG and WebP in turn; half the photos as plain sources, half as
    /// base64 ones split into segments: each must hash by its source alone.
    static func thumbnails(origin: String) -> [Thumbnail] {
        photos.keys.sorted().enumerated().flatMap { index, photo in
            (0..<10).map { size in
                let width = 40 + 16 * size
                let format: ImageFormat = size % 2 == 0 ? .jpeg : .webp
                let source = index % 2 == 0
                    ? "plain/\(origin)\(photo)@\(format.fileExtension)"
                    : Base64URL.encode(Array("\(origin)\(photo)".utf8)).chunks(of: 16).joined(separator: "/") + ".\(format.fileExtension)"
                return Thumbnail(photo: photo, path: verifier.signedPath("/rs:fit:\(width):\(width)/\(source)"), width: width, format: format)
            }
        }
    }

    static func startCluster() throws -> ClusterRun {
        try ClusterRun(hosts: hosts, photos: photos, settings: ["THUMBD_KEY": "736563726574", "THUMBD_SALT": "68656C6C6F"])
    }

    /// deploy/cluster down, which must leave nothing behind.
    static func stop(_ cluster: ClusterRun) {
        do {
            try cluster.down()
            #expect(try cluster.leftovers() == [])
        } catch {
            Issue.record(error)
        }
    }

    /// The host that answered for each photo's thumbnails, by photo; a photo whose thumbnails
    /// came from several hosts is missing (the front hashes by source: it never should).
    static func hostOfPhoto(_ thumbnails: [Thumbnail], _ cluster: ClusterRun) throws -> [String: Int] {
        let answering = try cluster.answeringHosts()
        return Dictionary(grouping: thumbnails, by: \.photo).compactMapValues { thumbnails in
            let hosts = Set(thumbnails.map { answering[$0.path] })
            return hosts.count == 1 ? hosts.first! : nil
        }
    }

    @Test func eachPhotoIsFetchedOnceAndEachThumbnailRenderedOnceInTheWholeCluster() throws {
        // Given three hosts behind the front, and 30 photos on the origin
        let cluster = try Self.startCluster()
        defer { Self.stop(cluster) }
        let thumbnails = Self.thumbnails(origin: cluster.origin)

        // When each of the 300 thumbnails is asked for
        let first = try cluster.getAll(thumbnails.map(\.path))

        // Then each is made for this request, at its size and in its format
        for (thumbnail, answer) in zip(thumbnails, first) {
            let response = try answer.get()
            #expect(response.status == 200 && response.headers["server-timing"] == "thumbd;desc=miss", "\(thumbnail.path)")
            let image = try ImageProbe(response.body)
            #expect(image.format == thumbnail.format.magickName && image.width == thumbnail.width
                    && image.height == thumbnail.width * 3 / 4, "\(thumbnail.path)")
        }
        // every URL of one photo went to one host, and every host holds some
        let hostOfPhoto = try Self.hostOfPhoto(thumbnails, cluster)
        #expect(hostOfPhoto.count == Self.photos.count)
        #expect(Set(hostOfPhoto.values) == Set(1...Self.hosts))
        // the origin was asked once per photo, and each host rendered the thumbnails sent to it, once each
        let fetched = try cluster.originRequests()
        #expect(fetched == Dictionary(uniqueKeysWithValues: Self.photos.keys.map { ("/\($0)", 1) }))
        let metrics = try (1...Self.hosts).map { try cluster.metrics(host: $0) }
        let photosPerHost = (1...Self.hosts).map { host in hostOfPhoto.values.filter { $0 == host }.count }
        for host in 1...Self.hosts {
            #expect(metrics[host - 1]["thumbd_origin_fetches_total"] == photosPerHost[host - 1])
            #expect(metrics[host - 1]["thumbd_renders_total"] == photosPerHost[host - 1] * 10)
            #expect(metrics[host - 1]["thumbd_requests_total"] == photosPerHost[host - 1] * 10)
        }
        print("cluster: 300 thumbnails of 30 photos; photos per host \(photosPerHost); origin requests per photo "
              + "\(Set(fetched.values).sorted()); renders per thumbnail 1")

        // When all are asked for again
        let second = try cluster.getAll(thumbnails.map(\.path))

        // Then each is the same file, served by the same host's nginx alone: no thumbd saw it
        for (answer, earlier) in zip(second, first) {
            let (response, made) = (try answer.get(), try earlier.get())
            #expect(response.status == 200 && response.headers["server-timing"] == nil && response.body == made.body)
        }
        #expect(try (1...Self.hosts).map { try cluster.metrics(host: $0)["thumbd_requests_total"] } == metrics.map { $0["thumbd_requests_total"] })
        #expect(try cluster.originRequests() == fetched)
        #expect(try Self.hostOfPhoto(thumbnails, cluster) == hostOfPhoto)

        // And a host will not fetch from its own network but the origin: its guard allows that address only
        let inside = try cluster.get(Self.verifier.signedPath("/rs:fit:40:40/plain/http://\(ClusterRun.net).11:80/photo-00.jpg@jpg"))
        #expect(inside.status == 403 && inside.text.hasPrefix("forbidden: source"), "\(inside.text)")

        // And a thumbnail only thumbd may answer (a download) is no static file through the front
        // either, under any spelling of its private name
        let download = Self.verifier.signedPath("/rs:fit:40:40/att:1/plain/\(cluster.origin)photo-00.jpg@webp")
        let answer = try cluster.get(download)
        #expect(answer.status == 200 && answer.headers["content-disposition"] != nil)
        let file = CachePath(signature: nil, documentURI: download, format: .webp, naming: .thumbdOnly).relative
        for spelling in [file, "/" + file, "/./" + file, "/_thumbd/stored" + file, "/served/.." + file,
                         "/%70" + file.dropFirst(2), "/%5Fthumbd/stored" + file] {
            let leaked = try cluster.get(spelling).body == answer.body
            #expect(!leaked, "\(spelling)")
        }
    }

    @Test func aLostHostsThumbnailsAreMadeOnTheOthersAndOnlyTheyMoveBackWhenItReturns() throws {
        // Given the cluster with every thumbnail made
        let cluster = try Self.startCluster()
        defer { Self.stop(cluster) }
        let thumbnails = Self.thumbnails(origin: cluster.origin)
        let paths = thumbnails.map(\.path)
        #expect(try cluster.getAll(paths).allSatisfy { try $0.get().status == 200 })
        let before = try Self.hostOfPhoto(thumbnails, cluster)
        let rendersBefore = try (1...Self.hosts).map { try cluster.metrics(host: $0)["thumbd_renders_total"] ?? 0 }

        // When host 2 goes away, and every thumbnail is asked for
        try cluster.stopHost(2)
        let during = try cluster.getAll(paths)

        // Then every one is served: no client sees an error
        #expect(try during.map { try $0.get().status } == Array(repeating: 200, count: paths.count))
        // exactly host 2's photos moved, all their thumbnails to one other host, each made there once;
        // every other thumbnail is a hit where it was
        let lost = try Self.hostOfPhoto(thumbnails, cluster)
        let moved = Set(Self.photos.keys.filter { lost[$0] != before[$0] })
        #expect(lost.count == Self.photos.count)
        #expect(moved == Set(before.filter { $0.value == 2 }.keys))
        #expect(!lost.values.contains(2))
        let madeDuring = try zip(thumbnails, during).filter { try $1.get().headers["server-timing"] == "thumbd;desc=miss" }.map(\.0.photo)
        let hitsDuring = try during.filter { try $0.get().headers["server-timing"] == nil }.count
        #expect(madeDuring.count == moved.count * 10 && Set(madeDuring) == moved && hitsDuring == paths.count - madeDuring.count)
        let rendersDuring = try [1, 3].map { try cluster.metrics(host: $0)["thumbd_renders_total"] ?? 0 }
        #expect(rendersDuring.reduce(0, +) - rendersBefore[0] - rendersBefore[2] == moved.count * 10)
        let share = Double(moved.count) / Double(Self.photos.count)
        print("cluster: host 2 lost: \(moved.count * 10) of \(paths.count) thumbnails (\(moved.count) of \(Self.photos.count) "
              + "photos, \(Int((share * 100).rounded())) %) moved, each rendered once on another host")
        #expect(share > 0 && share <= 1 / Double(Self.hosts) + 0.1)

        // When host 2 comes back with its cache, and the front tries it again (after fail_timeout)
        try cluster.startHost(2)
        let probe = try #require(thumbnails.first { moved.contains($0.photo) }).path
        _ = try eventually(timeout: 20) { try cluster.get(probe).status != 200 || cluster.answeringHosts()[probe] == 2 }
        let after = try cluster.getAll(paths)

        // Then exactly its own photos went back to it, and every thumbnail is a static hit
        let back = try Self.hostOfPhoto(thumbnails, cluster)
        let movedBack = Set(Self.photos.keys.filter { back[$0] != lost[$0] })
        #expect(movedBack == moved)
        #expect(back == before)
        #expect(try after.allSatisfy { let response = try $0.get(); return response.status == 200 && response.headers["server-timing"] == nil })
        #expect(try (1...Self.hosts).map { try cluster.metrics(host: $0)["thumbd_renders_total"] ?? 0 } == [rendersDuring[0], 0, rendersDuring[1]])
        print("cluster: host 2 back: \(movedBack.count * 10) of \(paths.count) thumbnails (\(movedBack.count) photos) moved back, none rendered again")
    }
}

private extension String {
    func chunks(of length: Int) -> [String] {
        stride(from: 0, to: count, by: length).map { start in
            String(dropFirst(start).prefix(length))
        }
    }
}
