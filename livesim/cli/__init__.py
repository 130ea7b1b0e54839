"""The `livesim` command line (`livesim = "livesim.cli:main"`); the command groups are the modules beside this."""

from livesim.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
