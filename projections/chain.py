"""Deprecated: the hash chain is the write side's (``ledger.chain``); this
re-export keeps ``from projections import chain`` working until ledger/cli
and ledger/migrate import ``ledger.chain``. Nothing here writes a link."""

from ledger.chain import GENESIS, SCHEMA, TABLE, head, link

__all__ = ["GENESIS", "SCHEMA", "TABLE", "head", "link"]
