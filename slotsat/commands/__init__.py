"""slotsat subcommands: each module exposes `configure(parser)` and `run(args) -> int`."""
