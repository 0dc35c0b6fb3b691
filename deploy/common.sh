# Shared by deploy/run, deploy/cluster and deploy/test: the Debian packages thumbd needs, the
# toolchain, the demo's settings and its nginx. Sourced, not run.

THUMBD_PACKAGES=(libfcgi-dev libmagickwand-dev libcurl4-openssl-dev liblcms2-dev libwebp-dev libpng-dev libimagequant-dev libavif-dev libjxl-dev nginx imagemagick)

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

# Root runs these scripts, so every file they read, run, write or kill by lives in a directory no
# other user can change. Fixed names under /tmp were anyone's to make first: a settings file there
# was sourced as root, a pid file's process killed, a config swapped before nginx read it, a
# symlink followed by a write.

# Prints the real path of PATH when it and every directory above it belong to root or to the
# caller and no one else may write to them (above it, a sticky directory such as /tmp will do: no
# one else may rename or remove what is ours in it); otherwise says why and fails.
trusted_path() {
    local real path owner mode me
    me=$(id -u)
    real=$(realpath -e -- "$1" 2>/dev/null) || { echo "deploy: $1 does not exist" >&2; return 1; }
    path=$real
    while :; do
        read -r owner mode <<< "$(stat -c '%u %a' -- "$path")"
        if [ "$owner" -ne 0 ] && [ "$owner" -ne "$me" ]; then
            echo "deploy: refusing $1: $path belongs to uid $owner, not to root or uid $me" >&2
            return 1
        fi
        if (( 8#$mode & 8#022 )) && { [ "$path" = "$real" ] || (( !(8#$mode & 8#1000) )); }; then
            echo "deploy: refusing $1: others may write to $path (mode $mode)" >&2
            return 1
        fi
        [ "$path" = / ] && break
        path=$(dirname -- "$path")
    done
    printf '%s\n' "$real"
}

# Prints the directory a run keeps its files in: THUMBD_RUN_DIR (made if missing), or a fresh one
# made by mktemp with PREFIX; refused unless trusted_path. nginx's workers may read it.
run_directory() {
    local dir
    if [ -n "${THUMBD_RUN_DIR:-}" ]; then
        mkdir -p -- "$THUMBD_RUN_DIR"
        dir=$(trusted_path "$THUMBD_RUN_DIR") || return 1
    else
        dir=$(trusted_path "$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")") || return 1
    fi
    chmod 755 "$dir"
    printf '%s\n' "$dir"
}

# Whether /proc shows PID to be the nginx whose config is RUN/nginx.conf, or the thumbd started
# with THUMBD_RUN_DIR=RUN in its environment: the number in a pid file may be another process's
# by now.
is_ours() {
    local pid=$1 run=$2
    [[ $pid =~ ^[1-9][0-9]*$ ]] || return 1
    case "$(cat "/proc/$pid/comm" 2>/dev/null)" in
        # The master's title: "nginx: master process nginx -p RUN -c RUN/nginx.conf -g ...".
        nginx) tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- " -c $run/nginx.conf " ;;
        thumbd) tr '\0' '\n' < "/proc/$pid/environ" | grep -qxF -- "THUMBD_RUN_DIR=$run" ;;
        *) return 1 ;;
    esac
}

# The caller's own copy of the sample photos, fetched once and kept.
photo_cache=${XDG_CACHE_HOME:-$HOME/.cache}/thumbd/photos

# Fills DIR (made if missing; refused unless trusted_path) with sample photos, the project's corpus
# when it is beside the checkout, otherwise a few images drawn by ImageMagick, and prints its path.
# Drawn images never join photos already there: a checkout without the corpus sharing DIR with one
# that has it would add them to every bench that counts the corpus.
fetch_photos() {
    local destination corpus
    mkdir -p -- "$1"
    destination=$(trusted_path "$1") || return 1
    corpus="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/shared/corpus/fetch-photos"
    if ! { [ -x "$corpus" ] && "$corpus" "$destination" >/dev/null; } &&
        [ -z "$(find "$destination" -maxdepth 1 -type f -print -quit)" ]; then
        echo "deploy: no photo corpus here; drawing sample images instead" >&2
        convert -size 2400x1600 plasma:fractal -blur 0x2 "$destination/plasma.jpg"
        convert -size 1600x1200 gradient:navy-orange -swirl 120 "$destination/swirl.jpg"
        convert -size 1200x1200 xc:none -fill seagreen -draw "circle 600,600 600,100" "$destination/circle.png"
    fi
    printf '%s\n' "$destination"
}

# Copies the photos a demo origin serves into DIR, readable by nginx's workers: THUMBD_PHOTOS as
# they are (refused unless trusted_path), or the sample photos.
copy_demo_photos() {
    local photos
    if [ -n "${THUMBD_PHOTOS:-}" ]; then
        photos=$(trusted_path "$THUMBD_PHOTOS") || return 1
    else
        photos=$(fetch_photos "$photo_cache") || return 1
    fi
    mkdir -p -- "$1"
    cp -R -- "$photos/." "$1"
    chmod -R a+rX -- "$1"
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
    # What /_thumbd/metrics through the site asks for: Authorization: Bearer <token>.
    export THUMBD_METRICS_TOKEN=${THUMBD_METRICS_TOKEN:-demo-metrics-token-5c0f9a2e}
    export THUMBD_MAGICK_POLICY_DIR=${THUMBD_MAGICK_POLICY_DIR:-$PWD/deploy}
    # The socket is 0660 in the group of nginx's workers, which run as nobody.
    export THUMBD_SOCKET_GROUP=${THUMBD_SOCKET_GROUP:-$(id -gn nobody)}
    export THUMBD_AUTO_WEBP=${THUMBD_AUTO_WEBP:-true}
    export THUMBD_AUTO_AVIF=${THUMBD_AUTO_AVIF:-true}
    export THUMBD_PRESETS=${THUMBD_PRESETS:-square=rs:fill:200:200,banner=rs:fill:400:120/q:70,soft=rs:fill:200:200/bl:4,pixel=rs:fill:200:200/pix:10}
}

# Prints TEXT with every byte outside RFC 3986's unreserved characters as %XX.
percent_encode() {
    local LC_ALL=C text=$1 out="" char i
    for ((i = 0; i < ${#text}; i++)); do
        char=${text:i:1}
        case $char in
            [A-Za-z0-9._~-]) out+=$char ;;
            *) printf -v char '%%%02X' "'$char"; out+=$char ;;
        esac
    done
    printf '%s' "$out"
}

# Prints the source part of a thumbd path for the demo origin's photo NAME under BASE/origin/, in
# format EXT (none: negotiated): plain when the name needs no escaping, else base64 (a plain source
# may not carry %XX: thumbd would read it as a path that asks for something else).
photo_source() {
    local base=$1 name=$2 ext=${3:-} escaped
    escaped=$(percent_encode "$name")
    if [ "$escaped" = "$name" ]; then
        printf 'plain/%s/origin/%s%s' "$base" "$name" "${ext:+@$ext}"
    else
        printf '%s%s' "$(printf '%s/origin/%s' "$base" "$escaped" | base64 -w0 | tr '+/' '-_' | tr -d '=' | fold -w 64 | paste -sd/)" \
            "${ext:+.$ext}"
    fi
}

# Writes DIR/nginx.conf from nginx/nginx.conf: an nginx of its own in DIR (pid, logs, temp files
# there), whose site is DIR/thumbd-site.conf. nginx's master makes each temp path in DIR/nginx-tmp
# itself, 0700 and its workers' (nobody's); made afresh, as an earlier run's could hold a link
# the master would follow when it hands them over (chown).
write_nginx_conf() {
    local dir=$1
    rm -rf -- "$dir/nginx-tmp"
    mkdir -p -m 755 -- "$dir/nginx-tmp"
    chmod 755 "$dir"
    sed -e "s#@RUN_DIR@#$dir#g" nginx/nginx.conf > "$dir/nginx.conf"
}

# Writes DIR/nginx.conf from nginx/nginx.conf and DIR/thumbd-site.conf with THUMBD (the binary)
# `nginx-config site` and the rest of the arguments (--listen, --cache-root, --socket, ...): an
# nginx of its own in DIR, whose access log is DIR/nginx-access.log unless they say otherwise.
write_thumbd_nginx() {
    local dir=$1 thumbd=$2
    shift 2
    write_nginx_conf "$dir"
    "$thumbd" nginx-config site --access-log "$dir/nginx-access.log" "$@" --output "$dir/thumbd-site.conf"
}
