"""SSIMULACRA2 of DISTORTED against REFERENCE, with alpha: the worse of the scores on a dark and
a light background, each file flattened by ImageMagick first, because the package's
compute_ssimulacra2_with_alpha converts to RGB before it blends, so it scores the colours hidden
under transparent pixels. AVIF and JPEG XL are decoded by their reference decoders (avifdec, djxl)
first: ImageMagick's HEIC reader reads an AVIF without its alpha. Prints the score.

    python alpha_score.py REFERENCE DISTORTED
"""
import subprocess
import sys
import tempfile

from ssimulacra2 import compute_ssimulacra2


def decodable(path, directory, index):
    """PATH, or a PNG of it decoded by its format's reference decoder."""
    with open(path, "rb") as file:
        head = file.read(32)
    decoder = "avifdec" if head[4:12] == b"ftypavif" else "djxl" if head.startswith((b"\xff\x0a", b"\x00\x00\x00\x0cJXL ")) else None
    if decoder is None:
        return path
    png = f"{directory}/{index}.decoded.png"
    subprocess.run([decoder, path, png], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return png


def alpha_score(reference, distorted):
    scores = []
    with tempfile.TemporaryDirectory() as directory:
        files = [decodable(path, directory, index) for index, path in enumerate((reference, distorted))]
        for background in ("#1a1a1a", "#e6e6e6"):
            flat = []
            for index, path in enumerate(files):
                out = f"{directory}/{index}.{background[1:]}.png"
                subprocess.run(["convert", path, "-background", background, "-flatten", "PNG24:" + out], check=True)
                flat.append(out)
            scores.append(compute_ssimulacra2(*flat))
    return min(scores)


if __name__ == "__main__":
    print(f"{alpha_score(sys.argv[1], sys.argv[2]):.1f}")
