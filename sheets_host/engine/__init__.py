"""The engine: a command's session on the host book, reading submissions, the commit, delivery
to every book, recovery, host-edit checks, new games, and bots playing through it."""
