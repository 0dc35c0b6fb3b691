/// imgproxy Pro's best format: `f:best` or the extension `@best` (`.best`), and
/// BEST_FORMAT_BY_DEFAULT for URLs that name no format. thumbd encodes every candidate the client
/// accepts (the negotiated format its Accept picks, and the preferred formats) to the same
/// quality target and keeps the smallest.
public enum BestFormat {
    /// The name in URLs.
    public static let name = "best"

    /// The encodes one best-format render may spend, autoquality's included: the candidates
    /// after the first are skipped once it is reached.
    public static let maxEncodes = 12
}
