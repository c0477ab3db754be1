"""Writes data/000000039769.png, the image smolagents' tests open by that name (see NOTICE).

Why a made image: smolagents' file is a COCO photograph it keeps in its repository, not its sdist;
its tests only open it, resize it and compare it with itself, so any RGB image of that size serves.
Deterministic, so that rerunning this gives the committed file back.

    python scripts/conformance/support/make_image.py
"""

from pathlib import Path

from PIL import Image

WIDTH, HEIGHT = 640, 480


def main() -> None:
    image = Image.new("RGB", (WIDTH, HEIGHT))
    image.putdata(
        [
            (x * 255 // WIDTH, y * 255 // HEIGHT, (x + y) * 255 // (WIDTH + HEIGHT))
            for y in range(HEIGHT)
            for x in range(WIDTH)
        ]
    )
    image.save(Path(__file__).resolve().parent / "data" / "000000039769.png", optimize=True)


if __name__ == "__main__":
    main()
