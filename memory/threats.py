"""Scan text bound for persistent memory for prompt injection, exfiltration and secrets.

Memory notes are injected into every future system prompt, so a note is code the model
will run. `scan()` looks for injection phrasing, exfiltration recipes and invisible
characters; `scan_secrets()` for credentials. Both return a short reason or None.
Patterns are deliberately specific: ordinary prose about "instructions", "system
requirements" or "password reset" passes.
"""

from __future__ import annotations

import re

from memory.normalize import decoded_runs, despaced, fold, hidden_char, normalize
from memory.threat_acts import ACT_PATTERNS
from memory.threat_lang import aimed, foreign

_I = re.IGNORECASE
_IM = re.IGNORECASE | re.MULTILINE

_SECRET_NAME = r"\$\{?[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSW(?:OR)?D|CREDENTIALS?)[A-Z0-9_]*"
_SENSITIVE_FILE = (
    r"(?:~/\.(?:ssh|aws|gnupg|netrc|docker/config)|\.env\b|/etc/(?:passwd|shadow)"
    r"|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\bcredentials\.json\b)"
)
_NET_TOOL = r"\b(?:curl|wget|nc|ncat|netcat|socat)\b"
_SECRET_NOUN = (
    r"(?:api[\s_-]?keys?|passwords?(?!\s+(?:reset|manager|policy|field|prompt))"
    r"|credentials|secrets?|access\s+tokens?|auth\s+tokens?|private\s+keys?|ssh\s+keys?)"
)
_DESTINATION = (
    r"(?:https?://|[\w.+-]+@[\w-]+\.[\w.]+|[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b|me\b|us\b"
    r"|(?:this|that|the\s+following|an?\s+(?:external|remote))\s+"
    r"(?:url|address|server|endpoint|webhook|email|host))"
)

INJECTION_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\b(?:ignore|forget|override)\s+(?:all\s+)?(?:of\s+)?(?:the\s+|your\s+)?"
            r"(?:previous|prior|above|earlier|preceding)\s+(?:instructions|prompts?|rules)",
            _I,
        ),
        "prompt injection: asks to ignore previous instructions",
    ),
    (
        re.compile(
            r"\bdisregard\s+(?:all\s+)?(?:of\s+)?(?:your|the|any)\s+(?:previous\s+)?"
            r"(?:system\s+prompt|instructions|rules|guidelines)",
            _I,
        ),
        "prompt injection: asks to disregard the system prompt or instructions",
    ),
    (
        re.compile(
            r"\byou\s+are\s+now\s+(?:an?\s+|in\s+)?(?:unrestricted|unfiltered|uncensored"
            r"|jailbroken|evil|dan\b|different\s+(?:ai|assistant|model|persona)"
            r"|(?:developer|god|jailbreak|dan)\s+mode"
            r"|no\s+longer\s+(?:bound|restricted|limited|an?\s+(?:ai|assistant)))",
            _I,
        ),
        "prompt injection: tries to replace the assistant's identity ('you are now ...')",
    ),
    (
        re.compile(
            r"\b(?:your|here\s+is\s+(?:the|your)|following\s+is\s+(?:the|your))\s+new\s+"
            r"(?:system\s+prompt|instructions)\b|^[\s#>*]*new\s+system\s+prompt\s*:",
            _IM,
        ),
        "prompt injection: announces a new system prompt",
    ),
    (
        re.compile(
            r"</?\s*(?:system|assistant|system[_-]?prompt)\s*>|<\|im_(?:start|end)\|>"
            r"|\[\s*/?\s*(?:system|inst)\s*\]"
            r"|^\s*#{1,6}\s*system\s*(?:prompt|message|instructions?)?\s*:?\s*$",
            _IM,
        ),
        "prompt injection: fake role tag (e.g. <system>, [SYSTEM], ### system)",
    ),
    (
        re.compile(
            r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|alert|mention\s+"
            r"(?:this|it)\s+to|reveal\s+(?:this|it)\s+to)\s+the\s+user\b",
            _I,
        ),
        "prompt injection: asks to hide something from the user",
    ),
    (
        re.compile(
            r"\b(?:ignore|forget|disregard)\s+"
            r"(?:all\s+|any\s+|every\s*thing\s+|everything\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+|those\s+|what\s+)?"
            r"(?:(?:previous|prior|above|earlier|preceding|original|initial|system|safety|existing|current)\s+)?"
            r"(?:instructions?|prompts?|rules|guidelines|directives|guardrails|restrictions|"
            r"(?:you\s+(?:were|have\s+been)\s+)?(?:told|given|taught)|said\s+before)"
            r"(?:\s+(?:above|before|earlier|so\s+far))?"
            # drop/skip/bypass... are everyday words ("skip the prompts", "drop all
            # rules"): only with the model's own rules as the object
            r"|\b(?:discard|drop|override|bypass|skip|abandon)\s+(?:all\s+|any\s+)?(?:of\s+)?"
            r"(?:the\s+|your\s+)?(?:(?:previous|prior|above|earlier|original|initial|system|safety)\s+)"
            r"(?:instructions?|guidelines|directives|guardrails|restrictions|rules)"
            r"|\b(?:discard|drop|override|bypass|skip|abandon)\s+(?:all\s+)?(?:of\s+)?your\s+"
            r"(?:instructions?|guidelines|directives|guardrails|restrictions|rules)",
            _I,
        ),
        "prompt injection: asks to drop the instructions it was given",
    ),
    (
        re.compile(r"\bforget\s+(?:all\s+|everything\s+|every\s*thing\s+)?(?:you\s+(?:were|have\s+been|know)|"
                   r"your\s+(?:training|programming|rules))", _I),
        "prompt injection: asks to forget what it was told",
    ),
    (
        re.compile(r"\b(?:from\s+now\s+on|henceforth|starting\s+now)\b[^\n.]{0,40}\byou\s+"
                   r"(?:are|will|must|shall|have)\b[^\n.]{0,40}\b(?:no\s+(?:rules|limits|restrictions)|"
                   r"ignore|unrestricted|without\s+(?:any\s+)?(?:rules|limits|restrictions)|obey\s+only)", _I),
        "prompt injection: redefines the assistant's rules from now on",
    ),
    (
        re.compile(r"\b(?:pretend|act\s+as\s+if|imagine)\s+(?:that\s+)?(?:you\s+)?(?:have|had|are)\s+"
                   r"(?:no|without)\s+(?:rules|restrictions|guidelines|filters|limits)", _I),
        "prompt injection: asks to act without its rules",
    ),
    (
        re.compile(r"\b(?:new|updated|real|true|actual)\s+instructions?\s*(?:follow|below|:)|"
                   r"\bthe\s+(?:real|true|actual)\s+(?:task|instructions?)\s+(?:is|are)\b", _I),
        "prompt injection: substitutes new instructions",
    ),
    (
        re.compile(r"\b(?:reveal|leak|disclose|expose)\s+(?:to\s+me\s+)?(?:the|your)\s+(?:full\s+|"
                   r"entire\s+|hidden\s+|original\s+)?(?:system\s+(?:prompt|message)|"
                   r"(?:initial|hidden|original)\s+instructions)"
                   r"|\b(?:print|show|output|repeat|display|dump|tell\s+me)\s+(?:me\s+)?your\s+"
                   r"(?:full\s+|entire\s+|hidden\s+|original\s+)?(?:system\s+(?:prompt|message)|"
                   r"(?:initial|hidden|original)\s+instructions)"
                   r"|\b(?:system\s+prompt|initial\s+instructions)\b[^\n.]{0,30}\b(?:verbatim|"
                   r"word\s+for\s+word)", _I),
        "prompt injection: asks for the system prompt",
    ),
    (
        # letters spelled apart and glued back (memory.normalize.despaced)
        re.compile(r"(?:ignore|disregard|forget)(?:all|any)?(?:of)?(?:the|your|my)?(?:previous|prior|"
                   r"above|earlier|preceding)(?:instructions?|prompts?|rules)|(?:reveal|print|show)"
                   r"(?:me)?(?:the|your)systemprompt|youarenow(?:an?)?(?:unrestricted|dan|jailbroken)",
                   _I),
        "prompt injection: asks to ignore previous instructions (spelled apart)",
    ),
    (
        re.compile(rf"{_NET_TOOL}[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|"
                   r"\b(?:bash|sh)\s+<\(\s*(?:curl|wget)\b|"
                   r"\bbase64\s+(?:-d|--decode)\b[^\n]*\|\s*(?:ba|z)?sh\b", _I),
        "prompt injection: asks to run a downloaded or encoded script",
    ),
)

EXFILTRATION_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(rf"{_NET_TOOL}[^\n]*(?:{_SECRET_NAME}|{_SENSITIVE_FILE})", _I),
        "exfiltration: network command sending secrets or sensitive files",
    ),
    (
        re.compile(
            rf"(?:\b(?:printenv|env)\b[^\n|]*|\bcat\b[^\n|]*{_SENSITIVE_FILE}[^\n|]*)"
            rf"\|\s*(?:base64\s*\|\s*)?{_NET_TOOL}",
            _I,
        ),
        "exfiltration: pipes local data into a network command",
    ),
    (
        re.compile(rf"\$\(\s*(?:cat|base64|tar|zip)\b[^)`\n]*{_SENSITIVE_FILE}", _I),
        "exfiltration: command substitution reading sensitive files",
    ),
    (
        re.compile(
            r"\b(?:send|post|upload|forward|email|leak|exfiltrate|transmit|share)\b"
            rf"[^\n.]{{0,60}}?\b{_SECRET_NOUN}\b[^\n.]{{0,40}}?\bto\s+{_DESTINATION}",
            _I,
        ),
        "exfiltration: asks to send credentials somewhere",
    ),
    (
        re.compile(
            rf"{_SENSITIVE_FILE}[^\n]{{0,40}}\|\s*base64"
            rf"|\bbase64\b[^\n]{{0,30}}(?:{_SENSITIVE_FILE}|{_SECRET_NAME})"
            rf"|\bbase64[- ]encode\w*\s+(?:the\s+|your\s+|all\s+)?{_SECRET_NOUN}",
            _I,
        ),
        "exfiltration: base64-encodes secrets",
    ),
)

SECRET_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"), "Anthropic API key (sk-ant-...)"),
    (re.compile(r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}"), "API key (sk-...)"),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), "AWS access key id (AKIA...)"),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}"), "GitHub token (ghp_...)"),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{30,}"), "GitHub token (github_pat_...)"),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), "Slack token (xox...)"),
    (re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----"), "private key block"),
)


# a line that discusses injections ("attackers write 'ignore previous instructions'")
# quotes the phrase; a short quoted span on such a line is a mention, not an order
_DISCUSSION = re.compile(r"\b(?:such\s+as|e\.g\.|for\s+example|like|phrases?|"
                         r"attack\w*|inject\w*|malicious|detect\w*|scanner|flag\w*|"
                         r"block\w*|warn\w*|classic)\b", _I)
_QUOTED = re.compile(r"\"[^\"\n]{1,60}\"|(?<!\w)'[^'\n]{1,60}'(?!\w)|`[^`\n]{1,60}`|\u201c[^\u201d\n]{1,60}\u201d|"
                     r"\u00ab[^\u00bb\n]{1,60}\u00bb")
# the API's own credential in its header is how every API doc calls curl
_AUTH_HEADER = re.compile(r"(?:-H|--header)\s*[\"']?(?:authorization|x-api-key|api-key|"
                          r"private-token)\s*:\s*(?:bearer\s+|token\s+|basic\s+)?\$\{?\w+\}?", _I)


# Maven's POM names the issue tracker or CI in a <system> element
_POM_SYSTEM = re.compile(r"(<(issueManagement|ciManagement)>\s*)<system>[^<\n]{0,40}</system>")


def _unmentioned(text: str) -> str:
    text = _POM_SYSTEM.sub(r"\1", text)
    lines = text.split("\n")
    for n, line in enumerate(lines):  # (a discussion word inside the quote is no discussion)
        if _DISCUSSION.search(_QUOTED.sub(" ", line)):
            lines[n] = _QUOTED.sub('"(quoted)"', line)
    return _AUTH_HEADER.sub("-H AUTH", "\n".join(lines))


def _first(text: str, patterns: tuple[tuple[re.Pattern[str], str], ...]) -> str | None:
    return next((reason for pattern, reason in patterns if pattern.search(text)), None)


def scan(text: str, _depth: int = 0) -> str | None:
    """Return a short description of the first injection/exfiltration threat, else None.
    Reads the text as written (normalised), with letters spelled apart glued back, in
    its own script (other languages), and what its base64 runs decode to."""
    if not text:
        return None
    hidden = hidden_char(text)
    if hidden:
        return f"invisible unicode character {hidden}"
    text = _unmentioned(text)
    plain = normalize(text)
    reason = _first(plain, INJECTION_PATTERNS + EXFILTRATION_PATTERNS + ACT_PATTERNS) or aimed(plain)
    if reason is None:  # only the lines where letters were glued back are read again
        changed = [g for g, line in ((despaced(line), line) for line in plain.split("\n"))
                   if g != line]
        reason = _first("\n".join(changed), INJECTION_PATTERNS) if changed else None
    reason = reason or foreign(fold(text))
    if reason is None and _depth == 0:
        for payload in decoded_runs(text):
            inner = scan(payload, 1)
            if inner:
                return f"{inner} (base64-encoded)"
    return reason


def scan_secrets(text: str) -> str | None:
    """Return the kind of the first credential found in `text` (e.g. an API key), else None."""
    if not text:
        return None
    for pattern, reason in SECRET_PATTERNS:
        if pattern.search(text):
            return f"contains a secret: {reason}"
    return None
