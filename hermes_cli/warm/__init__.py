"""Warm start, the shared part: where a server listens (`place`), how one is asked for
its status or to stop (`protocol`), and the channel a forked run uses to run a command on
the user's terminal (`terminal`). The launcher - the client the `hermes` command runs
first, the server and its forked runs - is hermes_cli/launch/, which sits above the CLI
app; this room sits below it (`hermes warm status|stop`, the REPL's `!cmd` use it).
"""
