"""What every chat adapter shares (docs/CHAT.md, "Adding a platform"): `facts` (the
pure-data description of a platform everyone reads), `stream` (streaming an answer by
editing one message), `writer` (sends through the per-chat budget, 429s waited out),
`ledger` (replies the platform refused, sent again after a reconnect or restart)."""
