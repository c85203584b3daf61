"""How the service runs: middleware, its processes, the bulk lane, background jobs, group commit."""
