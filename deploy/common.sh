# Shared by deploy/run and deploy/test: the Debian packages thumbd needs, and the toolchain.
# Sourced, not run.

THUMBD_PACKAGES=(libfcgi-dev libmagickwand-dev libcurl4-openssl-dev liblcms2-dev libwebp-dev nginx imagemagick)

# Installs whatever of THUMBD_PACKAGES, and of the packages named as arguments, is missing
# (apt-get update first, once).
ensure_packages() {
    local missing=()
    for package in "${THUMBD_PACKAGES[@]}" "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "deploy: installing ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# Puts a Swift 6 toolchain on PATH (this machine's lives in /opt/swift).
ensure_swift() {
    if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
        export PATH="/opt/swift/usr/bin:$PATH"
    fi
    command -v swift >/dev/null 2>&1 || { echo "deploy: a Swift 6 toolchain must be on PATH" >&2; exit 1; }
}

# Fills a directory with sample photos: the project's corpus when it is beside the checkout,
# otherwise a few images drawn by ImageMagick.
fetch_photos() {
    local destination=$1 corpus
    corpus="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/shared/corpus/fetch-photos"
    mkdir -p "$destination"
    if [ -x "$corpus" ] && "$corpus" "$destination" >/dev/null; then
        return 0
    fi
    echo "deploy: no photo corpus here; drawing sample images instead" >&2
    convert -size 2400x1600 plasma:fractal -blur 0x2 "$destination/plasma.jpg"
    convert -size 1600x1200 gradient:navy-orange -swirl 120 "$destination/swirl.jpg"
    convert -size 1200x1200 xc:none -fill seagreen -draw "circle 600,600 600,100" "$destination/circle.png"
}
