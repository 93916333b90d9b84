"""``python -m graphrag``: the command line."""
from graphrag.cli import main

raise SystemExit(main())
