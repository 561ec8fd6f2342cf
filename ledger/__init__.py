"""Write side of the ledger: events, the application that appends them,
result-sheet import, and the command-line interface."""

__version__ = "0.1.0"
