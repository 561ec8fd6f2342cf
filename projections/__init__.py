"""Read side of the ledger: the effective-order timeline, the replay engine,
the views that queries read, the site, exports and team balancing. Imports
only the kernel and the rating families of ``ledger``."""
