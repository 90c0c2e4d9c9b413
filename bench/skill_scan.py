"""The check skill_manage runs before writing a skill, on tests/fixtures/skill_corpus.py:
malicious skills refused (by kind: ignore the user, exfiltrate, fetch and run) and
benign ones - the corpus's and the bundled skills (skills/bundled) - passed.
`python bench/skill_scan.py [--verbose]` from the repo root.

Three malicious sets: MALICIOUS (the scanner was improved on it: 10/32 before),
HELD_OUT (written after that, first measured at 2/14, then improved on) and FRESH
(written last, first measured at 0/15; 7/15 after generalising the exfiltration and
pipe-to-shell rules - none of its five "ignore the user" texts, whose wording no
pattern list anticipates). The first measurement of a set is the honest estimate of
the rate on wording nobody has seen."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent.tools.skill_manage import skill_scan  # noqa: E402
from memory.threats import scan_secrets  # noqa: E402
from skills.loader import SkillError, bundled_dir, discover, parse_text  # noqa: E402
from tests.fixtures.skill_corpus import BENIGN, FRESH, HELD_OUT, MALICIOUS  # noqa: E402

SETS = {"corpus": MALICIOUS, "held-out": HELD_OUT, "fresh": FRESH}


def refusal(text: str) -> str | None:
    """Why skill_manage would refuse `text` (None: it would write it)."""
    try:
        parse_text(Path("x/SKILL.md"), "user", skill_scan, text)
    except SkillError as exc:
        return exc.message
    return scan_secrets(text)


def measure() -> dict:
    sets = {}
    for label, corpus in SETS.items():
        kinds: dict[str, list[int]] = {}
        missed = []
        for kind, text in corpus:
            caught = refusal(text) is not None
            kinds.setdefault(kind, [0, 0])[0] += caught
            kinds[kind][1] += 1
            if not caught:
                missed.append(text)
        sets[label] = {"caught": len(corpus) - len(missed), "total": len(corpus),
                       "kinds": kinds, "missed": missed}
    bundled = [s.body for s in discover(Path("/nonexistent"), bundled=bundled_dir()).skills.values()]
    flagged = [(t, refusal(t)) for t in BENIGN + bundled if refusal(t) is not None]
    return {"sets": sets, "benign": len(BENIGN), "bundled": len(bundled), "flagged": flagged}


def main() -> None:
    res = measure()
    for label, figures in res["sets"].items():
        by_kind = ", ".join(f"{k} {c}/{n}" for k, (c, n) in figures["kinds"].items())
        print(f"{label}: malicious skills refused {figures['caught']}/{figures['total']} ({by_kind})")
        if "--verbose" in sys.argv:
            for text in figures["missed"]:
                print("  missed: " + " ".join(text.split("---")[-1].split())[:100])
    print(f"benign flagged {len(res['flagged'])}/{res['benign']} corpus + {res['bundled']} bundled")
    for text, why in res["flagged"]:
        print(f"  flagged: {' '.join(text.split())[:80]!r} ({why})")


if __name__ == "__main__":
    main()
