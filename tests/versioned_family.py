"""An elo family whose maths version a test can bump, as a code upgrade would."""

from __future__ import annotations

from ledger.families.elo import EloFamily


class VersionedElo(EloFamily):
    name = "versioned-elo"
    version = 1
