/// How the image is fitted into the asked width and height (imgproxy's `resizing_type`).
public enum ResizingType: String, Sendable, Hashable, CaseIterable {
    /// Keep the aspect ratio, fit inside the box.
    case fit
    /// Keep the aspect ratio, cover the box, crop what is outside by the gravity.
    case fill
    /// Like fill, but a source smaller than the box is cropped to the box's aspect, not enlarged.
    case fillDown = "fill-down"
    /// Stretch to the box exactly.
    case force
    /// fill when source and box are both portrait or both landscape, fit otherwise.
    case auto
}
