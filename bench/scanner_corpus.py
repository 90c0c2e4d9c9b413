"""The injection scanner on tests/fixtures/injection_corpus.py: injections caught and
benign texts flagged. `python bench/scanner_corpus.py [--verbose]` from the repo root;
run it against another checkout with PYTHONPATH=<that checkout>:. to compare."""

from __future__ import annotations

import sys

from memory.threats import scan
from tests.fixtures.injection_corpus import BENIGN, INJECTIONS


def main() -> None:
    missed = [t for t in INJECTIONS if scan(t) is None]
    flagged = [(t, scan(t)) for t in BENIGN if scan(t) is not None]
    print(f"injections caught {len(INJECTIONS) - len(missed)}/{len(INJECTIONS)}; "
          f"benign flagged {len(flagged)}/{len(BENIGN)}")
    if "--verbose" in sys.argv:
        for text in missed:
            print(f"  missed: {text[:70]!r}")
        for text, why in flagged:
            print(f"  flagged: {text[:70]!r} ({why})")


if __name__ == "__main__":
    main()
