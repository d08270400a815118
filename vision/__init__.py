"""Reading dice from camera images and frame streams with OpenCV.

The reader knows nothing of games: it reports dice, values, positions and how sure it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Sequence

    import numpy as np

    from vision.reading import Reading


def read_dice(image: "np.ndarray", expected: int | None = None,
              tray: "Sequence[tuple[float, float]] | None" = None) -> "Reading":
    """Every die in a BGR image: top-face value, centre, size, angle, confidence, problems;
    with `tray` (a polygon in the image's pixels) only those on the tray.

    The reader (OpenCV's dnn and the networks) is imported on first use.
    """
    from vision.reader.reader import read_dice as read

    return read(image, expected, tray)
