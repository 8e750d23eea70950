"""Textual themes as data (TOML), loaded by name."""
