"""Where numba keeps the compiled kernels, decided once, before any kernel is defined.

Every top-level package (games, databases, retrograde, proofsearch, solver) imports this module
first. Two problems are solved here:

- **Stale kernels.** numba invalidates a cached kernel only when the file defining it changes,
  while kernels here call kernels and read tables defined in other files: after an edit or an
  upgrade that changes only a callee's file, a caller would run stale machine code. So the
  kernels are cached in a directory of their own per version of the sources,
  ``<base>/solver-<key>``, where the key hashes every source file of the packages with the
  numba and Python versions. ``<base>`` is ``$NUMBA_CACHE_DIR`` when set, else the user's cache
  directory (``~/.cache/solver/kernels``). Directories of other versions unused for
  ``STALE_DAYS`` days are removed.
- **No writable cache.** When that directory cannot be written (a read-only install run by
  another user, ``HOME`` unset) numba would refuse to define a ``cache=True`` kernel at all
  ("cannot cache function ...: no locator available"). Then numba is pointed at a temporary
  directory, removed at exit, and this is said once on stderr: the kernels are compiled for
  this run only. When the read-only directory already holds kernels (a cache filled once by
  whoever installed the sources), they are copied into the temporary directory first (a few
  MiB), so nothing already compiled is compiled again.

(No kernels here: importing this module compiles nothing, and it does not import numba, which
takes most of a second: the command line installs its Ctrl-C and SIGTERM handlers first, so a
signal during that import is handled like any other. numba reads ``NUMBA_CACHE_DIR`` when it is
imported; if it already was, its configuration is set directly.)
"""
from __future__ import annotations

import atexit
import hashlib
import importlib.metadata
import os
import platform
import re
import shutil
import sys
import tempfile
import time

PACKAGES = ("runtime", "games", "databases", "retrograde", "proofsearch", "solver")
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PREFIX = "solver-"  # cache directories are PREFIX + key
STALE_DAYS = 14  # a cache directory of other sources unused this long is removed

cache_dir: str | None = None  # the directory numba caches kernels in, when this module chose it
note: str | None = None  # the line written to stderr, if any


def writable_directory(path: str) -> bool:
    """Whether ``path`` is, or can be made, a directory we can create files in (numba's test)."""
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def package_directories() -> list[str]:
    """The directories holding the packages' sources (where numba's ``__pycache__`` go)."""
    found = []
    for package in PACKAGES:
        for directory, subdirectories, _ in os.walk(os.path.join(SOURCE_ROOT, package)):
            subdirectories[:] = [name for name in subdirectories if name != "__pycache__"]
            found.append(directory)
    return found


def sources_key() -> str:
    """16 hex digits that change with any source file of the packages (path and contents) and
    with the numba and Python versions."""
    digest = hashlib.blake2b(digest_size=8)
    digest.update(f"numba {numba_version()} python {platform.python_version()} "
                  f"{sys.implementation.cache_tag}".encode())
    for directory in sorted(package_directories()):
        for name in sorted(os.listdir(directory)):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                digest.update(os.path.relpath(path, SOURCE_ROOT).encode() + b"\0")
                with open(path, "rb") as handle:
                    digest.update(handle.read())
                digest.update(b"\0")
    return digest.hexdigest()


def numba_version() -> str:
    """The installed numba's version, read without importing numba."""
    try:
        return importlib.metadata.version("numba")
    except importlib.metadata.PackageNotFoundError:  # numba on the path, not installed
        import numba

        return numba.__version__


def numba_config():
    """numba's configuration module if numba is imported already, else None."""
    return sys.modules.get("numba.core.config")


def user_cache_dir() -> str:
    """The per-user cache directory of this program, where each platform keeps caches (what
    numba's vendored ``appdirs`` answers, which cannot be imported without numba itself)."""
    if sys.platform == "win32":
        return os.path.join(os.environ.get("LOCALAPPDATA") or os.path.expanduser("~"), "solver",
                            "Cache")
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/solver")
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "solver")


def cache_base() -> str:
    """Where the per-version cache directories go: ``$NUMBA_CACHE_DIR`` if set, else the user's
    cache directory."""
    config = numba_config()
    base = config.CACHE_DIR if config is not None else os.environ.get("NUMBA_CACHE_DIR")
    return base or os.path.join(user_cache_dir(), "kernels")


def keyed_cache_dir(key: str) -> str:
    """This version's cache directory. A process started by one of the same sources inherits
    ``NUMBA_CACHE_DIR`` already pointing at it."""
    base = cache_base()
    if os.path.basename(os.path.normpath(base)) == PREFIX + key:
        return base
    return os.path.join(base, PREFIX + key)


def remove_stale_siblings(path: str) -> None:
    """Remove the cache directories of other source versions beside ``path`` unused for
    ``STALE_DAYS`` days (best effort: another process may be removing them too)."""
    now = time.time()
    os.utime(path)  # this one is in use
    base = os.path.dirname(path)
    pattern = re.compile(re.escape(PREFIX) + r"[0-9a-f]{16}")
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        sibling = os.path.join(base, name)
        if sibling == path or not pattern.fullmatch(name):
            continue
        try:
            if now - os.stat(sibling).st_mtime > STALE_DAYS * 86400:
                shutil.rmtree(sibling, ignore_errors=True)
        except OSError:
            continue


def use_cache_dir(path: str) -> None:
    """Point numba (and the processes this one starts: dask workers, engines) at ``path``."""
    global cache_dir
    cache_dir = path
    os.environ["NUMBA_CACHE_DIR"] = path
    config = numba_config()
    if config is not None:
        config.CACHE_DIR = path


def say(line: str) -> None:
    """Write the one note of this module to stderr."""
    global note
    note = line
    sys.stderr.write(f"solver: note: {line}\n")


def compiled_kernel_count(path: str) -> int:
    """How many kernels numba cached under ``path`` (one index file each; 0 when unreadable)."""
    count = 0
    for _, _, names in os.walk(path):
        count += sum(name.endswith(".nbi") for name in names)
    return count


def compile_for_this_run_only(reason: str, filled: str | None = None) -> None:
    """No writable cache: cache in a temporary directory removed at exit (seeded with the
    kernels of the read-only cache ``filled``, if any) or, failing that, compile without
    numba's cache."""
    try:
        path = tempfile.mkdtemp(prefix="solver-kernels-")
    except OSError:
        # Not even a temporary directory: leave each dispatcher with numba's NullCache.
        from numba.core.dispatcher import Dispatcher

        Dispatcher.enable_caching = lambda self: None
        filled = None
    else:
        atexit.register(shutil.rmtree, path, ignore_errors=True)
        if filled is not None:
            try:
                shutil.copytree(filled, path, dirs_exist_ok=True)
            except (OSError, shutil.Error):
                filled = None  # compile what the copy lacks; numba rejects a partial entry itself
        use_cache_dir(path)
    if filled is not None:
        say(f"no writable compile cache ({reason}); its compiled kernels are used, "
            "any others are compiled for this run only")
    else:
        say(f"no writable compile cache ({reason}); kernels are compiled for this run only")


def configure() -> None:
    """Decide numba's cache directory (see the module docstring)."""
    try:
        path = keyed_cache_dir(sources_key())
    except OSError as error:  # a source file that cannot be read: no key, no cache to trust
        compile_for_this_run_only(f"cannot read the sources ({error.strerror})")
        return
    if not writable_directory(path):
        filled = path if compiled_kernel_count(path) > 0 else None
        compile_for_this_run_only(f"{path} is not writable", filled)
        return
    use_cache_dir(path)
    remove_stale_siblings(path)


configure()
