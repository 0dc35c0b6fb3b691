#ifndef THUMBD_CPNG_H
#define THUMBD_CPNG_H

#include <stddef.h>
#include <stdint.h>

#include "CPNGPalette.h"

/// A PNG decoded row by row and shrunk by an integer factor on the way: the whole image is never
/// in memory. `pixels` (malloc'd, the caller frees it) holds width x height pixels of `channels`
/// (3: RGB, 4: RGBA) 8-bit values.
typedef struct {
    uint8_t *pixels;
    int width;
    int height;
    int channels;
} thumbd_png_image;

/// Decodes `data`, averaging each `factor` x `factor` square of pixels into one (alpha-weighted;
/// the squares at the right and bottom edges may be partial). Returns 0 on success; 1 when the PNG
/// is interlaced (its rows come in seven passes, which this does not shrink); -1 when libpng
/// fails or warns, with its message in `error` (`error_size` bytes at most).
int thumbd_png_decode_shrunk(const uint8_t *data, size_t size, int factor, thumbd_png_image *image,
                             char *error, size_t error_size);

#endif
