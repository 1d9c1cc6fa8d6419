from slotsat.app.cli import entry

entry()
