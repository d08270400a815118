"""`cubilete bench ...`: one module per benchmark, each exposing `register(bench_subparsers)`.

Benchmarks print measured figures; speed targets are never timed tests.
"""
