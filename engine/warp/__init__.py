"""Warp-width analysis: rules W64-01..23, findings and fix groups."""
