/// How long clients and CDNs keep a thumbnail: a year, and never revalidate it, since its URL
/// names exactly what it is (imgproxy's TTL default). thumbd's answers and nginx's hits say the same.
public enum ThumbnailLifetime {
    public static let seconds = 31_536_000
    public static let cacheControl = "public, max-age=\(seconds), immutable"
}
