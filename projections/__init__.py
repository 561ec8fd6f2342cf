"""Read side of the ledger: rating families, the effective-order timeline,
the replay engine and the views that queries read."""
