import ThumbRequest
import ThumbRuntime

/// Processing happens in sRGB, as browsers show untagged images: an embedded ICC profile (Adobe
/// RGB, Display P3, a CMYK press profile) is converted to sRGB; untagged CMYK is transformed.
struct ConvertToSRGB: PreparationStep {
    func apply(to image: MagickImage, options: ProcessingOptions) throws(ImagingFailure) {
        if image.hasICCProfile {
            // An sRGB profile needs no conversion; the transform costs time on every pixel.
            if image.property("icc:description")?.contains("sRGB") == true { return }
            try image.convert(toProfile: SRGBProfile.bytes)
        } else if image.isCMYK {
            try image.transformToSRGB()
        }
    }
}
