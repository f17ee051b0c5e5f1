"""Command-line agents that honour the command-target contract v1."""
