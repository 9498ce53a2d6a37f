#!/usr/bin/env python3
"""Writes the JPEG 2000 test files next to this script (run it from anywhere; needs `pip install pillow`).

Each image is the same deterministic picture (a gradient with hard edges and a red square in the top-left
corner, so flips and rotations show), encoded by Pillow on OpenJPEG, plus a PNG of the source so the tests
can compare what they decode against what was encoded. Pillow's version only changes the bytes, not what
the files contain."""
import os
from PIL import Image

here = os.path.dirname(os.path.abspath(__file__))


def picture(width, height, alpha=False):
    image = Image.new("RGBA" if alpha else "RGB", (width, height))
    pixels = image.load()
    for y in range(height):
        for x in range(width):
            edge = 60 if (x // 8 + y // 8) % 2 == 0 else 0
            r, g, b = x * 255 // max(width - 1, 1), min(255, y * 255 // max(height - 1, 1) + edge), 128
            if x < width // 4 and y < height // 4:
                r, g, b = 230, 20, 20
            if alpha:
                a = 0 if x + y < width // 3 else (128 if x > width * 3 // 4 else 255)
                pixels[x, y] = (r, g, b, a)
            else:
                pixels[x, y] = (r, g, b)
    return image


def save(image, name, **options):
    image.save(os.path.join(here, name), **options)


photo = picture(96, 64)
save(photo, "photo.png")
save(photo, "photo-lossless.jp2", irreversible=False)
save(photo, "photo-lossy.jp2", irreversible=True, quality_mode="dB", quality_layers=[38])
save(photo, "photo.j2k", irreversible=False, progression="RPCL")
gray = photo.convert("L")
save(gray, "gray.png")
save(gray, "gray.jp2", irreversible=False)
translucent = picture(64, 48, alpha=True)
save(translucent, "alpha.png")
save(translucent, "alpha.jp2", irreversible=False)
# 16-bit gray: precision above 8 bits.
deep = gray.convert("I").point(lambda v: v * 257).convert("I;16")
save(deep, "gray16.jp2", irreversible=False)
# Larger, with 6 resolution levels, for reduced-resolution decoding.
large = picture(640, 480)
save(large, "large.png")
save(large, "large.jp2", irreversible=True, quality_mode="dB", quality_layers=[40], num_resolutions=6)
