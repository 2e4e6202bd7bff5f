"""The `solver` command line: subcommands for perft, building and probing databases, proving
and searching. Every error is one line on stderr, never a traceback: exit status 2 for bad input,
1 for a damaged or unusable environment (and for a batch with failed lines), 130 for Ctrl-C, 143 for
SIGTERM. The handlers of both are installed before numba is imported (most of a second)."""
from __future__ import annotations

import _thread
import argparse
import errno
import importlib
import os
import signal
import sys
import threading

from solver.commands import COMMAND_MODULES
from solver.errors import UsageError

EXIT_USAGE = 2
EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 128 + signal.SIGTERM
# what a full, failing or read-only disk raises: the environment (status 1), not a bug
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EFBIG})


class OneLineArgumentParser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line (and exit status 2)."""

    def error(self, message: str):  # noqa: D401 - argparse's API
        report(self.prog, f"error: {message} (see --help)")
        sys.exit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every registered subcommand."""
    parser = OneLineArgumentParser(
        prog="solver",
        description="Solve and play two-player perfect-information games: endgame databases, "
        "proof-number search, alpha-beta play.",
        epilog="Exit status: 0 done, 1 a damaged or unusable environment (or a batch in which "
        "some line failed), 2 bad input, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM).",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineArgumentParser)
    subparsers.required = True
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


MAX_MESSAGE = 2000  # characters: a 10,000-character position is not repeated in full


def report(prog: str, message: str) -> None:
    """One line on stderr: newlines in ``message`` (from a file's text, say) are folded, and a
    huge message is cut."""
    line = " ".join(message.split())
    if len(line) > MAX_MESSAGE:
        line = line[:MAX_MESSAGE] + "..."
    sys.stderr.write(f"{prog}: {line}\n")
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `solver` console script."""
    if threading.current_thread() is threading.main_thread() \
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, note_interrupt)
        sys.unraisablehook = quiet_after_interrupt
    if threading.current_thread() is threading.main_thread() \
            and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, note_interrupt)
    try:
        args = build_parser().parse_args(argv)  # imports the commands: a signal may come here too
    except KeyboardInterrupt as signalled:
        return report_interrupt(prog_of(sys.argv[1:] if argv is None else argv),
                                isinstance(signalled, Terminated), signalled)
    return run_command(args)


def prog_of(argv: list[str]) -> str:
    """The name a message of the command in ``argv`` starts with ("solver build"), known before
    its arguments are parsed."""
    command = next((word for word in argv if not word.startswith("-")), None)
    return f"solver {command}" if command else "solver"


def console_main() -> int:
    """The `solver` console script and ``python -m solver``: :func:`main`, then deaf to SIGINT
    and SIGTERM. The command has decided its status; while Python shuts down (numba and
    LLVM take a moment) it restores the signals' default actions, and a signal arriving then
    would end the process by that action instead of with the status."""
    status = main()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if interrupted():
        # The command's clean-ups have run; a compile cut short in another thread may still
        # be inside LLVM, and tearing the interpreter down under it can crash (SIGSEGV seen
        # after the one line): leave at once with the status.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


def run_command(args: argparse.Namespace) -> int:
    """Run the parsed command; every exception becomes one line and an exit status."""
    prog = f"solver {args.command}"
    try:
        if args.command == "uci":  # (the engine says it in UCI's own words)
            return args.run(args)
        from runtime import compile_notice

        # what a command compiles depends on its game: counted per command and game
        compile_notice.install(command=" ".join(filter(None, (args.command,
                                                              getattr(args, "game", None)))))
        status = args.run(args)
        if status == 0:
            compile_notice.finished()
        return status
    except UsageError as error:
        report(prog, f"error: {error}")
        return EXIT_USAGE
    except KeyboardInterrupt as signalled:
        return report_interrupt(prog, isinstance(signalled, Terminated), signalled)
    except BrokenPipeError:
        # The reader went away (`solver ... | head`): nothing more to say, and nowhere to say it.
        silence_stdout()
        return EXIT_FAILURE
    except MemoryError:
        report(prog, "error: out of memory (try smaller memory options: --table-mb, --hash, --cache-mb)")
        return EXIT_FAILURE
    except OSError as error:
        if error.errno not in STORAGE_ERRNOS:
            return internal_error(prog, error)
        # A full or failing disk, or a read-only one (a table, a proof, standard output): the
        # environment, not the input. Standard output may be the full one: silence its flush.
        report(prog, f"error: {error.strerror}" + (f": {error.filename}" if error.filename else
                                                   " (writing the output)"))
        silence_stdout()
        return EXIT_FAILURE
    except Exception as error:  # noqa: BLE001 - the last resort
        if interrupted():  # whatever fails after a Ctrl-C fails because of it (a cut compile)
            return report_interrupt(prog, _interrupts[0] == signal.SIGTERM, error)
        if environment_failure(error):
            report(prog, f"error: {error}")
            return EXIT_FAILURE
        return internal_error(prog, error)


_interrupts: list[int] = []
INTERRUPT_AGAIN_SECONDS = 0.05  # before a Ctrl-C lost in a callback is delivered again


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C (every clean-up on the way runs: no temporary file is
    left), reported as such (status 143)."""


def note_interrupt(signum, frame) -> None:
    """The SIGINT and SIGTERM handler: Python's Ctrl-C (KeyboardInterrupt; for SIGTERM, its
    subclass Terminated), remembering that one came."""
    _interrupts.append(signum)
    raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt


_cut_short: list[BaseException] = []  # what an interrupt cut short, kept until the process ends


def report_interrupt(prog: str, terminated: bool, error: BaseException | None = None) -> int:
    """One line for Ctrl-C or SIGTERM, and the status that says which (130 or 143).

    ``error``, the exception the interrupt became, is kept for good: its traceback holds what
    the interrupted work held, such as a numba compile cut short inside LLVM, and freeing that
    can crash the process (SIGSEGV after the line, seen about once in a few hundred SIGTERMs of
    a cold build; likely an LLVM module freed twice, once by the engine that had taken it).
    ``console_main`` then leaves by ``os._exit``, freeing nothing."""
    if error is not None:
        _cut_short.append(error)
    report(prog, "terminated" if terminated else "interrupted")
    return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED


def interrupted() -> bool:
    """Whether Ctrl-C came during this command."""
    return bool(_interrupts)


def quiet_after_interrupt(unraisable) -> None:
    """``sys.unraisablehook``: after Ctrl-C, nothing to say of errors Python cannot raise
    (numba's compiler callbacks and finalizers cut short); a KeyboardInterrupt that landed in
    such a callback, and so was lost, is delivered again to the main thread."""
    if not interrupted():
        sys.__unraisablehook__(unraisable)
    elif isinstance(unraisable.exc_value, KeyboardInterrupt):  # the same signal, a moment on
        threading.Timer(INTERRUPT_AGAIN_SECONDS, _thread.interrupt_main,
                        (_interrupts[-1],)).start()


def internal_error(prog: str, error: Exception) -> int:
    """A bug: one line (the traceback with ``SOLVER_DEBUG=1``), exit status 1."""
    if os.environ.get("SOLVER_DEBUG"):
        raise error
    report(prog, f"internal error: {type(error).__name__}: {error} (set SOLVER_DEBUG=1 for a traceback)")
    return EXIT_FAILURE


def silence_stdout() -> None:
    """Point standard output at /dev/null, so that the flush at exit says nothing more."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError:
        pass


def environment_failure(error: Exception) -> bool:
    """Whether ``error`` is a damaged or unusable environment rather than a bug: a command's
    Failure, or a table file that cannot be used (exit status 1 with the error's own message)."""
    kinds = []
    for module, name in (("solver.commands.common", "Failure"), ("databases.errors", "UnusableTableError")):
        kind = getattr(sys.modules.get(module), name, None)  # only what the command loaded
        if kind is not None:
            kinds.append(kind)
    return isinstance(error, tuple(kinds))


if __name__ == "__main__":
    sys.exit(main())
