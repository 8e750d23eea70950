"""The one C/C++/CUDA lexer (`lexer`) and the token helpers built on it (`brackets`).

Translation, kernel launches, includes and the warp analysis all read C++ through this package, so
a token, a bracket pair, a top-level comma or a statement end means the same thing everywhere.
"""
