from graphrag.cli import main

raise SystemExit(main())
