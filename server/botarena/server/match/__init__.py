"""Matches in progress: seats, clocks, timeout/illegal-move/disconnect policies, event log.

Sits above the pure engines (``botarena.server.games``) and below the gRPC service; it
never imports grpc (DESIGN.md: Match layer).
"""
