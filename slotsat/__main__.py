from slotsat.cli import main

raise SystemExit(main())
