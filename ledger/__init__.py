"""The ledger's own packages, one layer each: ``kernel`` (events, identity,
names, bounds, errors, the hash chain), ``families`` (the pure rating maths),
``write`` (the application and its commands, recorders, storage), ``sheets``
(result sheets read, checked and imported) and ``cli`` (the composition root,
the one package that imports the read side, ``projections``, too)."""

__version__ = "0.1.0"
