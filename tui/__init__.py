"""The hipport app (Textual) and command line."""
