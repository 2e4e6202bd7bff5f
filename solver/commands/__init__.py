"""One module per `solver` subcommand; each exposes ``register(subparsers)``.

A command module adds its parser with ``set_defaults(run=...)``; ``run(args)`` returns the exit
status. Add new command modules to ``COMMAND_MODULES``.
"""
COMMAND_MODULES = [
    "solver.commands.perft",
    "solver.commands.build",
    "solver.commands.probe",
    "solver.commands.verify",
    "solver.commands.prove",
    "solver.commands.check_proof",
    "solver.commands.search",
    "solver.commands.bench",
    "solver.commands.uci",
    "solver.commands.serve",
]
