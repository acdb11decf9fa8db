"""Reference bots, built on the SDK (``botarena.clients``) only."""

__all__: list[str] = []
