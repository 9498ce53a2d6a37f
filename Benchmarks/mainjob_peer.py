#!/usr/bin/env python3
"""The main job's peers (PERFORMANCE.md, second wave), as a Linux user would write them: THREADS threads, each
with its own keep-alive `http.client` connection, take the next name of LIST, download it from BASE_URL and
make a thumbnail that fits 200x200 with Pillow (`draft` + `thumbnail`) or pyvips (`thumbnail_buffer`). Checks
every thumbnail's size and prints one line: `<engine> <images> <failures>`; exits 1 on any failure.

Usage: mainjob_peer.py pillow|pyvips BASE_URL LIST [--threads 8] [--size 200]
"""
import argparse
import http.client
import io
import sys
import threading
import urllib.parse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("engine", choices=["pillow", "pyvips"])
    parser.add_argument("base_url")
    parser.add_argument("list")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--size", type=int, default=200)
    args = parser.parse_args()
    size = args.size
    names = [line.strip() for line in open(args.list) if line.strip()]
    base = urllib.parse.urlsplit(args.base_url)
    prefix = base.path.rstrip("/") + "/"

    if args.engine == "pillow":
        from PIL import Image

        def thumbnail(data):
            image = Image.open(io.BytesIO(data))
            image.draft("RGB", (size, size))  # DCT scaling for JPEG; thumbnail() would ask for 2x the size
            image.thumbnail((size, size))
            image.load()  # thumbnail() leaves an image that draft() already brought to size unloaded
            return image.size
    else:
        import pyvips

        def thumbnail(data):
            image = pyvips.Image.thumbnail_buffer(data, size, height=size)
            image.write_to_memory()  # vips is lazy: make the pixels
            return image.width, image.height

    lock = threading.Lock()
    state = {"next": 0, "done": 0, "failures": []}

    def worker():
        connection = http.client.HTTPConnection(base.hostname, base.port, timeout=60)
        while True:
            with lock:
                index = state["next"]
                state["next"] += 1
            if index >= len(names):
                break
            try:
                connection.request("GET", prefix + names[index])
                response = connection.getresponse()
                data = response.read()
                if response.status != 200:
                    raise RuntimeError("HTTP %d" % response.status)
                width, height = thumbnail(data)
                if max(width, height) != size:
                    raise RuntimeError("thumbnail %dx%d" % (width, height))
                with lock:
                    state["done"] += 1
            except Exception as error:  # report every failure, keep going
                with lock:
                    state["failures"].append("%s: %s" % (names[index], error))
                connection.close()
                connection = http.client.HTTPConnection(base.hostname, base.port, timeout=60)
        connection.close()

    threads = [threading.Thread(target=worker) for _ in range(args.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for failure in state["failures"][:10]:
        print("failure:", failure, file=sys.stderr)
    print(args.engine, state["done"], len(state["failures"]))
    sys.exit(1 if state["failures"] else 0)


if __name__ == "__main__":
    main()
