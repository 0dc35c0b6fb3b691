"""SSIMULACRA2 of DISTORTED against REFERENCE, with alpha: the worse of the scores on a dark and
a light background, each file flattened by ImageMagick first, because the package's
compute_ssimulacra2_with_alpha converts to RGB before it blends, so it scores the colours hidden
under transparent pixels. AVIF and JPEG XL are read through their reference decoders
(bench/reference_decoders.py). Prints the score.

    python alpha_score.py REFERENCE DISTORTED
"""
import subprocess
import sys
import tempfile

from ssimulacra2 import compute_ssimulacra2

from reference_decoders import readable


def alpha_score(reference, distorted):
    scores = []
    with tempfile.TemporaryDirectory() as directory:
        files = [readable(path, f"{directory}/{index}.decoded.png") for index, path in enumerate((reference, distorted))]
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
