"""The session store's read queries (SQL text only; `memory.store` runs them).

Portable SQL where it can be; `*_PG` where PostgreSQL must differ (grouping by a
subquery's key, full-text search)."""

_LIST_HEAD = """
SELECT s.*,
  (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count,
  (SELECT m.content FROM messages m
     WHERE m.session_id = s.id AND m.role = 'user' AND m.kind = ''
     ORDER BY m.seq LIMIT 1) AS preview,"""

LIST_SQL = _LIST_HEAD + """
  COUNT(CASE WHEN COALESCE(u.kind, '') <> 'cache_storage' THEN u.id END) AS api_calls,
  SUM(u.cost_usd) AS total_cost_usd,
  SUM(CASE WHEN u.cost_usd IS NULL THEN 1 ELSE 0 END) AS unpriced_calls,
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
SELECT COALESCE(SUM(u.cost_usd), 0) AS spent,
  SUM(CASE WHEN u.cost_usd IS NULL THEN 1 ELSE 0 END) AS unpriced
FROM usage u JOIN sessions s ON s.id = u.session_id
WHERE s.owner = ? AND u.created >= ?
"""

LIST_SQL_PG = _LIST_HEAD + """
  u.*
FROM (SELECT * FROM sessions WHERE {where} ORDER BY updated DESC, rowid DESC LIMIT ?) s
CROSS JOIN LATERAL (SELECT
  COUNT(CASE WHEN COALESCE(u.kind, '') <> 'cache_storage' THEN u.id END) AS api_calls,
  SUM(u.cost_usd) AS total_cost_usd,
  SUM(CASE WHEN u.cost_usd IS NULL THEN 1 ELSE 0 END)::BIGINT AS unpriced_calls,
  SUM(u.uncached + u.write_5m + u.write_1h + COALESCE(u.cache_read, 0))::BIGINT
    AS input_tokens,
  SUM(u.cache_read)::BIGINT AS cache_read_tokens,
  SUM(u.output)::BIGINT AS output_tokens
  FROM usage u WHERE u.session_id = s.id) u
ORDER BY s.updated DESC, s.rowid DESC
"""

SEARCH_SQL_PG = """
SELECT m.id AS message_id, m.session_id, m.seq, m.role, m.created,
  s.created AS session_created, s.title,
  ts_headline('english', m.content, q.q,
    'StartSel=**, StopSel=**, MaxWords=12, MinWords=4') AS snippet
FROM websearch_to_tsquery('english', ?) AS q(q)
JOIN messages m ON to_tsvector('english', m.content) @@ q.q
JOIN sessions s ON s.id = m.session_id
WHERE TRUE {where}
ORDER BY ts_rank(to_tsvector('english', m.content), q.q) DESC, m.id
LIMIT ?
"""

# what the gateway's /metrics reads: usage rows with ids in (?1, ?2], summed by key,
# model, kind (turn calls '' or keep-warm reads) and miss cause - the provider's bill
USAGE_TOTALS_SQL = """
SELECT COALESCE(s.owner, '') AS owner, u.model, u.kind, u.miss_cause,
  SUM(u.uncached) AS input, SUM(u.write_5m + u.write_1h) AS cache_write,
  SUM(COALESCE(u.cache_read, 0)) AS cache_read, SUM(u.output) AS output,
  SUM(u.cost_usd) AS cost, COUNT(*) AS calls, SUM(u.stored_token_hours) AS stored
FROM usage u LEFT JOIN sessions s ON s.id = u.session_id
WHERE u.id > ?1 AND u.id <= ?2
GROUP BY COALESCE(s.owner, ''), u.model, u.kind, u.miss_cause
"""

# the last usage row id after ?1 written before ?2 (an ISO time): what /metrics may fold
USAGE_SETTLED_SQL = "SELECT MAX(id) AS last FROM usage WHERE id > ? AND created < ?"

# the tokens an owner's calls counted against a per-minute limit since a moment
OWNER_TOKENS_SQL = """
SELECT u.created, u.uncached + u.write_5m + u.write_1h + u.output AS tokens
FROM usage u JOIN sessions s ON s.id = u.session_id
WHERE s.owner = ? AND u.created >= ? ORDER BY u.created
"""
