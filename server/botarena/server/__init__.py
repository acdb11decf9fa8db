"""The botarena server: pure rule engines, matches in progress, persistence and gRPC service.

Layers, lowest first (DESIGN.md: Layers): ``games`` (pure rules) < ``match`` < ``store`` <
``service`` (the only package that speaks gRPC).
"""
