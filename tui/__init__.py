"""The hipport app (Textual); the command line that opens it is hipport.cli."""
