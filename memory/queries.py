"""The session store's read queries (SQL text only; `memory.store` runs them)."""

LIST_SQL = """
SELECT s.*,
  (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count,
  (SELECT m.content FROM messages m
     WHERE m.session_id = s.id AND m.role = 'user' AND m.kind = ''
     ORDER BY m.seq LIMIT 1) AS preview,
  COUNT(u.id) AS api_calls,
  SUM(u.cost_usd) AS total_cost_usd,
  SUM(u.cost_usd IS NULL) AS unpriced_calls,
  SUM(u.uncached + u.write_5m + u.write_1h + COALESCE(u.cache_read, 0)) AS input_tokens,
  SUM(u.cache_read) AS cache_read_tokens,
  SUM(u.output) AS output_tokens
FROM (SELECT * FROM sessions WHERE {where} ORDER BY updated DESC, rowid DESC LIMIT ?) s
LEFT JOIN usage u ON u.session_id = s.id
GROUP BY s.id
ORDER BY s.updated DESC, s.rowid DESC
"""

SEARCH_SQL = """
SELECT m.id AS message_id, m.session_id, m.seq, m.role, m.created,
  s.created AS session_created, s.title,
  snippet(messages_fts, 0, '**', '**', '…', 12) AS snippet
FROM messages_fts
JOIN messages m ON m.id = messages_fts.rowid
JOIN sessions s ON s.id = m.session_id
WHERE messages_fts MATCH ? {where}
ORDER BY messages_fts.rank
LIMIT ?
"""

OWNER_SPEND_SQL = """
SELECT COALESCE(SUM(u.cost_usd), 0) AS spent, SUM(u.cost_usd IS NULL) AS unpriced
FROM usage u JOIN sessions s ON s.id = u.session_id
WHERE s.owner = ? AND u.created >= ?
"""
