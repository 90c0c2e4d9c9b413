"""MCP servers as tools: config, a per-process hub of server connections, and the
per-session frozen tool set (see ARCHITECTURE.md, "MCP servers")."""
