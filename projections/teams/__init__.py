"""Team balancing: the solver (``balance``), its bounds (``bound``,
``cover``, ``search``) and the camp sheets (``camps``)."""
