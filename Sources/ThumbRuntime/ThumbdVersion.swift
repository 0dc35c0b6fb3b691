public enum ThumbdVersion {
    public static let current = "0.1.0"
}
