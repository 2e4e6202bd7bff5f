"""What every package needs at run time and none of them is about: numba's compile cache
(``compile_cache``, imported first by every package), Ctrl-C for long kernels (``interrupt``),
stop polling and deadlines (``stopping``), the kernel-address patch (``kernel_addresses``),
recursive kernels typed by their signatures (``recursion_typing``, a patch too),
memory sizing (``memory``), arrays lent to kernels without reference counting (``borrow``)
and numbers as users type them (``text``). Imports nothing of the other packages."""
from runtime import compile_cache  # noqa: F401  (first: numba's cache directory before any kernel)
