"""Interop tests: third-party P4Runtime clients against a `softswitch` subprocess."""
