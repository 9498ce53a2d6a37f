#!/usr/bin/env python3
"""Writes the HEIC and AVIF test files next to this script (needs `pip install pillow pillow-heif`:
Pillow writes AVIF through its bundled libavif, pillow-heif writes HEIC through its bundled libheif + x265).

Each image is the same deterministic picture (a gradient with hard edges and a red square in the top-left
corner, so flips and rotations show), plus a PNG of the source so the tests can compare what they decode
with what was encoded. Orientation: the picture is stored as is and the file says how to show it (EXIF
orientation given to the writers becomes HEIF's irot/imir properties)."""
import os
from PIL import Image
import pillow_heif

here = os.path.dirname(os.path.abspath(__file__))
pillow_heif.register_heif_opener()


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


def exif(orientation):
    data = Image.Exif()
    data[0x0112] = orientation
    return data.tobytes()


def path(name):
    return os.path.join(here, name)


photo = picture(96, 64)
photo.save(path("photo.png"))
translucent = picture(64, 48, alpha=True)
translucent.save(path("alpha.png"))
large = picture(640, 480)
large.save(path("large.png"))

# HEIC (x265)
photo.save(path("photo.heic"), quality=90)
translucent.save(path("alpha.heic"), quality=90)
photo.save(path("rotated.heic"), quality=90, exif=exif(6))       # shown turned 90° clockwise
photo.save(path("mirrored.heic"), quality=90, exif=exif(2))      # shown mirrored left to right
translucent.save(path("alpha-rotated.heic"), quality=90, exif=exif(8))
large.save(path("thumbnail.heic"), quality=60, thumbnails=[160])  # primary 640x480 + a 160x120 thumbnail

# AVIF (libavif + aom)
photo.save(path("photo.avif"), quality=90)
translucent.save(path("alpha.avif"), quality=90)
photo.save(path("rotated.avif"), quality=90, exif=exif(6))
photo.save(path("mirrored.avif"), quality=90, exif=exif(4))      # shown mirrored top to bottom
