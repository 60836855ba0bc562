"""The release: one place, read by the package, every record and the wheel check."""

__version__ = "0.1.0"
