"""Reading dice from camera images and frame streams with OpenCV.

The reader knows nothing of games: it reports dice, values, positions and how sure it is.
"""
