"""AVIF and JPEG XL as their reference decoders (avifdec, djxl) read them, for a metric that
reads PNG: ImageMagick's HEIC reader drops an AVIF's alpha. Told by the file's bytes, not its
name, so a best format's file (`.best`) is decoded as what it is."""
import subprocess


def decoder(path):
    """avifdec, djxl, or None for a format the metric reads itself."""
    with open(path, "rb") as file:
        head = file.read(12)
    if head[4:12] == b"ftypavif":
        return "avifdec"
    if head.startswith((b"\xff\x0a", b"\x00\x00\x00\x0cJXL ")):
        return "djxl"
    return None


def readable(path, png):
    """PATH itself, or PNG written by PATH's reference decoder."""
    program = decoder(path)
    if program is None:
        return str(path)
    subprocess.run([program, str(path), str(png)], check=True, capture_output=True)
    return str(png)
