"""The Python SDK for botarena: clients for the MatchService, the Bot protocol and tools."""

__all__: list[str] = []
