from slotsat.app.cli import main

raise SystemExit(main())
