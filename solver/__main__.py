"""`python -m solver` runs the command line."""
import sys

from solver.cli import main

sys.exit(main())
