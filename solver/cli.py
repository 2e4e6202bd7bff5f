"""The `solver` command line: subcommands for perft, building and probing databases, proving
and searching. Bad input gets one line on stderr and exit status 2, never a traceback."""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from solver.commands import COMMAND_MODULES
from solver.errors import UsageError

EXIT_USAGE = 2
EXIT_FAILURE = 1


class OneLineArgumentParser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line (and exit status 2)."""

    def error(self, message: str):  # noqa: D401 - argparse's API
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        sys.exit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every registered subcommand."""
    parser = OneLineArgumentParser(
        prog="solver",
        description="Solve and play two-player perfect-information games: endgame databases, "
        "proof-number search, alpha-beta play.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineArgumentParser)
    subparsers.required = True
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `solver` console script."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except UsageError as error:
        sys.stderr.write(f"solver {args.command}: error: {error}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write(f"solver {args.command}: interrupted\n")
        return 130
    except BrokenPipeError:
        return EXIT_FAILURE
    except Exception as error:  # last resort: one line, unless the user asks for the traceback
        if os.environ.get("SOLVER_DEBUG"):
            raise
        sys.stderr.write(f"solver {args.command}: internal error: {type(error).__name__}: {error} "
                         f"(set SOLVER_DEBUG=1 for a traceback)\n")
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
