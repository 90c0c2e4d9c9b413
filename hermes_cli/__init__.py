"""hermes: a terminal AI agent with exact, visible prompt-cache discipline."""

__version__ = "0.1.0"
