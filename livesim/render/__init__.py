"""Pure rendering: dashboard state -> a rich renderable or text; no terminal loop, no envs, no agents."""
