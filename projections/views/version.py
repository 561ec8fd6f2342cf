"""The views' version, apart from their schema: a query compares it with
the version the views were built at before it reads them, without loading
the modules that define the tables (``schema`` imports the games' and the
histories' modules)."""

#: Bump when the view tables change shape (or what their rows hold).
VERSION = 21
