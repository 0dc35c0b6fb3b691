/// How the image is fitted into the asked width and height (imgproxy's `resizing_type`).
public enum ResizingType: String, Sendable, Hashable {
    /// Keep the aspect ratio, fit inside the box.
    case fit
    /// Keep the aspect ratio, cover the box, crop what is outside by the gravity.
    case fill
    /// Stretch to the box exactly.
    case force
}
