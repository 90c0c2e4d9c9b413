"""Permissions: config rules (`permissions: {allow, ask, deny}`) and the plan mode.

agent/permissions/rules.py parses and matches the rules; agent/permissions/plan.py is
the read-only plan mode (its note to the model and its sandbox policy);
agent/permissions/gate.py is what tool dispatch consults before a tool runs;
shell.py + shell_lex.py read a command line into the simple commands terminal rules
match, globs.py matches them, names.py checks tool names (Claude Code's as aliases).
"""
