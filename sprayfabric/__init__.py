"""The `sprayfabric` command, on top of the house: argument parsing and handlers only.

It imports down into controller, fabricsim and fabricnet; nothing imports it
(tests/test_layering.py). `sprayfabric.cli.main` is the console script; `python -m
sprayfabric` runs the same. mininet/run.py and mininet/demo.py share their setup here
(`mininet_scripts`), and their prompt (`mininet_prompt`).
"""

from .cli import main

__all__ = ["main"]
