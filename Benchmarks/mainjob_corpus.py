#!/usr/bin/env python3
"""Generates the main job's corpus (PERFORMANCE.md, second wave): 300 web-like images, deterministic.

Baseline and progressive JPEGs 640-2048 px (longer side) of photographic content (crops and rescales of the shared
fixtures' photos when present, else procedural shapes and texture that compress like a photo), with film grain,
colour and exposure changes, mirrored or turned, at the qualities and chroma subsampling web encoders use;
and some PNGs. About 50 MB in all. Writes the files and `list.txt` (one file name a line, in fetch order) into
the output directory; the same script always writes the same bytes (seeded, Pillow's encoders).

Usage: mainjob_corpus.py OUTPUT_DIR [--fixtures DIR] [--count 300]
"""
import argparse
import io
import os
import random

import numpy as np
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter

PHOTOS = ["carnival.jpg", "sample.webp", "twitterfied.jpg", "pink_outfit.jpg", "carnival_less_color.png"]
ASPECTS = [(3, 2), (4, 3), (16, 9), (1, 1), (2, 3), (3, 4), (4, 5)]


def procedural(rng, width, height):
    """Overlapping shapes with soft edges over fractal texture at every scale: compresses about like a photo."""
    texture = np.zeros((height, width, 3), np.float32)
    amplitude = 1.0
    cell = max(width, height) // 2
    nprng = np.random.default_rng(rng.randrange(1 << 30))
    mix = nprng.uniform(0.4, 1.0, (3, 3)).astype(np.float32)
    while cell >= 1:
        gh, gw = height // cell + 2, width // cell + 2
        grid = nprng.uniform(-1, 1, (gh, gw, 3)).astype(np.float32) @ mix
        small = Image.fromarray(((grid - grid.min()) / (np.ptp(grid) + 1e-6) * 255).astype(np.uint8))
        layer = np.asarray(small.resize((gw * cell, gh * cell), Image.BICUBIC), np.float32)[:height, :width]
        texture += amplitude * (layer - 128)
        amplitude *= 0.8
        cell //= 2
    texture *= 80 / (np.abs(texture).max() + 1e-6)
    image = Image.new("RGB", (width, height), tuple(rng.randrange(256) for _ in range(3)))
    draw = ImageDraw.Draw(image)
    for _ in range(250):
        size = int(max(width, height) * rng.uniform(0.01, 0.3))
        x, y = rng.randrange(width), rng.randrange(height)
        colour = tuple(rng.randrange(256) for _ in range(3))
        if rng.random() < 0.5:
            draw.ellipse((x - size, y - size // 2, x + size, y + size // 2), fill=colour)
        else:
            draw.polygon([(x + rng.randint(-size, size), y + rng.randint(-size, size)) for _ in range(rng.randint(3, 6))], fill=colour)
    image = image.filter(ImageFilter.GaussianBlur(rng.uniform(0.6, 1.5)))
    return Image.fromarray(np.clip(np.asarray(image, np.float32) + texture, 0, 255).astype(np.uint8))


def source_photos(fixtures):
    photos = []
    if fixtures:
        for name in PHOTOS:
            path = os.path.join(fixtures, name)
            if os.path.exists(path):
                photos.append(Image.open(path).convert("RGB"))
    return photos


def make_image(rng, photos, width, height):
    if photos:
        photo = photos[rng.randrange(len(photos))]
        if rng.random() < 0.3:
            photo = photo.transpose(Image.ROTATE_90)
        if rng.random() < 0.5:
            photo = photo.transpose(Image.FLIP_LEFT_RIGHT)
        # A crop of 45-100% of the photo's side with the output's aspect ratio, rescaled to the output size
        # (up to about 2x up for the largest outputs, like a phone photo resized for the web).
        pw, ph = photo.size
        fraction = rng.uniform(0.45, 1.0)
        cw = min(pw, int(pw * fraction))
        ch = int(cw * height / width)
        if ch > ph:
            ch = ph
            cw = int(ch * width / height)
        x, y = rng.randrange(pw - cw + 1), rng.randrange(ph - ch + 1)
        image = photo.crop((x, y, x + cw, y + ch)).resize((width, height), Image.LANCZOS)
    else:
        image = procedural(rng, width, height)
    image = ImageEnhance.Color(image).enhance(rng.uniform(0.7, 1.3))
    image = ImageEnhance.Brightness(image).enhance(rng.uniform(0.85, 1.15))
    if width > 1024 and rng.random() < 0.5:
        image = image.filter(ImageFilter.UnsharpMask(radius=2, percent=60, threshold=2))
    return image


def add_grain(rng, image):
    """Film grain: what makes an upscaled crop compress like a real photo of that size."""
    nprng = np.random.default_rng(rng.randrange(1 << 30))
    grain = nprng.normal(0, rng.uniform(0.6, 1.6), (image.height, image.width, 1)).astype(np.float32)
    pixels = np.asarray(image, np.float32) + grain
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("output")
    parser.add_argument("--fixtures")
    parser.add_argument("--count", type=int, default=300)
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    rng = random.Random(20240601)
    photos = source_photos(args.fixtures)
    names = []
    for index in range(args.count):
        longest = rng.choice([640, 640, 720, 800, 800, 960, 1024, 1080, 1200, 1280, 1600, 2048])
        aw, ah = rng.choice(ASPECTS)
        width, height = (longest, longest * ah // aw) if aw >= ah else (longest * aw // ah, longest)
        image = make_image(rng, photos, width, height)
        kind = rng.random()
        if kind < 0.08:
            # PNG: screenshots and graphics on the web are smaller and flatter than photos (no grain, fewer colours).
            scale = rng.choice([480, 560, 640]) / max(width, height)
            png = image.resize((round(width * scale), round(height * scale)), Image.LANCZOS).quantize(64).convert("RGB")
            name = "img-%03d.png" % index
            png.save(os.path.join(args.output, name), optimize=False, compress_level=6)
        else:
            image = add_grain(rng, image)
            progressive = kind < 0.45
            quality = rng.choice([75, 78, 80, 82, 85, 90])
            subsampling = 2 if rng.random() < 0.85 else 0  # 4:2:0 mostly, some 4:4:4
            name = "img-%03d.jpg" % index
            buffer = io.BytesIO()
            image.save(buffer, "JPEG", quality=quality, subsampling=subsampling, progressive=progressive,
                       optimize=progressive or rng.random() < 0.5)
            with open(os.path.join(args.output, name), "wb") as f:
                f.write(buffer.getvalue())
        names.append(name)
    with open(os.path.join(args.output, "list.txt"), "w") as f:
        f.write("\n".join(names) + "\n")


if __name__ == "__main__":
    main()
