"""The project as a whole: which folder is one (root), one app per project (lock), the names it defines
itself (names), every finding of it in one list (findings) and its background analysis (analysis)."""
