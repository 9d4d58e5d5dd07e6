"""png_stats.py FILE.png: width, height, share of pixels that are not (near) white, and how
many distinct colors, for the HTML test's "is the screenshot blank?" check. Decodes 8-bit RGB
and RGBA PNGs with the standard library only."""
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def decode(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6), f"unsupported PNG (depth {depth}, type {ctype})"
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + (0, a, b, (a + b) // 2, paeth(a, b, c))[f]) & 0xFF
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    w, h, bpp, rows = decode(sys.argv[1])
    ink, colors = 0, set()
    for line in rows[::2]:
        for x in range(0, w * bpp, bpp * 2):
            r, g, b = line[x], line[x + 1], line[x + 2]
            colors.add((r >> 4, g >> 4, b >> 4))
            ink += (r + g + b) < 3 * 235
    total = len(rows[::2]) * len(range(0, w * bpp, bpp * 2))
    print(f"{w} {h} {ink / total:.4f} {len(colors)}")


if __name__ == "__main__":
    main()
