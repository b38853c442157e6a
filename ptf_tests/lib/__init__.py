"""Shared pieces of the PTF suite: the base class, packets and the target glue."""
