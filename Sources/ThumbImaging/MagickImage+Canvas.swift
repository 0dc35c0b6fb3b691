import CMagickWand

extension MagickImage {
    /// The canvas the current frame is drawn on (a GIF's logical screen), sized as ImageMagick's
    /// coalesce sizes it: the frame's page, or, where the file gives none, the frame's own size
    /// and offset.
    var canvas: (width: Int, height: Int) {
        let page = self.page
        return (page.width > 0 ? page.width : width + max(0, page.x),
                page.height > 0 ? page.height : height + max(0, page.y))
    }

    /// Whether the current frame is its whole canvas: no offset, no part of the canvas left out.
    var coversCanvas: Bool {
        let page = self.page
        return page.x == 0 && page.y == 0 && canvas == (width, height)
    }

    /// Each frame's own size and its canvas's, first to last (of a pinged wand too); the first
    /// frame is left current.
    var frameSizes: [(size: (width: Int, height: Int), canvas: (width: Int, height: Int))] {
        var sizes: [(size: (width: Int, height: Int), canvas: (width: Int, height: Int))] = []
        MagickResetIterator(wand)
        while MagickNextImage(wand) == MagickTrue {
            sizes.append(((width, height), canvas))
        }
        MagickSetFirstIterator(wand)
        return sizes
    }

    private var page: (width: Int, height: Int, x: Int, y: Int) {
        var width = 0, height = 0, x = 0, y = 0
        MagickGetImagePage(wand, &width, &height, &x, &y)
        return (width, height, x, y)
    }
}
