"""hermes_cli.render.renderer: drawing on the terminal with rich: tool lines, streamed Markdown, thinking, progress, usage reports."""
