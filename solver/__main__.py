"""`python -m solver` runs the command line."""
import sys

from solver.cli import console_main

sys.exit(console_main())
