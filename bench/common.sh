# Shared by bench/run, bench/storm, bench/soak, bench/crash and bench/flood: the photos, a release
# thumbd and the storm client. Sourced.
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
