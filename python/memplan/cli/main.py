"""``memplan``: the memplan command line, one subcommand per tool.

    memplan report FILE [--plot timeline.png] [--function NAME] [--json]
    memplan explain FILE [--json] [--function NAME]
    memplan transients FILE --func NAME [--dim ARG:DIM=SIZE] [--value ARG=N]

Subcommands live in their own modules of :mod:`memplan.cli` (the only
package that parses command lines), named for the subcommand, each exposing
``HELP`` (its line in ``memplan --help``), ``add_arguments(parser)`` and
``run`` (a function of the parsed arguments returning an exit code); the
module's docstring is the subcommand's description. To add one, append its
module to :data:`SUBCOMMANDS`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Optional, Sequence

import memplan
from memplan.cli.arguments import ArgumentParser, quiet_on_broken_pipe

#: The subcommands' modules, in help order.
SUBCOMMANDS: tuple[str, ...] = (
    "memplan.cli.report",
    "memplan.cli.explain",
    "memplan.cli.transients",
)


def build_parser() -> argparse.ArgumentParser:
    """The ``memplan`` parser with every subcommand registered."""
    parser = ArgumentParser(prog="memplan", description="memplan memory-planning tools")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        module = importlib.import_module(name)
        p = sub.add_parser(
            name.rpartition(".")[2],
            help=module.HELP,
            description=module.__doc__,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return parser


def run(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``memplan``; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        print(f"memplan {memplan.__version__}")
        return 0
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return 1
    return int(args.run(args))


def main() -> None:
    """Console-script entry point."""
    # The reader may go away (`memplan report ... | head`): stop quietly.
    sys.exit(quiet_on_broken_pipe(run))


if __name__ == "__main__":
    main()
