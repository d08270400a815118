"""The dice reader: find every die in a photo, read its top face, say how sure it is.

`vision.reader.reader.read_dice(image, expected=None, tray=None) -> Reading` does the work
(see there); `vision.read_dice` is the same function, imported only when first used.
"""
