#ifndef THUMBD_CPNG_PALETTE_H
#define THUMBD_CPNG_PALETTE_H

#include <stddef.h>
#include <stdint.h>

/// A palette PNG as written: `bytes` (malloc'd, the caller frees it) holds `size` bytes.
typedef struct {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
} thumbd_png_output;

/// Writes a palette PNG (colour type 3) of `width` x `height` one-byte `indices` into `palette`,
/// `colors` RGBA entries (1 to 256), whose entries with alpha below 255 come first (tRNS then
/// holds only those). The bit depth is the fewest of 1, 2, 4 or 8 that `colors` needs. `icc`,
/// when not NULL, goes in an iCCP chunk. Returns 0 on success; -1 when libpng fails, with its
/// message in `error` (`error_size` bytes at most).
int thumbd_png_encode_palette(const uint8_t *indices, int width, int height, const uint8_t *palette, int colors,
                              int transparent_entries, const uint8_t *icc, size_t icc_size,
                              thumbd_png_output *output, char *error, size_t error_size);

#endif
