"""The device's eyes: reading dice from camera images and following throws in the frame stream.

The reader knows nothing of games: it reports dice, values, positions and how sure it is.

- `read_dice(image, expected, tray)`: the one entry to the reader (`vision.reader`: the
  detector and classifier networks, their windows and model files).
- `reading`: what a reading is (dice, problems, how sure); `image_file`: photos from disk,
  refused safely when hostile; `tray`: reading only the tray.
- `tracker` (with `motion`, `dice_moves`, `tracker_events`): settled throws, held, thrown and
  turned dice, hands and objects, from timestamped frames.

Synthetic scenes and sessions, and the reader's evaluation, are the lab's (`lab/`); the
recorded-session format is `hardware.recording`.
"""

from vision.reader.reader import read_dice

__all__ = ["read_dice"]
