# Shared by bench/soak, bench/crash and bench/flood: the photos and a release thumbd. Sourced.
source deploy/common.sh

# Sets $work (THUMBD_BENCH_DIR, default /tmp/thumbd-bench, with the photos in $work/photos) and
# $thumbd (the release binary, built now).
prepare_release_thumbd() {
    work=${THUMBD_BENCH_DIR:-/tmp/thumbd-bench}
    mkdir -p "$work"
    chmod 755 "$work"
    ensure_packages python3
    ensure_swift
    fetch_photos "$work/photos"
    chmod -R a+rX "$work/photos"
    swift build -c release --product thumbd >&2
    thumbd="$(swift build -c release --show-bin-path)/thumbd"
}
