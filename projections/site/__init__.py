"""The static ranking site (``ledger site build``): ``build.build_site``."""
