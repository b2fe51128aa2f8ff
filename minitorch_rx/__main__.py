"""``python -m minitorch_rx``: the command line."""

import sys

from .cli import main

sys.exit(main())
