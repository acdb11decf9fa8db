"""The gRPC layer: servicers, seat authentication, error mapping, health and reflection.

The only server package that imports grpc (DESIGN.md: Layers).
"""
