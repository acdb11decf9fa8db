"""Persistence: matches, append-only event logs, results, bots and ratings (SQLite default).

Never imports grpc (DESIGN.md: Persistence and scale).
"""
