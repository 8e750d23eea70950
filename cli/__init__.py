"""The `hipport` command line (installed as hipport.cli): argument parsing and printing over the
engine. Textual is imported only inside the commands that open the app (open, demo)."""
