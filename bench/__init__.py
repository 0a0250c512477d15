"""Benchmarks: run each as a module from the repository root (python -m bench.bench_x); figures in bench/README.md."""
