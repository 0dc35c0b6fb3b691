# Shared by the benches: the photos, a release thumbd, the storm client and flat graphics. Sourced.
source deploy/common.sh

# Sets $work (THUMBD_BENCH_DIR, default /tmp/thumbd-bench, with the photos in $work/photos) and
# $thumbd (the release binary, built now).
prepare_release_thumbd() {
    work=${THUMBD_BENCH_DIR:-/tmp/thumbd-bench}
    mkdir -p "$work"
    # The benches write and remove under it, often as root: a directory someone else made (or a
    # link to one) in /tmp would let them point those writes anywhere.
    if [ -L "$work" ] || [ "$(stat -c %u "$work")" != "$(id -u)" ]; then
        echo "bench: $work is a link or another user's; set THUMBD_BENCH_DIR to a directory of your own" >&2
        exit 1
    fi
    chmod 755 "$work"
    ensure_packages python3
    ensure_swift
    fetch_photos "$work/photos"
    chmod -R a+rX "$work/photos"
    swift build -c release --product thumbd >&2
    thumbd="$(swift build -c release --show-bin-path)/thumbd"
}

# Sets $storm_client: bench/storm-client.c, compiled now (by the C compiler that came with Swift
# when the machine has no other).
build_storm_client() {
    local compiler
    compiler=$(command -v cc || command -v clang) || { echo "bench: no C compiler" >&2; exit 1; }
    storm_client=$work/storm-client
    "$compiler" -O2 -Wall -Werror -o "$storm_client" bench/storm-client.c
}

# Three flat graphics with transparency, 1200x800, as a logo, a sign and an icon are drawn:
# DIR/card.png, DIR/sign.png and DIR/face.png.
draw_flat_graphics() {
    local dir=$1 bars=""
    for left in 420 530 640 750 860 970; do bars+=" rectangle $left,300 $((left + 40)),520"; done
    convert -size 1200x800 xc:none -fill '#1f6feb' -draw 'roundrectangle 100,100 1100,700 80,80' \
        -fill '#f0b429' -draw 'circle 250,250 330,250' -fill '#333333' -draw 'rectangle 150,640 1050,660' \
        -fill white -draw "$bars" -draw 'polygon 700,560 1000,600 720,620' "$dir/card.png"
    convert -size 1200x800 xc:none -fill '#e03131' -draw 'polygon 600,80 1100,720 100,720' \
        -fill white -draw 'rectangle 570,260 630,560' -draw 'circle 600,630 600,665' "$dir/sign.png"
    convert -size 1200x800 xc:none -fill '#2b8a3e' -draw 'circle 600,400 600,80' \
        -fill '#ffd43b' -draw 'circle 480,320 480,270' -draw 'circle 720,320 720,270' \
        -fill none -stroke '#ffd43b' -strokewidth 40 -draw 'arc 380,380 820,620 20,160' "$dir/face.png"
}
