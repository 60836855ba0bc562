"""Finds sentibench's packages under its three top-level folders; everything else is in pyproject.toml."""

from setuptools import find_packages, setup

ROOTS = {"sentibench": "bench", "sentibench.tasks": "tasks", "sentibench.models": "models"}

setup(packages=[name for prefix, folder in ROOTS.items()
                for name in [prefix, *(f"{prefix}.{sub}" for sub in find_packages(folder))]])
