#include "CPNGPalette.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libpng reports errors by longjmp, which only C can catch: the whole encode lives here.

typedef struct {
    thumbd_png_output *output;
    char *error;
    size_t error_size;
    int out_of_memory;
} destination;

static void write_to_memory(png_structp png, png_bytep data, size_t length) {
    destination *target = png_get_io_ptr(png);
    thumbd_png_output *output = target->output;
    if (length > output->capacity - output->size) {
        size_t capacity = output->capacity ? output->capacity : 4096;
        while (length > capacity - output->size) capacity *= 2;
        uint8_t *grown = realloc(output->bytes, capacity);
        if (!grown) png_error(png, "out of memory");
        output->bytes = grown;
        output->capacity = capacity;
    }
    memcpy(output->bytes + output->size, data, length);
    output->size += length;
}

static void flush_nothing(png_structp png) { (void)png; }

static void keep_error(png_structp png, png_const_charp message) {
    destination *target = png_get_error_ptr(png);
    snprintf(target->error, target->error_size, "%s", message);
    png_longjmp(png, 1);
}

static void ignore_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static int bit_depth_for(int colors) {
    if (colors <= 2) return 1;
    if (colors <= 4) return 2;
    if (colors <= 16) return 4;
    return 8;
}

int thumbd_png_encode_palette(const uint8_t *indices, int width, int height, const uint8_t *palette, int colors,
                              int transparent_entries, const uint8_t *icc, size_t icc_size,
                              thumbd_png_output *output, char *error, size_t error_size) {
    destination target = {output, error, error_size, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &target, keep_error, ignore_warning);
    if (!png) {
        snprintf(error, error_size, "libpng: cannot start a PNG");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    // Volatile: set before the longjmp may come back here.
    png_bytep *volatile rows = NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        if (!info) snprintf(error, error_size, "libpng: out of memory");
        free(rows);
        png_destroy_write_struct(&png, &info);
        free(output->bytes);
        output->bytes = NULL;
        output->size = output->capacity = 0;
        return -1;
    }
    png_set_write_fn(png, &target, write_to_memory, flush_nothing);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, bit_depth_for(colors), PNG_COLOR_TYPE_PALETTE,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_color entries[256];
    png_byte alphas[256];
    for (int i = 0; i < colors; i++) {
        entries[i].red = palette[4 * i];
        entries[i].green = palette[4 * i + 1];
        entries[i].blue = palette[4 * i + 2];
        alphas[i] = palette[4 * i + 3];
    }
    png_set_PLTE(png, info, entries, colors);
    if (transparent_entries > 0) png_set_tRNS(png, info, alphas, transparent_entries, NULL);
    if (icc) png_set_iCCP(png, info, "icc", PNG_COMPRESSION_TYPE_BASE, icc, (png_uint_32)icc_size);
    // Indices of a palette image gain nothing from filters (libpng's and pngquant's own choice).
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    png_set_compression_level(png, 9);
    png_write_info(png, info);
    // Fewer than 8 bits an index: libpng packs the one-byte indices given.
    png_set_packing(png);
    rows = malloc(sizeof(png_bytep) * (size_t)height);
    if (!rows) png_error(png, "out of memory");
    for (int y = 0; y < height; y++) rows[y] = (png_bytep)(indices + (size_t)y * (size_t)width);
    png_write_image(png, rows);
    png_write_end(png, info);
    free(rows);
    png_destroy_write_struct(&png, &info);
    return 0;
}
