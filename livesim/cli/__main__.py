"""`python -m livesim.cli`."""

import sys

from livesim.cli.main import main

sys.exit(main())
