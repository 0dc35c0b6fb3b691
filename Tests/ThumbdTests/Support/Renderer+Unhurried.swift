@testable import ThumbImaging

extension Renderer.Configuration {
    /// The defaults, with time for a render on a machine CI shares (one render of a large source
    /// took over the default 10 s at a load of 15): a test of the render's deadline sets its own.
    static var unhurried: Self {
        var configuration = Self()
        configuration.maxRenderSeconds = 120
        return configuration
    }
}
