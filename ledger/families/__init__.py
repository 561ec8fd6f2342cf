"""Rating families: the pure rating maths, one module per family."""
