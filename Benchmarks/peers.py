#!/usr/bin/env python3
"""Times the peers a Linux user would pick instead of TIP (Pillow, pyvips) on the same files, in the
same run as the Swift benchmarks. Prints one JSON object: {name: {"median": ms, "min": ms, "max": ms,
"cpu": ms}}, "cpu" being the median process CPU time (all threads) of one run."""
import argparse
import io
import json
import os
import statistics
import time


def measure(fn, iterations, cpu=None):
    """Wall-clock milliseconds of fn (median, min, max). With a cpu dict, the process CPU time of the
    same runs (all threads) is stored in it too."""
    fn()  # warm-up
    samples, cpu_samples = [], []
    for _ in range(iterations):
        start, cpu_start = time.perf_counter(), time.process_time()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
        cpu_samples.append((time.process_time() - cpu_start) * 1000)
    if cpu is not None:
        cpu.update({"median": statistics.median(cpu_samples), "min": min(cpu_samples), "max": max(cpu_samples)})
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples),
            "cpu": statistics.median(cpu_samples)}


def measure_into(results, key, fn, iterations):
    """Stores fn's wall-clock figures under key and its CPU figures under "cpu:" + key."""
    cpu = {}
    results[key] = measure(fn, iterations, cpu)
    results["cpu:" + key] = cpu


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=9)
    parser.add_argument("--thumbnail-jpeg", help="JPEG to shrink to fit 400x400")
    parser.add_argument("--png", help="PNG to decode fully")
    parser.add_argument("--webp", action="append", default=[], help="WebP to decode fully (repeatable); keys end in :<file name>")
    parser.add_argument("--webp-thumbnail", action="append", default=[], help="WebP to shrink to fit 400x400 (repeatable)")
    parser.add_argument("--load", action="append", default=[],
                        help="[NAME=]PATH: decode fully (JPEG 2000, HEIC, AVIF, TIFF, BMP, TGA, ICO; repeatable); "
                             "keys pillow_load:NAME, pyvips_load:NAME (NAME: the file name when not given)")
    parser.add_argument("--thumbnail", action="append", default=[],
                        help="[NAME=]PATH: shrink to fit 400x400 (repeatable); keys pillow_thumbnail:NAME, pyvips_thumbnail:NAME")
    parser.add_argument("--frames", action="append", default=[],
                        help="[NAME=]PATH: decode every frame of an animation (repeatable); key pillow_frames:NAME")
    parser.add_argument("--write-heic-with-thumbnail", nargs=3, metavar=("PNG", "OUT", "SIDE"),
                        help="write PNG as a HEIC (pillow-heif, quality 80) with an embedded thumbnail of SIDE pixels, then go on")
    parser.add_argument("--blur-raw", action="append", default=[],
                        help="KEY:PATH:WIDTH:HEIGHT:MODE raw 4-byte pixels (MODE RGBX opaque, RGBa premultiplied) to blur (repeatable)")
    parser.add_argument("--sigma", action="append", default=[], help="Gaussian blur sigma for every --blur-raw (repeatable)")
    parser.add_argument("--blur-out", help="directory for Pillow's blurred pixels (pillow-KEY-SIGMA.raw), for PSNR")
    parser.add_argument("--crop-thumbnail-jpeg", help="JPEG to shrink to a 200x200 centre-cropped thumbnail")
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
    try:  # HEIC for Pillow (its AVIF and JPEG 2000 support is built in)
        import pillow_heif
        pillow_heif.register_heif_opener()
    except Exception:
        pillow_heif = None

    if args.write_heic_with_thumbnail and Image and pillow_heif:
        source, out, side = args.write_heic_with_thumbnail
        Image.open(source).convert("RGB").save(out, quality=80, thumbnails=[int(side)])

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

    # Whole-file rows (JPEG 2000, HEIC, AVIF, TIFF, BMP, TGA, ICO, APNG): a peer that cannot read a
    # format is left out of that row.
    def named(values):
        for value in values:
            name, sep, path = value.partition("=")
            if not sep or "/" in name:  # a bare path: the row is named after the file
                name, path = os.path.basename(value), value
            yield name, open(path, "rb").read()

    def attempt(key, fn):
        try:
            measure_into(results, key, fn, args.iterations)
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
                im.thumbnail((400, 400))  # draft()/reduce() where the format has them, then a reducing resize
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

    for spec in args.blur_raw:
        key, path, width, height, mode = spec.split(":")
        width, height = int(width), int(height)
        raw = open(path, "rb").read()
        for sigma_text in args.sigma:
            sigma = float(sigma_text)
            name = "%s:%s" % (key, sigma_text)
            if Image:
                from PIL import ImageFilter
                # The same bytes: RGBX opaque (as Pillow stores RGB), or RGBa (Pillow's premultiplied mode).
                im = Image.frombytes("RGBX" if mode == "RGBX" else "RGBa", (width, height), raw)
                if mode == "RGBX":
                    im = im.convert("RGB")
                blur = ImageFilter.GaussianBlur(sigma)

                def pillow_blur(im=im, blur=blur):
                    im.filter(blur)
                results["pillow_blur:" + name] = measure(pillow_blur, args.iterations)
                if args.blur_out:
                    out = im.filter(blur)
                    out = out.convert("RGBX") if mode == "RGBX" else out
                    with open(os.path.join(args.blur_out, "pillow-%s-%s.raw" % (key, sigma_text)), "wb") as f:
                        f.write(out.tobytes())
            if pyvips:
                # The same pixels as an uncompressed image in memory: 3 bands when opaque, 4 with alpha.
                vim = pyvips.Image.new_from_memory(raw, width, height, 4, "uchar")
                if mode == "RGBX":
                    vim = vim.extract_band(0, n=3)
                vim = vim.copy_memory()

                def vips_blur(vim=vim, sigma=sigma):
                    vim.gaussblur(sigma).write_to_memory()
                results["pyvips_blur:" + name] = measure(vips_blur, args.iterations)

    if args.crop_thumbnail_jpeg:
        data = open(args.crop_thumbnail_jpeg, "rb").read()
        if pyvips:
            def vips_crop_thumb():
                im = pyvips.Image.thumbnail_buffer(data, 200, height=200, crop="centre")
                im.write_to_memory()
            results["pyvips_crop_thumbnail"] = measure(vips_crop_thumb, args.iterations)
        if Image:
            from PIL import ImageOps

            def pillow_crop_thumb():
                im = Image.open(io.BytesIO(data))
                im.draft("RGB", (200, 200))  # DCT scaling, still at least 200x200
                ImageOps.fit(im, (200, 200), method=Image.Resampling.LANCZOS).load()
            results["pillow_crop_thumbnail"] = measure(pillow_crop_thumb, args.iterations)

    print(json.dumps(results))


if __name__ == "__main__":
    main()
