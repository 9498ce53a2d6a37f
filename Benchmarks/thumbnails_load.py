#!/usr/bin/env python3
"""Helpers of Benchmarks/thumbnails-load: the corpus, the URL lists, wrk's figures and the PSNR comparison.

  thumbnails_load.py corpus DIR               writes the source JPEGs (from the shared fixtures, Pillow)
  thumbnails_load.py paths DIR KIND SET       prints one request path per (image, size): KIND service or filter;
                                              SET standard (24 images x the 12 SIZES) or cold (24 images x 120
                                              other sizes, shuffled: more than a cold run gets through)
  thumbnails_load.py wrk FILE [LIST]          prints "requests_per_second p99_ms non2xx" from wrk --latency
                                              output; fails when the run got through LIST (a repeat is not cold)
  thumbnails_load.py psnr DIR SERVICE FILTER  fetches every thumbnail from both and prints the PSNR against Pillow's
                                              Lanczos resize of the original, same geometry
"""
import io
import math
import os
import random
import re
import sys
import urllib.parse
import urllib.request

from PIL import Image, ImageChops

# (w, h, fit): nginx image_filter's `crop` is TIP's crop-to-fill, its `resize` is fit (never enlarging).
SIZES = [(96, 96, "crop"), (150, 150, "crop"), (200, 200, "crop"), (240, 160, "crop"), (320, 320, "crop"),
         (400, 300, "crop"), (480, 270, "crop"), (640, 640, "crop"), (160, 160, "fit"), (300, 300, "fit"),
         (500, 500, "fit"), (800, 800, "fit")]
IMAGE_COUNT = 24


def cold_sizes():
    """120 sizes none of which is in SIZES (64 to 720 pixels a side, 2 in 3 crops), the same every run."""
    generator = random.Random(20)
    sizes = []
    while len(sizes) < 120:
        size = (generator.randrange(64, 721), generator.randrange(64, 721),
                "crop" if generator.random() < 2 / 3 else "fit")
        if size not in SIZES and size not in sizes:
            sizes.append(size)
    return sizes


def fixtures():
    env = os.environ.get("TIP_FIXTURES")
    if env and os.path.isdir(env):
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    while here != "/":
        candidate = os.path.join(here, "shared", "fixtures")
        if os.path.isdir(candidate):
            return candidate
        here = os.path.dirname(here)
    sys.exit("thumbnails_load: shared/fixtures not found (set TIP_FIXTURES)")


def corpus(directory):
    """24 photographs of 1600x1067 (or turned, 1067x1600): crops of carnival.jpg, flipped and with their
    channels permuted, saved as baseline JPEG at quality 90 without metadata."""
    os.makedirs(directory, exist_ok=True)
    source = Image.open(os.path.join(fixtures(), "carnival.jpg")).convert("RGB")
    permutations = [(0, 1, 2), (2, 1, 0), (1, 0, 2), (0, 2, 1)]
    for index in range(IMAGE_COUNT):
        width, height = (1600, 1067) if index % 4 != 3 else (1067, 1600)
        crop_w, crop_h = (width, height) if width < source.width and height < source.height else (820, 1230)
        x = (index * 37) % max(1, source.width - crop_w)
        y = (index * 23) % max(1, source.height - crop_h)
        image = source.crop((x, y, x + crop_w, y + crop_h))
        if image.size != (width, height):
            image = image.resize((width, height), Image.LANCZOS)
        if index % 2:
            image = image.transpose(Image.FLIP_LEFT_RIGHT)
        bands = image.split()
        image = Image.merge("RGB", [bands[i] for i in permutations[index % len(permutations)]])
        image.save(os.path.join(directory, f"photo{index:02}.jpg"), quality=90)


def names(directory):
    return sorted(n for n in os.listdir(directory) if n.endswith(".jpg"))


def pairs(directory, which="standard"):
    if which == "standard":
        return [(name, size) for name in names(directory) for size in SIZES]
    everything = [(name, size) for name in names(directory) for size in cold_sizes()]
    random.Random(7).shuffle(everything)
    return everything


def paths(directory, kind, origin="", which="standard"):
    out = []
    for name, (w, h, fit) in pairs(directory, which):
        if kind == "service":
            url = origin + "/" + name
            out.append(f"/thumbnail?url={urllib.parse.quote(url, safe='')}&w={w}&h={h}&fit={fit}&format=jpeg")
        else:
            out.append(f"/{'crop' if fit == 'crop' else 'resize'}/{w}/{h}/{name}")
    return out


def wrk_figures(path, limit=None):
    text = open(path).read()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    match = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[match.group(2)]
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    if limit is not None:
        count = int(re.search(r"(\d+) requests in", text).group(1))
        if count >= limit:
            sys.exit(f"thumbnails_load: {path}: {count} requests got through the {limit} cold thumbnails; "
                     "lengthen the cold list or shorten --seconds")
    return rps, float(match.group(1)) * scale, int(non2xx.group(1)) if non2xx else 0


def reference(original, size, fit):
    """Pillow's Lanczos resize of `original` to `size` (the thumbnail's own dimensions): the centred region of
    the thumbnail's aspect ratio for crop, the whole image for fit."""
    w, h = size
    if fit == "crop":
        scale = max(w / original.width, h / original.height)
        region_w, region_h = min(original.width, w / scale), min(original.height, h / scale)
        left, top = max(0.0, (original.width - region_w) / 2), max(0.0, (original.height - region_h) / 2)
        return original.resize(size, Image.LANCZOS, box=(left, top, left + region_w, top + region_h))
    return original.resize(size, Image.LANCZOS)


def psnr(a, b):
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    histogram = diff.histogram()
    squares = sum(count * (value % 256) ** 2 for value, count in enumerate(histogram))
    mse = squares / (a.width * a.height * 3)
    return float("inf") if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def compare(directory, service_base, filter_base):
    service_paths = paths(directory, "service", origin=os.environ["TIP_ORIGIN"])
    filter_paths = paths(directory, "filter")
    totals = {"service": [], "filter": []}
    mismatched = 0
    index = 0
    for name in names(directory):
        original = Image.open(os.path.join(directory, name)).convert("RGB")
        for w, h, fit in SIZES:
            outputs = {}
            for kind, base, path in (("service", service_base, service_paths[index]),
                                     ("filter", filter_base, filter_paths[index])):
                with urllib.request.urlopen(base + path) as response:
                    outputs[kind] = Image.open(io.BytesIO(response.read())).convert("RGB")
            if outputs["service"].size != outputs["filter"].size:
                mismatched += 1
            for kind, image in outputs.items():
                totals[kind].append(psnr(image, reference(original, image.size, fit)))
            index += 1
    for kind in ("service", "filter"):
        values = totals[kind]
        print(f"{kind} {sum(values) / len(values):.2f} {min(values):.2f} {len(values)}")
    print(f"size_mismatches {mismatched}")


def main():
    command = sys.argv[1]
    if command == "corpus":
        corpus(sys.argv[2])
    elif command == "paths":
        origin = os.environ.get("TIP_ORIGIN", "")
        print("\n".join(paths(sys.argv[2], sys.argv[3], origin=origin, which=sys.argv[4])))
    elif command == "wrk":
        limit = sum(1 for _ in open(sys.argv[3])) if len(sys.argv) > 3 else None
        print("%.1f %.2f %d" % wrk_figures(sys.argv[2], limit))
    elif command == "psnr":
        compare(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
