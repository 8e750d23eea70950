"""CUDA -> HIP translation of one source: identifier renames, includes, launches, reports.

Only identifier tokens are renamed; comments and string literals stay byte for byte unless asked
(`translate_comments` / `translate_strings`). Preprocessor lines and macro bodies are translated like
code. Every CUDA-looking identifier that is not translated becomes a Report. The result is a set of
Edits on the original text, so unchanged text keeps its exact bytes, and translating the output
again changes nothing (nothing in it is a CUDA name any more).

Modes: TOKENS always works (no headers, no CUDA SDK). AST (engine/translate/semantic.py) is used when a clang
resource directory and CUDA headers are found; it resolves what tokens cannot, e.g. a function the
file itself declares under a CUDA name, which must not be renamed.

Modules: driver.py (translate(source) by language; translate_text composes the passes over one
TranslationState, state.py), options.py (TranslateOptions, TranslateError), decisions.py (per-name
decisions), names.py (the identifier pass, with cuda_macros.py and inline_asm.py), call_args.py
(argument rewrites), checks.py, headers.py, launches.py, literals.py (the other passes), tables.py
(hand-kept data the generated mapping does not carry).
"""
