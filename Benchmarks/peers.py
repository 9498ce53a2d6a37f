#!/usr/bin/env python3
"""Times the peers a Linux user would pick instead of TIP (Pillow, pyvips) on the same files, in the
same run as the Swift benchmarks. Prints one JSON object: {name: {"median": ms, "min": ms, "max": ms}}."""
import argparse
import io
import json
import os
import statistics
import time


def measure(fn, iterations):
    fn()  # warm-up
    samples = []
    for _ in range(iterations):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=9)
    parser.add_argument("--thumbnail-jpeg", help="JPEG to shrink to fit 400x400")
    parser.add_argument("--png", help="PNG to decode fully")
    parser.add_argument("--webp", action="append", default=[], help="WebP to decode fully (repeatable); keys end in :<file name>")
    parser.add_argument("--webp-thumbnail", action="append", default=[], help="WebP to shrink to fit 400x400 (repeatable)")
    parser.add_argument("--load", action="append", default=[],
                        help="NAME=PATH: decode fully (repeatable); keys pillow_load:NAME, pyvips_load:NAME")
    parser.add_argument("--thumbnail", action="append", default=[],
                        help="NAME=PATH: shrink to fit 400x400 (repeatable); keys pillow_thumbnail:NAME, pyvips_thumbnail:NAME")
    parser.add_argument("--frames", action="append", default=[],
                        help="NAME=PATH: decode every frame of an animation (repeatable); key pillow_frames:NAME")
    args = parser.parse_args()
    results = {}

    try:
        from PIL import Image
    except ImportError:
        Image = None
    try:
        import pyvips
    except Exception:  # missing or without its native library
        pyvips = None

    if args.thumbnail_jpeg:
        data = open(args.thumbnail_jpeg, "rb").read()
        if Image:
            def pillow_thumb():
                im = Image.open(io.BytesIO(data))
                im.thumbnail((400, 400))  # uses draft() (DCT scaling) then a reducing resize
                im.load()
            results["pillow_thumbnail"] = measure(pillow_thumb, args.iterations)
        if pyvips:
            def vips_thumb():
                im = pyvips.Image.thumbnail_buffer(data, 400, height=400)
                im.write_to_memory()  # vips is lazy: force the pixels
            results["pyvips_thumbnail"] = measure(vips_thumb, args.iterations)

    if args.png:
        data = open(args.png, "rb").read()
        if Image:
            def pillow_png():
                im = Image.open(io.BytesIO(data))
                im.load()
            results["pillow_png_load"] = measure(pillow_png, args.iterations)
        if pyvips:
            def vips_png():
                im = pyvips.Image.new_from_buffer(data, "", access="sequential")
                im.write_to_memory()
            results["pyvips_png_load"] = measure(vips_png, args.iterations)

    for path in args.webp:
        data = open(path, "rb").read()
        name = os.path.basename(path)
        if Image:
            def pillow_webp(data=data):
                im = Image.open(io.BytesIO(data))
                im.load()
            try:
                results["pillow_webp_load:" + name] = measure(pillow_webp, args.iterations)
            except Exception:  # Pillow built without WebP
                pass
        if pyvips:
            def vips_webp(data=data):
                im = pyvips.Image.new_from_buffer(data, "", access="sequential")
                im.write_to_memory()
            results["pyvips_webp_load:" + name] = measure(vips_webp, args.iterations)

    for path in args.webp_thumbnail:
        data = open(path, "rb").read()
        name = os.path.basename(path)
        if pyvips:
            def vips_webp_thumb(data=data):
                im = pyvips.Image.thumbnail_buffer(data, 400, height=400)
                im.write_to_memory()
            results["pyvips_webp_thumbnail:" + name] = measure(vips_webp_thumb, args.iterations)
        if Image:
            def pillow_webp_thumb(data=data):
                im = Image.open(io.BytesIO(data))
                im.thumbnail((400, 400))
                im.load()
            try:
                results["pillow_webp_thumbnail:" + name] = measure(pillow_webp_thumb, args.iterations)
            except Exception:
                pass

    # The formats of the second codec wave (TIFF, BMP, TGA, ICO, APNG): a peer that cannot read one is
    # left out of that row.
    def named(values):
        for value in values:
            name, path = value.split("=", 1)
            yield name, open(path, "rb").read()

    def attempt(key, fn):
        try:
            results[key] = measure(fn, args.iterations)
        except Exception:  # the peer does not read this format
            pass

    for name, data in named(args.load):
        if Image:
            def pillow_load(data=data):
                im = Image.open(io.BytesIO(data))
                im.load()
            attempt("pillow_load:" + name, pillow_load)
        if pyvips:
            def vips_load(data=data):
                im = pyvips.Image.new_from_buffer(data, "", access="sequential")
                im.write_to_memory()
            attempt("pyvips_load:" + name, vips_load)

    for name, data in named(args.thumbnail):
        if Image:
            def pillow_thumb(data=data):
                im = Image.open(io.BytesIO(data))
                im.thumbnail((400, 400))
                im.load()
            attempt("pillow_thumbnail:" + name, pillow_thumb)
        if pyvips:
            def vips_thumb(data=data):
                im = pyvips.Image.thumbnail_buffer(data, 400, height=400)
                im.write_to_memory()
            attempt("pyvips_thumbnail:" + name, vips_thumb)

    for name, data in named(args.frames):
        if Image:
            def pillow_frames(data=data):
                im = Image.open(io.BytesIO(data))
                for index in range(getattr(im, "n_frames", 1)):
                    im.seek(index)
                    im.load()
            attempt("pillow_frames:" + name, pillow_frames)

    print(json.dumps(results))


if __name__ == "__main__":
    main()
