"""A fourth chat platform for the tests, built from the console adapter: a package
(facts.py, boot.py) and one registry line - nothing else (docs/CHAT.md)."""
