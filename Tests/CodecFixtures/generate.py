#!/usr/bin/env python3
"""Writes the small TIFF, BMP, TGA, ICO and APNG test files under Tests/CodecFixtures, each with a
reference PNG of what it shows (decoded by Pillow, or known by construction), so the codec tests
compare the project's decoders against an independent reader.

    python3 Tests/CodecFixtures/generate.py        # needs Pillow (pip install pillow) and, for the
                                                   # tiled TIFFs, tiffcp (apt install libtiff-tools)

Files are written by Pillow where it can write the variant, by libtiff's tiffcp for tiles, and by the
small writers below for what neither writes (16-bit RGB TIFF, 4-bit / RLE / bit-field / OS/2 BMP,
16-bit and right-to-left TGA, icons with 8-bit AND-masked entries). The output is deterministic.
Reference PNGs are RGBA (straight alpha); an animation's reference stacks its composited frames
vertically.
"""
import io
import os
import struct
import subprocess
import tempfile
import zlib

from PIL import Image

ROOT = os.path.dirname(os.path.abspath(__file__))
W, H = 21, 13  # odd sizes: rows are padded in every format, and rows are not 64-byte multiples


def pattern(mode="RGBA", width=W, height=H, shift=0, band=True):
    """A gradient with hard edges and, in RGBA, a transparent corner and (with `band`) a
    half-transparent row."""
    im = Image.new("RGBA", (width, height))
    px = im.load()
    for y in range(height):
        for x in range(width):
            r = (x * 255 // max(width - 1, 1) + shift) % 256
            g = (y * 255 // max(height - 1, 1) + (60 if (x // 4 + y // 4) % 2 == 0 else 0)) % 256
            b = (128 + shift * 3) % 256
            a = 255
            if x + y < 4:
                a = 0
            elif band and y == height // 2:
                a = 128
            px[x, y] = (r, g, b, a)
    return im if mode == "RGBA" else im.convert(mode)


def write(path, data):
    full = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as f:
        f.write(data)


def reference(path, image):
    """The reference PNG next to `path`: `path` + `.png` (RGBA)."""
    b = io.BytesIO()
    image.convert("RGBA").save(b, "PNG", optimize=True)
    write(path + ".png", b.getvalue())


def save(path, image, fmt, **params):
    b = io.BytesIO()
    image.save(b, fmt, **params)
    write(path, b.getvalue())
    reference(path, Image.open(io.BytesIO(b.getvalue())))
    return b.getvalue()


# MARK: - TIFF

def tiff():
    rgb, rgba = pattern("RGB"), pattern()
    save("tiff/rgb8-lzw-strips.tif", rgb, "TIFF", compression="tiff_lzw", strip_size=256)
    save("tiff/rgba8-deflate.tif", rgba, "TIFF", compression="tiff_adobe_deflate")
    save("tiff/gray8-packbits.tif", pattern("L"), "TIFF", compression="packbits")
    # 16-bit gray: sample v * 257, so the 8-bit reference is the source itself (Pillow clips I;16 to 8 bits).
    save("tiff/gray16.tif", pattern("L").point(lambda v: v * 257, "I").convert("I;16"), "TIFF")
    reference("tiff/gray16.tif", pattern("L"))
    save("tiff/palette8.tif", rgb.quantize(16), "TIFF", compression="tiff_lzw")
    save("tiff/bilevel-group4.tif", pattern("L").point(lambda v: 255 if v > 128 else 0, "1"), "TIFF", compression="group4")
    cmyk = Image.new("CMYK", (W, H))
    px = cmyk.load()
    for y in range(H):
        for x in range(W):
            px[x, y] = (x * 12, y * 19, (x * y) % 256, 40 if x < W // 2 else 0)
    data = save("tiff/cmyk8.tif", cmyk, "TIFF", compression="tiff_lzw")
    # libtiff converts CMYK with r = (255 - k) * (255 - c) / 255; Pillow subtracts. Keep libtiff's as the reference.
    ref = Image.new("RGBA", (W, H))
    rp = ref.load()
    for y in range(H):
        for x in range(W):
            c, m, ye, k = px[x, y]
            rp[x, y] = ((255 - k) * (255 - c) // 255, (255 - k) * (255 - m) // 255, (255 - k) * (255 - ye) // 255, 255)
    reference("tiff/cmyk8.tif", ref)
    save("tiff/jpeg-ycbcr.tif", pattern("RGB", 32, 16), "TIFF", compression="jpeg", quality=95)
    save("tiff/bigtiff.tif", rgb, "TIFF", big_tiff=True)
    for orientation in (2, 3, 5, 6, 8):
        b = io.BytesIO()
        rgb.save(b, "TIFF", compression="tiff_lzw", tiffinfo={274: orientation})
        write(f"tiff/orientation{orientation}.tif", b.getvalue())
        # The reference is upright: the stored pixels turned as the tag says.
        turn = {2: [Image.Transpose.FLIP_LEFT_RIGHT], 3: [Image.Transpose.ROTATE_180], 5: [Image.Transpose.TRANSPOSE],
                6: [Image.Transpose.ROTATE_270], 8: [Image.Transpose.ROTATE_90]}[orientation]
        upright = rgb
        for t in turn:
            upright = upright.transpose(t)
        reference(f"tiff/orientation{orientation}.tif", upright)
    # Two pages: the first is the image.
    b = io.BytesIO()
    rgb.save(b, "TIFF", save_all=True, append_images=[pattern("RGB", shift=90)], compression="tiff_lzw")
    write("tiff/multipage.tif", b.getvalue())
    reference("tiff/multipage.tif", rgb)
    # 16-bit RGB, big-endian, uncompressed, in strips: written by hand (Pillow has no 16-bit RGB mode).
    write("tiff/rgb16-bigendian.tif", tiff16(rgb))
    reference("tiff/rgb16-bigendian.tif", rgb)
    # Tiles, through libtiff's own tool.
    for name, source in (("rgb8-tiled", "tiff/rgb8-lzw-strips.tif"), ("rgba8-tiled", "tiff/rgba8-deflate.tif")):
        tiled(source, f"tiff/{name}.tif")


def tiff16(image):
    """A big-endian 16-bit RGB TIFF, uncompressed, directory first, strips of 2 rows listed in
    out-of-line tables: sample v becomes v * 257 (the reference's 8-bit value exactly)."""
    width, height = image.size
    rows_per_strip = 2
    row_bytes = width * 6
    strips = [(y, min(rows_per_strip, height - y)) for y in range(0, height, rows_per_strip)]
    entry_count = 10
    ifd_offset = 8 + 6                                  # after the header and BitsPerSample's values
    tables = ifd_offset + 2 + 12 * entry_count + 4      # StripOffsets, then StripByteCounts
    data_offset = tables + 8 * len(strips)
    offsets, counts, position = [], [], data_offset
    for _, rows in strips:
        offsets.append(position)
        counts.append(rows * row_bytes)
        position += rows * row_bytes
    entries = [(256, 3, 1, width), (257, 3, 1, height), (258, 3, 3, 8), (259, 3, 1, 1), (262, 3, 1, 2),
               (273, 4, len(strips), tables), (277, 3, 1, 3), (278, 3, 1, rows_per_strip),
               (279, 4, len(strips), tables + 4 * len(strips)), (284, 3, 1, 1)]
    assert len(entries) == entry_count
    out = b"MM\x00\x2a" + struct.pack(">I", ifd_offset) + struct.pack(">3H", 16, 16, 16)
    out += struct.pack(">H", len(entries))
    for tag, kind, count, value in entries:
        if kind == 3 and count == 1:
            out += struct.pack(">HHIHH", tag, kind, count, value, 0)
        else:
            out += struct.pack(">HHII", tag, kind, count, value)
    out += struct.pack(">I", 0)
    out += struct.pack(f">{len(strips)}I", *offsets) + struct.pack(f">{len(strips)}I", *counts)
    assert len(out) == data_offset
    pixels = b"".join(struct.pack(">3H", *(c * 257 for c in image.getpixel((x, y)))) for y in range(height) for x in range(width))
    return out + pixels


def tiled(source, target):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "tiled.tif")
        subprocess.run(["tiffcp", "-t", "-w", "16", "-l", "16", "-c", "lzw", os.path.join(ROOT, source), out], check=True)
        with open(out, "rb") as f:
            data = f.read()
    write(target, data)
    reference(target, Image.open(io.BytesIO(data)))


# MARK: - BMP

def bmp_file(dib_header, table, rows_blob, pixel_offset=None):
    offset = 14 + len(dib_header) + len(table) if pixel_offset is None else pixel_offset
    size = offset + len(rows_blob)
    return b"BM" + struct.pack("<IHHI", size, 0, 0, offset) + dib_header + table + rows_blob


def info_header(width, height, bits, compression=0, image_size=0, colors=0, size=40, masks=None):
    h = struct.pack("<IiiHHIIiiII", size, width, height, 1, bits, compression, image_size, 2835, 2835, colors, 0)
    if size >= 52:
        h += struct.pack("<4I", *(masks or (0, 0, 0, 0)))[: (16 if size >= 56 else 12)]
    if size > len(h):
        h += (b"BGRs" if size >= 108 else b"") + b"\x00" * (size - len(h) - (4 if size >= 108 else 0))
    return h


def padded(row):
    return row + b"\x00" * ((4 - len(row) % 4) % 4)


def bmp():
    rgb, rgba = pattern("RGB"), pattern()
    save("bmp/rgb24.bmp", rgb, "BMP")
    save("bmp/gray8.bmp", pattern("L"), "BMP")
    save("bmp/palette8.bmp", rgb.quantize(64), "BMP")
    save("bmp/bilevel1.bmp", pattern("L").point(lambda v: 255 if v > 128 else 0, "1"), "BMP")
    # 32-bit BI_RGB from Pillow: the fourth byte is not alpha (Pillow and this project read it opaque).
    save("bmp/rgbx32.bmp", rgba, "BMP")
    quant = rgb.quantize(16)
    pal = quant.getpalette()[: 16 * 3]
    table = b"".join(bytes((pal[i * 3 + 2], pal[i * 3 + 1], pal[i * 3], 0)) for i in range(16))
    idx = quant.load()
    # 4-bit indexed, bottom-up.
    rows = b"".join(padded(bytes((idx[x, y] << 4) | (idx[x + 1, y] if x + 1 < W else 0) for x in range(0, W, 2)))
                    for y in reversed(range(H)))
    write("bmp/palette4.bmp", bmp_file(info_header(W, H, 4, colors=16), table, rows))
    reference("bmp/palette4.bmp", quant)
    # RLE8: each row as runs of equal indices and absolute runs, rows ended by end-of-line.
    quant8 = rgb.quantize(64)
    pal8 = quant8.getpalette()[: 64 * 3]
    table8 = b"".join(bytes((pal8[i * 3 + 2], pal8[i * 3 + 1], pal8[i * 3], 0)) for i in range(64))
    write("bmp/rle8.bmp", bmp_file(info_header(W, H, 8, compression=1, colors=64), table8, rle(quant8, 8)))
    reference("bmp/rle8.bmp", quant8)
    write("bmp/rle4.bmp", bmp_file(info_header(W, H, 4, compression=2, colors=16), table, rle(quant, 4)))
    reference("bmp/rle4.bmp", quant)
    # Top-down 24-bit.
    rows = b"".join(padded(b"".join(bytes(rgb.getpixel((x, y))[::-1]) for x in range(W))) for y in range(H))
    write("bmp/topdown24.bmp", bmp_file(info_header(W, -H, 24), b"", rows))
    reference("bmp/topdown24.bmp", rgb)
    # 16-bit 5-6-5 bit fields (BITMAPV2-style masks after a 40-byte header).
    def rgb565(p):
        return ((p[0] >> 3) << 11) | ((p[1] >> 2) << 5) | (p[2] >> 3)
    rows = b"".join(padded(b"".join(struct.pack("<H", rgb565(rgb.getpixel((x, y)))) for x in range(W))) for y in reversed(range(H)))
    write("bmp/bitfields565.bmp", bmp_file(info_header(W, H, 16, compression=3), struct.pack("<3I", 0xF800, 0x07E0, 0x001F), rows))
    reference("bmp/bitfields565.bmp", Image.open(os.path.join(ROOT, "bmp/bitfields565.bmp")))
    # 32-bit BGRA with a V4 header whose masks name alpha (what this project writes).
    rows = b"".join(b"".join(bytes((p[2], p[1], p[0], p[3])) for p in (rgba.getpixel((x, y)) for x in range(W))) for y in reversed(range(H)))
    write("bmp/bgra32-v4.bmp", bmp_file(info_header(W, H, 32, compression=3, size=108,
                                                    masks=(0xFF0000, 0xFF00, 0xFF, 0xFF000000)), b"", rows))
    reference("bmp/bgra32-v4.bmp", rgba)
    # V5 header, 24-bit.
    rows = b"".join(padded(b"".join(bytes(rgb.getpixel((x, y))[::-1]) for x in range(W))) for y in reversed(range(H)))
    write("bmp/rgb24-v5.bmp", bmp_file(info_header(W, H, 24, size=124), b"", rows))
    reference("bmp/rgb24-v5.bmp", rgb)
    # OS/2 1.x core header, 24-bit.
    core = struct.pack("<IHHHH", 12, W, H, 1, 24)
    write("bmp/os2-core24.bmp", bmp_file(core, b"", rows))
    reference("bmp/os2-core24.bmp", rgb)


def rle(indexed, bits):
    """RLE8 / RLE4 of an indexed image, bottom-up, with encoded and absolute runs and an end-of-bitmap."""
    px = indexed.load()
    width, height = indexed.size
    out = bytearray()
    for y in reversed(range(height)):
        row = [px[x, y] for x in range(width)]
        x = 0
        while x < width:
            run = 1
            while x + run < width and run < 255 and row[x + run] == row[x]:
                run += 1
            if run >= 3 or width - x < 3:
                value = row[x] if bits == 8 else (row[x] << 4) | row[x]
                out += bytes((run, value))
                x += run
                continue
            count = 3
            while x + count < width and count < 60 and not (x + count + 2 < width and row[x + count] == row[x + count + 1] == row[x + count + 2]):
                count += 1
            out += bytes((0, count))
            chunk = row[x: x + count]
            if bits == 8:
                data = bytes(chunk)
            else:
                data = bytes((chunk[i] << 4) | (chunk[i + 1] if i + 1 < count else 0) for i in range(0, count, 2))
            out += data + (b"\x00" if len(data) % 2 else b"")
            x += count
        out += b"\x00\x00"  # end of line
    out += b"\x00\x01"  # end of bitmap
    return bytes(out)


# MARK: - TGA

def tga():
    rgb, rgba = pattern("RGB"), pattern()
    save("tga/rgb24.tga", rgb, "TGA")
    save("tga/rgba32-rle-topleft.tga", rgba, "TGA", compression="tga_rle", orientation=1)
    save("tga/gray8.tga", pattern("L"), "TGA")
    save("tga/gray8-rle.tga", pattern("L"), "TGA", compression="tga_rle")
    save("tga/palette8.tga", rgb.quantize(32), "TGA")
    save("tga/gray-alpha16.tga", pattern("LA"), "TGA")
    # 16-bit A1R5G5B5 with one alpha bit; right-to-left, top-to-bottom (descriptor bits 4 and 5).
    def argb1555(p):
        return (0x8000 if p[3] >= 128 else 0) | ((p[0] >> 3) << 10) | ((p[1] >> 3) << 5) | (p[2] >> 3)
    header = struct.pack("<BBBHHBHHHHBB", 0, 0, 2, 0, 0, 0, 0, 0, W, H, 16, 0x01 | 0x10 | 0x20)
    body = b"".join(struct.pack("<H", argb1555(rgba.getpixel((x, y)))) for y in range(H) for x in reversed(range(W)))
    write("tga/argb1555-righttoleft.tga", header + body + b"\x00" * 8 + b"TRUEVISION-XFILE.\x00")
    ref = Image.new("RGBA", (W, H))
    for y in range(H):
        for x in range(W):
            p = rgba.getpixel((x, y))
            def five(c):
                v = c >> 3
                return (v << 3) | (v >> 2)
            ref.putpixel((x, y), (five(p[0]), five(p[1]), five(p[2]), 255 if p[3] >= 128 else 0))
    reference("tga/argb1555-righttoleft.tga", ref)


# MARK: - ICO

def ico():
    # Each size is a distinct solid colour (with a transparent corner), so a test sees which entry was picked.
    colours = {8: (200, 200, 30), 16: (220, 30, 30), 24: (30, 30, 220), 32: (30, 200, 30)}

    def tile(size):
        im = Image.new("RGBA", (size, size), colours[size] + (255,))
        for y in range(size // 4):
            for x in range(size // 4 - y):
                im.putpixel((x, y), (0, 0, 0, 0))
        return im

    for fmt in ("png", "bmp"):
        images = [tile(s) for s in (32, 8, 24, 16)]
        b = io.BytesIO()
        images[0].save(b, "ICO", sizes=[(s, s) for s in (32, 8, 24, 16)], append_images=images[1:], bitmap_format=fmt)
        write(f"ico/{fmt}-entries.ico", b.getvalue())
        for size in (8, 16, 24, 32):
            reference(f"ico/{fmt}-entries.ico.{size}", tile(size))
    # An old-style icon: 8-bit indexed DIB entries with an AND mask for transparency, 16 and 32 pixels.
    entries = []
    for size in (16, 32):
        im = tile(size)
        palette = [(0, 0, 0), colours[size]] + [(0, 0, 0)] * 254
        table = b"".join(bytes((c[2], c[1], c[0], 0)) for c in palette)
        xor = b"".join(padded(bytes(0 if im.getpixel((x, y))[3] == 0 else 1 for x in range(size))) for y in reversed(range(size)))
        mask = b""
        for y in reversed(range(size)):
            bits = 0
            row = bytearray()
            for x in range(size):
                bits = (bits << 1) | (1 if im.getpixel((x, y))[3] == 0 else 0)
                if x % 8 == 7:
                    row.append(bits)
                    bits = 0
            mask += padded(bytes(row))
        dib = info_header(size, size * 2, 8, colors=256)
        entries.append((size, dib + table + xor + mask))
    directory = struct.pack("<HHH", 0, 1, len(entries))
    offset = 6 + 16 * len(entries)
    blobs = b""
    for size, blob in entries:
        directory += struct.pack("<BBBBHHII", size, size, 0, 0, 1, 8, len(blob), offset + len(blobs))
        blobs += blob
    write("ico/indexed-andmask.ico", directory + blobs)
    for size in (16, 32):
        reference(f"ico/indexed-andmask.ico.{size}", tile(size))


# MARK: - APNG

def frame(shift, size=(W, H), box=None):
    # Alpha 0 or 255 only: Pillow composites APNG's "over" as a paste through the frame's alpha, which is
    # only exact for those two values (the codec tests check partial alpha against the formula).
    im = pattern(shift=shift, width=size[0], height=size[1], band=False)
    if box:
        clear = Image.new("RGBA", size, (0, 0, 0, 0))
        clear.paste(im.crop(box), box[:2])
        im = clear
    return im


def film(path, frames):
    strip = Image.new("RGBA", (frames[0].width, frames[0].height * len(frames)))
    for i, f in enumerate(frames):
        strip.paste(f.convert("RGBA"), (0, i * f.height))
    reference(path, strip)


def composited(data):
    im = Image.open(io.BytesIO(data))
    frames = []
    for i in range(im.n_frames):
        im.seek(i)
        frames.append(im.convert("RGBA").copy())
    return frames


def apng():
    # Every dispose op (0 none, 1 background, 2 previous) and blend op (0 source, 1 over); Pillow crops
    # each frame to what changed, so frames also have offsets.
    frames = [frame(0), frame(40, box=(3, 2, 15, 9)), frame(80, box=(6, 4, 19, 12)), frame(120), frame(160, box=(0, 0, 10, 6))]
    b = io.BytesIO()
    frames[0].save(b, "PNG", save_all=True, append_images=frames[1:], duration=[100, 200, 300, 400, 500], loop=3,
                   disposal=[0, 1, 2, 0, 1], blend=[0, 1, 1, 0, 1])
    write("apng/dispose-blend.png", b.getvalue())
    film("apng/dispose-blend.png", composited(b.getvalue()))
    # Delays TIP replaces (0 and 10 ms become 0.1 s), kept ones, and infinite looping.
    frames = [frame(s) for s in (0, 50, 100, 150, 200)]
    b = io.BytesIO()
    frames[0].save(b, "PNG", save_all=True, append_images=frames[1:], duration=[0, 10, 20, 1000, 50], loop=0)
    write("apng/delays.png", b.getvalue())
    film("apng/delays.png", composited(b.getvalue()))
    # A default image that is not part of the animation.
    b = io.BytesIO()
    frames[0].save(b, "PNG", save_all=True, append_images=frames[1:3], default_image=True, duration=[100, 100], loop=1)
    write("apng/default-image-excluded.png", b.getvalue())
    film("apng/default-image-excluded.png", composited(b.getvalue()))
    # Opaque RGB frames (no alpha channel), dispose to background between them.
    rgb = [frame(s).convert("RGB") for s in (0, 70, 140)]
    b = io.BytesIO()
    rgb[0].save(b, "PNG", save_all=True, append_images=rgb[1:], duration=[100, 100, 100], disposal=1, loop=2)
    write("apng/rgb-background.png", b.getvalue())
    film("apng/rgb-background.png", composited(b.getvalue()))


if __name__ == "__main__":
    tiff()
    bmp()
    tga()
    ico()
    apng()
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(ROOT) for f in fs if not f.endswith(".py"))
    print(f"generate.py: wrote fixtures under {ROOT} ({total} bytes)")
