"""`python -m hipport.cli ARGS`: the `hipport` command."""

import sys

from hipport.cli.main import main

sys.exit(main())
