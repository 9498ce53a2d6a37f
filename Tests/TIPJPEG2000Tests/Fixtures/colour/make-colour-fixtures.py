#!/usr/bin/env python3
"""Makes the JP2 files of JPEG2000ColourTests (run from this directory; needs opj_compress and
opj_decompress from libopenjp2-tools): lossless codestreams from opj_compress, wrapped in JP2 boxes
written here, so the colour (colr), palette (pclr, cmap) and channel definition (cdef) boxes are
exactly the ones the tests need. The .png files are opj_decompress's RGB output for the same JP2s
(sycc420-half.png with -r 1, one resolution level discarded)."""
import os, struct, subprocess, tempfile

W, H = 16, 12  # even: opj_compress reads w * h / (dx * dy) samples of a subsampled raw plane


def box(kind, payload):
    return struct.pack('>I4s', 8 + len(payload), kind) + payload


def codestream(planes, subsampling):
    """A lossless J2K of 8-bit unsigned planes (no colour transform)."""
    with tempfile.TemporaryDirectory() as tmp:
        raw, out = os.path.join(tmp, 'in.raw'), os.path.join(tmp, 'out.j2k')
        with open(raw, 'wb') as f:
            for plane in planes:
                f.write(bytes(plane))
        sampling = ':'.join('%dx%d' % s for s in subsampling)
        subprocess.run(['opj_compress', '-i', raw, '-o', out, '-F', '%d,%d,%d,8,u@%s' % (W, H, len(planes), sampling),
                        '-mct', '0', '-n', '2'], check=True, stdout=subprocess.DEVNULL)
        data = open(out, 'rb').read()
    return data


def jp2(stream, components, enumcs, extra=b''):
    ihdr = box(b'ihdr', struct.pack('>IIHBBBB', H, W, components, 7, 7, 0, 0))
    colr = box(b'colr', struct.pack('>BBBI', 1, 0, 0, enumcs))
    return (box(b'jP  ', b'\r\n\x87\n') + box(b'ftyp', b'jp2 \0\0\0\0jp2 ')
            + box(b'jp2h', ihdr + colr + extra) + box(b'jp2c', stream))


def plane(f, w=W, h=H):
    return [f(x, y) & 0xFF for y in range(h) for x in range(w)]


def write(name, data, reference=False):
    open(name, 'wb').write(data)
    if reference:
        subprocess.run(['opj_decompress', '-i', name, '-o', name[:-4] + '.png'], check=True,
                       stdout=subprocess.DEVNULL)


full = [(1, 1)] * 3
# sYCC, 4:2:0 and 4:4:4 (enumerated colour space 18), and the 4:4:4 one as e-sYCC (24).
y = plane(lambda x, y: 16 + x * 14 + y * 3)
cb = plane(lambda x, y: 40 + x * 25 + y * 4, W // 2, H // 2)
cr = plane(lambda x, y: 220 - x * 20 - y * 15, W // 2, H // 2)
write('sycc420.jp2', jp2(codestream([y, cb, cr], [(1, 1), (2, 2), (2, 2)]), 3, 18), True)
subprocess.run(['opj_decompress', '-i', 'sycc420.jp2', '-r', '1', '-o', 'sycc420-half.png'], check=True,
               stdout=subprocess.DEVNULL)  # one resolution level discarded: 8x6
cb444 = plane(lambda x, y: 30 + x * 13 + y * 5)
cr444 = plane(lambda x, y: 230 - x * 9 - y * 11)
stream444 = codestream([y, cb444, cr444], full)
write('sycc444.jp2', jp2(stream444, 3, 18), True)
write('esycc444.jp2', jp2(stream444, 3, 24), True)
# CMYK (12).
cmyk = [plane(lambda x, y: x * 17), plane(lambda x, y: y * 23), plane(lambda x, y: (x + y) * 9),
        plane(lambda x, y: (x * y * 3) % 200)]
write('cmyk.jp2', jp2(codestream(cmyk, [(1, 1)] * 4), 4, 12), True)
# RGBA whose cdef says the alpha is premultiplied (type 2): colour never exceeds alpha.
alpha = plane(lambda x, y: (x * 18 + y * 5) % 256)
rgb = [plane(lambda x, y, k=k: min((x * 31 + y * 7 + k * 80) % 256, (x * 18 + y * 5) % 256)) for k in range(3)]
cdef = box(b'cdef', struct.pack('>H', 4) + b''.join(struct.pack('>HHH', i, 0, i + 1) for i in range(3))
           + struct.pack('>HHH', 3, 2, 0))
write('premultiplied.jp2', jp2(codestream(rgb + [alpha], [(1, 1)] * 4), 4, 16, cdef))
# Palette: 8-bit indices, a 3-column palette (entry i = (i, 255 - i, 3i mod 256)), a 3-channel mapping.
indices = plane(lambda x, y: x * 11 + y * 17)
pclr = box(b'pclr', struct.pack('>HB', 256, 3) + bytes([7, 7, 7])
           + b''.join(bytes([i, 255 - i, (3 * i) % 256]) for i in range(256)))
cmap3 = box(b'cmap', b''.join(struct.pack('>HBB', 0, 1, column) for column in range(3)))
write('palette.jp2', jp2(codestream([indices], [(1, 1)]), 1, 16, pclr + cmap3))
# Three components, a one-column palette (entry i = 255 - i) and a one-channel mapping: one component
# after decoding, where the header shows three.
pclr1 = box(b'pclr', struct.pack('>HB', 256, 1) + bytes([7]) + bytes(255 - i for i in range(256)))
cmap1 = box(b'cmap', struct.pack('>HBB', 0, 1, 0))
write('palette-shrink.jp2', jp2(codestream([indices, cb444, cr444], full), 3, 16, pclr1 + cmap1))
