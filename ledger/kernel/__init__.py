"""The kernel: events, identity, names, bounds, errors and the hash chain.

Imports nothing else of the project; every other layer builds on it."""
