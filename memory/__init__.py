"""Persistent state of hermes: the SQLite session store and the MEMORY.md/USER.md notes.

Import the submodules directly (`memory.store`, `memory.notes`, `memory.threats`,
`memory.errors`); this package imports nothing and does nothing at import time.
"""
