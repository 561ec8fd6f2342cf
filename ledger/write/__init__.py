"""The write side: the application, its commands and the state they decide
from, the recorders (event store, hash chain, write index), storage and
migration. Imports the kernel and the families, never the read side."""
