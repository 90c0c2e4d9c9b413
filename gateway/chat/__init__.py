"""Chat platforms on the gateway: one package each, listed in platforms.py (a console
platform for tests: console.py); the interface is base.py, the shared parts kit/."""
