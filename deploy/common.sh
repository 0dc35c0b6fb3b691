# Shared by deploy/run, deploy/cluster and deploy/test: the Debian packages thumbd needs, the
# toolchain, the demo's settings and its nginx. Sourced, not run.

THUMBD_PACKAGES=(libfcgi-dev libmagickwand-dev libcurl4-openssl-dev liblcms2-dev libwebp-dev libpng-dev nginx imagemagick)

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

# Prints the thumbd to run: THUMBD_BINARY, or the release build, built now.
thumbd_binary() {
    if [ -n "${THUMBD_BINARY:-}" ]; then
        echo "$THUMBD_BINARY"
        return 0
    fi
    ensure_swift
    echo "deploy: building thumbd (release)" >&2
    swift build -c release --product thumbd >&2 || return 1
    echo "$(swift build -c release --show-bin-path)/thumbd"
}

# The demo's signing key and salt and its other settings for thumbd; anything already in the
# environment wins.
export_demo_settings() {
    export THUMBD_KEY=${THUMBD_KEY:-943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881}
    export THUMBD_SALT=${THUMBD_SALT:-520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5}
    export THUMBD_MAGICK_POLICY_DIR=${THUMBD_MAGICK_POLICY_DIR:-$PWD/deploy}
    # The socket is 0660 in the group of nginx's workers, which run as nobody.
    export THUMBD_SOCKET_GROUP=${THUMBD_SOCKET_GROUP:-$(id -gn nobody)}
    export THUMBD_AUTO_WEBP=${THUMBD_AUTO_WEBP:-true}
    export THUMBD_AUTO_AVIF=${THUMBD_AUTO_AVIF:-true}
    export THUMBD_PRESETS=${THUMBD_PRESETS:-square=rs:fill:200:200,banner=rs:fill:400:120/q:70,soft=rs:fill:200:200/bl:4,pixel=rs:fill:200:200/pix:10}
}

# Writes DIR/nginx.conf from nginx/nginx.conf: an nginx of its own in DIR (pid, logs, temp files
# there), whose site is DIR/thumbd-site.conf.
write_nginx_conf() {
    local dir=$1
    mkdir -p "$dir/nginx-tmp"
    chmod 755 "$dir"
    chmod 777 "$dir/nginx-tmp"   # nginx's workers run as nobody
    sed -e "s#@RUN_DIR@#$dir#g" nginx/nginx.conf > "$dir/nginx.conf"
}

# Writes DIR/nginx.conf and DIR/thumbd-site.conf from nginx/: an nginx of its own in DIR,
# listening on LISTEN, serving CACHE_ROOT, logging hits to HITS_LOG (thumbd's CACHE_HITS_LOG),
# sending misses to FASTCGI_PASS (thumbd's LISTEN as nginx spells it), with extra locations from
# the glob EXTRAS.
write_thumbd_nginx() {
    local dir=$1 listen=$2 cache_root=$3 hits_log=$4 fastcgi_pass=$5 extras=$6
    write_nginx_conf "$dir"
    sed -e "s#@HTTP_LISTEN@#$listen#" -e "s#@CACHE_ROOT@#$cache_root#" -e "s#@HITS_LOG@#$hits_log#" \
        -e "s#@FASTCGI_PASS@#$fastcgi_pass#" -e "s#@SITE_EXTRAS@#$extras#" \
        nginx/thumbd.conf > "$dir/thumbd-site.conf"
}
