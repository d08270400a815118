"""Synthetic camera sessions with ground truth, for the tracker's tests and benches and the demo.

`synth` renders a session (frames in the `hardware.recording` format, the truth in its
`session.json`), `script` plans its throws, `motion` moves the dice between frames and
`truth` compares what the tracker reported with what happened.
"""
