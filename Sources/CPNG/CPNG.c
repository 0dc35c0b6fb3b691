#include "CPNG.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libpng reports errors by longjmp, which only C can catch: the whole decode lives here.

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t position;
    char *error;
    size_t error_size;
} source;

static void read_from_memory(png_structp png, png_bytep out, size_t length) {
    source *input = png_get_io_ptr(png);
    if (length > input->size - input->position) png_error(png, "PNG is truncated");
    memcpy(out, input->data + input->position, length);
    input->position += length;
}

static void keep_error(png_structp png, png_const_charp message) {
    source *input = png_get_error_ptr(png);
    snprintf(input->error, input->error_size, "%s", message);
    png_longjmp(png, 1);
}

// A warning (a damaged ancillary chunk, a doubtful profile) stops the decode too: ImageMagick
// then reads the file and judges it, as it judges every other.
static void stop_at_warning(png_structp png, png_const_charp message) {
    keep_error(png, message);
}

// Adds a row's pixels to the sums of the output columns they fall in (FACTOR pixels each):
// colour weighted by alpha, so that transparent pixels lend the average no colour. An opaque
// pixel's weight is 255 all the same, added once per column rather than per pixel.
static void add_row(const uint8_t *row, int width, int channels, int factor, uint32_t *sums) {
    for (int start = 0; start < width; start += factor, sums += 4) {
        const int count = start + factor < width ? factor : width - start;
        const uint8_t *pixel = row + (size_t)start * channels;
        if (channels == 4) {
            for (int x = 0; x < count; x++, pixel += 4) {
                const uint32_t alpha = pixel[3];
                sums[0] += pixel[0] * alpha;
                sums[1] += pixel[1] * alpha;
                sums[2] += pixel[2] * alpha;
                sums[3] += alpha;
            }
        } else {
            uint32_t red = 0, green = 0, blue = 0;
            for (int x = 0; x < count; x++, pixel += 3) {
                red += pixel[0];
                green += pixel[1];
                blue += pixel[2];
            }
            sums[0] += red * 255;
            sums[1] += green * 255;
            sums[2] += blue * 255;
            sums[3] += 255u * (uint32_t)count;
        }
    }
}

int thumbd_png_decode_shrunk(const uint8_t *data, size_t size, int factor, thumbd_png_image *image,
                             char *error, size_t error_size) {
    source input = {data, size, 0, error, error_size};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &input, keep_error, stop_at_warning);
    if (png == NULL) {
        snprintf(error, error_size, "libpng: out of memory");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    // Volatile: set between setjmp and a longjmp back to it.
    uint8_t *volatile row = NULL;
    uint32_t *volatile sums = NULL;
    uint8_t *volatile pixels = NULL;
    if (info == NULL || setjmp(png_jmpbuf(png))) {
        if (info == NULL) snprintf(error, error_size, "libpng: out of memory");
        png_destroy_read_struct(&png, info == NULL ? NULL : &info, NULL);
        free(row);
        free(sums);
        free(pixels);
        return -1;
    }
    png_set_read_fn(png, &input, read_from_memory);
    // zlib's Adler-32 of the inflated pixels (26 MB for a 3700x2400 photo, 8 % of its decode)
    // is not checked: each chunk's CRC still checks every compressed byte as it was written.
    png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
    png_read_info(png, info);
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) {
        png_destroy_read_struct(&png, &info, NULL);
        return 1;
    }
    // Every layout becomes 8-bit RGB, with alpha where the file has any (a tRNS chunk included).
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_read_update_info(png, info);
    const int channels = png_get_channels(png, info);
    const int width = (int)png_get_image_width(png, info), height = (int)png_get_image_height(png, info);
    const int out_width = (width + factor - 1) / factor, out_height = (height + factor - 1) / factor;
    row = malloc(png_get_rowbytes(png, info));
    sums = calloc((size_t)out_width * 4, sizeof(uint32_t));
    pixels = malloc((size_t)out_width * out_height * channels);
    if (row == NULL || sums == NULL || pixels == NULL) png_error(png, "out of memory");

    for (int y = 0; y < height; y++) {
        png_read_row(png, row, NULL);
        add_row(row, width, channels, factor, sums);
        if ((y + 1) % factor != 0 && y + 1 != height) continue;
        const int rows = (y % factor) + 1;
        uint8_t *out = pixels + (size_t)(y / factor) * out_width * channels;
        for (int x = 0; x < out_width; x++) {
            uint32_t *sum = sums + (size_t)x * 4;
            const uint32_t count = (uint32_t)rows * (uint32_t)(x == out_width - 1 ? width - x * factor : factor);
            for (int c = 0; c < 3; c++) out[x * channels + c] = sum[3] ? (uint8_t)((sum[c] + sum[3] / 2) / sum[3]) : 0;
            if (channels == 4) out[x * channels + 3] = (uint8_t)((sum[3] + count / 2) / count);
            memset(sum, 0, 4 * sizeof(uint32_t));
        }
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(row);
    free(sums);
    image->pixels = pixels;
    image->width = out_width;
    image->height = out_height;
    image->channels = channels;
    return 0;
}
