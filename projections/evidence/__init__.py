"""Evidence for rule changes: how well a ladder's rules predicted its games
(``ledger evaluate``), and which values of its parameters would have
predicted them best (``ledger tune``).

- ``metrics``: log-loss, Brier score, accuracy, calibration (pure);
- ``scoring``: the comparisons a replay puts to the test, through the
  family's own hooks (``Family.comparisons``);
- ``evaluate``: the rules in force, other rules and the baselines;
- ``tune``: a grid over numeric parameters;
- ``bootstrap``: the interval of a gain, resampling events.
"""
