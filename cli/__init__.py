"""The subcommands of the `cubilete` command line, one module each.

Each module exposes `register(subparsers)`, which adds its parser and sets `handler`
(a function taking the parsed arguments and returning the exit code). Modules import
heavy libraries (OpenCV, numpy, luma) inside their handlers so that `cubilete score`
starts fast.
"""
