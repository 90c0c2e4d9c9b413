"""`hermes acp`: hermes as an Agent Client Protocol agent on stdin/stdout.

An editor (Zed, JetBrains, Neovim plugins, any ACP client) starts `hermes acp` and
drives it with JSON-RPC over stdio through the official SDK (`acp`, imported only when
the command runs). A front end like gateway/: it builds agents with
`frontend.factory.make_agent`, folds events with `frontend.outcome`, bridges the turn's
worker thread with `frontend.bridge`, runs session commands with `frontend.commands`.

- `server`: start-up (stdout kept for the protocol only), the SDK connection
- `wire`: the JSON-RPC line transport that answers malformed input
- `service`: the ACP methods (initialize, sessions, prompt, cancel, modes)
- `opening`: a session's config, the editor's MCP servers, the stored session's lock
- `session`: one ACP session = one cached agent, its turn and the editor's answers
- `prompts`: prompt blocks -> the user message; the shared session commands
- `client_io`: the editor as approver (files: hermes' own I/O through safefs)
- `updates`: hermes events -> ACP session updates (pure)
- `history`: a stored conversation replayed as updates
"""
