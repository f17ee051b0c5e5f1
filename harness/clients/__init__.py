"""Tiny ``Client`` targets that prove both httpx and httpx2 clients are intercepted."""
