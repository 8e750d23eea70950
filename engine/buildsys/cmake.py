"""CMake: the CUDA language, toolkit package, targets, variables and properties -> HIP, as edits.

- project(... CUDA) / enable_language(CUDA) / check_language(CUDA) / LANGUAGE CUDA -> HIP;
  $<COMPILE_LANGUAGE:CUDA> -> HIP
- find_package(CUDAToolkit|CUDA) -> find_package(hip), plus find_package(<lib>) for each HIP library
  the file links (roc::hipblas needs find_package(hipblas))
- CUDA::cudart -> hip::host, CUDA::cublas -> roc::hipblas, ... (rules.toml [[library]])
- CMAKE_CUDA_ARCHITECTURES / CUDA_ARCHITECTURES -> CMAKE_HIP_ARCHITECTURES / HIP_ARCHITECTURES with the
  target gfx list as value; CMAKE_CUDA_STANDARD, CMAKE_CUDA_FLAGS, ... renamed ([cmake] rename)
- CUDA_SEPARABLE_COMPILATION -> -fgpu-rdc compile and link options (CMake has no HIP counterpart)
- `.cu` sources get LANGUAGE HIP (CMake compiles only .hip as HIP by extension); sibling outputs
  rename them to .hip instead
- nvcc flags in compile/link options and flag variables: as for Makefiles (flags.py)
- anything else CUDA-looking (CUDA_*, CMAKE_CUDA_*, CUDA::*, cuda_* commands) is reported with its line
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..model import ReportKind
from .cmake_lex import Arg, Command, commands
from .flags import FlagTranslator, Word, unquote

_SOURCE_COMMANDS = frozenset({"add_executable", "add_library", "target_sources", "set", "list",
                              "cuda_add_executable", "cuda_add_library"})
_SKIP_COMMANDS = frozenset({"message", "option"})
_GENEX = re.compile(r"\$<(COMPILE_LANGUAGE|LINK_LANGUAGE|COMPILE_LANG_AND_ID|LINK_LANG_AND_ID):"
                    r"(?:CUDA(,NVIDIA|,HIP)?|HIP,CUDA)(?=[>:])")
_CUDA_NAME = re.compile(r"\b(?:CMAKE_CUDA_[A-Za-z0-9_]+|CUDA_[A-Za-z0-9_]+|CUDAToolkit_[A-Za-z0-9_]+|"
                        r"CUDA::[A-Za-z0-9_]+|CUDAToolkit)\b")
_OPTION_COMMANDS = frozenset({"target_compile_options", "add_compile_options", "target_link_options",
                              "add_link_options", "target_link_libraries", "link_libraries", "add_definitions",
                              "cuda_add_executable", "cuda_add_library"})
_LIST_VERBS = frozenset({"APPEND", "PREPEND", "INSERT", "REMOVE_ITEM", "REPLACE", "REGEX", "SEPARATE_ARGUMENTS",
                         "UNIX_COMMAND", "NATIVE_COMMAND", "WINDOWS_COMMAND"})
_FLAG_PROPERTIES = frozenset({"COMPILE_OPTIONS", "COMPILE_FLAGS", "LINK_OPTIONS", "LINK_FLAGS",
                              "INTERFACE_COMPILE_OPTIONS", "INTERFACE_LINK_OPTIONS", "STATIC_LIBRARY_OPTIONS"})
_OTHER_LANGUAGE = re.compile(r"(?:COMPILE|LINK)_LANG(?:UAGE|_AND_ID):(?:CXX|C|Fortran|OBJC|OBJCXX|ASM)\b")
_GENEX_WORD = re.compile(r"(?<=[:\s,])(?:[^\s;<>\":$,]|\$\{[^}]*\}|,(?=\S*=))+")
_PIECE = re.compile(r"\$<(?:[^<>]|<[^<>]*>)*>|[^\s;\"]+")
_CU_SOURCE = re.compile(r"\.cu$")
_END_OF_VALUES = frozenset({"CACHE", "PARENT_SCOPE", "PROPERTIES", "PROPERTY", "APPEND", "APPEND_STRING"})


class _CMake:
    def __init__(self, text: str, ft: FlagTranslator) -> None:
        self.text = text
        self.ft = ft
        self.r = ft.r
        self.cm = ft.r.cmake
        self.cmds = commands(text)
        crlf = text.count("\r\n")
        self._newline = "\r\n" if crlf > text.count("\n") - crlf else "\n"  # for inserted lines
        self.covered: list[tuple[int, int]] = []  # spans edited or deliberately handled
        self.packages: list[str] = []             # find_package(<lib>) the file needs
        self.found: set[str] = set()              # packages the file already finds
        self.defined: set[str] = set()            # variables the file sets itself

    # ------------------------------------------------------------------------------------ helpers

    def edit(self, start: int, end: int, new: str, rule: str, note: str) -> None:
        self.ft._edit(start, end, new, rule, note)
        self.covered.append((start, end))

    def report(self, kind: ReportKind, name: str, start: int, end: int, message: str) -> None:
        self.ft.report(kind, name, start, end, message)
        self.covered.append((start, end))

    def indent_of(self, offset: int) -> str:
        line_start = self.text.rfind("\n", 0, offset) + 1
        m = re.match(r"[ \t]*", self.text[line_start:offset])
        return m.group() if m else ""

    def newline(self) -> str:
        return self._newline

    def insert_after(self, cmd: Command, lines: Iterable[str], note: str) -> None:
        nl = self.newline()
        ind = self.indent_of(cmd.start)
        body = "".join(nl + ind + line for line in lines)
        if body:
            self.ft._edit(cmd.end, cmd.end, body, "cmake", note)

    def need_package(self, pkg: str) -> None:
        if pkg and pkg not in self.packages:
            self.packages.append(pkg)

    # ------------------------------------------------------------------------------------ run

    def run(self) -> None:
        for cmd in self.cmds:
            if cmd.lname == "find_package" and cmd.args:
                self.found.add(cmd.args[0].value)
            # the project's own variables (set/option/foreach/function arguments): not CUDA names to map
            if cmd.lname in ("set", "option", "foreach", "list", "string", "math", "file") and cmd.args:
                k = 1 if cmd.lname in ("list", "string", "math", "file") else 0
                if len(cmd.args) > k:
                    self.defined.add(cmd.args[-1].value if cmd.lname in ("string", "math") and
                                     cmd.args[0].value in ("REPLACE", "REGEX", "EXPR") else cmd.args[k].value)
            if cmd.lname in ("function", "macro"):
                self.defined.update(a.value for a in cmd.args[1:])
        toolkit_cmd: Command | None = None
        first_user: Command | None = None
        for cmd in self.cmds:
            name = cmd.lname
            self.covered = []  # spans are only ever compared within one command: keeps this linear
            if name in _SKIP_COMMANDS:
                continue
            if name == "cmake_minimum_required":
                self.minimum_version(cmd)
            elif name in ("project", "enable_language", "check_language"):
                if self.language_args(cmd, skip_first=name == "project") and name != "check_language":
                    self.archs_before(cmd)
            elif name == "find_package" and cmd.args and cmd.args[0].value in self.cm["toolkit_packages"]:
                self.find_toolkit(cmd)
                toolkit_cmd = toolkit_cmd or cmd
            elif name in self.cm["legacy_commands"]:
                new = self.cm["legacy_commands"][name]
                self.edit(cmd.start, cmd.name_end, new, "cmake", f"FindCUDA's {cmd.name} -> {new}")
            self.list_flags(cmd)
            before = len(self.packages)
            self.targets_and_names(cmd)
            if len(self.packages) > before and first_user is None:
                first_user = cmd
            self.properties(cmd)
            self.flags(cmd)
            if name in _SOURCE_COMMANDS or name == "file":
                self.sources(cmd)
            self.unknown(cmd)
        self.add_packages(toolkit_cmd, first_user)

    # ------------------------------------------------------------------------------------ rules

    def language_args(self, cmd: Command, skip_first: bool) -> bool:
        """CUDA -> HIP in a project()/enable_language() argument list; True when one was there."""
        hit = False
        # hip-config.cmake (find_package(hip), hip::host) reads the C++ compiler's id: a project
        # without CXX gets it beside HIP
        has_cxx = cmd.lname != "project" or any(a.value == "CXX" for a in cmd.args[1:])
        for k, a in enumerate(cmd.args):
            if skip_first and k == 0:
                continue
            if a.value == "CUDA":
                hit = True
                new = self.cm["language"] if has_cxx else "CXX " + self.cm["language"]
                self.edit(a.value_start, a.value_start + 4, new, "cmake",
                          "the CUDA language -> HIP (CMake >= 3.21)" + ("" if has_cxx else
                          "; CXX added: hip-config.cmake needs the C++ compiler"))
        return hit

    def minimum_version(self, cmd: Command) -> None:
        """CMake's HIP language needs 3.21: a lower minimum (its first number) is raised."""
        if not any(c.lname in ("project", "enable_language") and any(a.value == "CUDA" for a in c.args)
                   for c in self.cmds):
            return
        for k, a in enumerate(cmd.args):
            if a.value == "VERSION" and k + 1 < len(cmd.args):
                v = cmd.args[k + 1]
                m = re.match(r"(\d+)\.(\d+)(?:\.\d+)*", v.value)
                if m and (int(m.group(1)), int(m.group(2))) < (3, 21):
                    self.edit(v.value_start, v.value_start + m.end(), "3.21", "cmake",
                              "CMake's HIP language needs CMake >= 3.21")

    def archs_before(self, cmd: Command) -> None:
        """CMake picks CMAKE_HIP_ARCHITECTURES when HIP is enabled (and fails without a GPU to ask):
        when the file sets no architecture before this command, a cached default goes before it."""
        names = set(self.cm["architectures"])
        if any(c.start < cmd.start and c.lname == "set" and c.args and c.args[0].value in names
               for c in self.cmds):
            return
        archs = ";".join(self.ft.archs)
        line = f'set(CMAKE_HIP_ARCHITECTURES "{archs}" CACHE STRING "AMD GPU targets")'
        nl = self.newline()
        self.ft._edit(cmd.start, cmd.start, line + nl + self.indent_of(cmd.start), "arch",
                      "the HIP architectures must be known before HIP is enabled (override with "
                      "-DCMAKE_HIP_ARCHITECTURES=<gfx>)")

    def find_toolkit(self, cmd: Command) -> None:
        first = cmd.args[0]
        hip = self.cm["hip_package"]
        self.edit(first.start, first.end, hip, "cmake", f"find_package({first.value}) -> find_package({hip})")
        self.found.add(hip)
        for a in cmd.args[1:]:
            if re.fullmatch(r"\d+(\.\d+)*", a.value):  # a CUDA version means nothing for HIP
                self.edit(a.start, a.end, "", "cmake", "the CUDA version requirement is dropped")

    def list_flags(self, cmd: Command) -> None:
        """list(APPEND CUDA_NVCC_FLAGS a b) -> string(APPEND CMAKE_HIP_FLAGS " a b"): FindCUDA's flags are a
        list, CMAKE_HIP_FLAGS is a string (a list would put ';' between the flags)."""
        args = cmd.args
        if not (cmd.lname == "list" and len(args) > 2 and args[0].value == "APPEND"
                and args[1].value in self.cm["legacy_variables"] and args[1].value.endswith("_FLAGS")):
            return
        items = args[2:]
        if any(a.kind != "unquoted" for a in items):
            self.report(ReportKind.MANUAL, args[1].value, args[1].start, args[1].end,
                        f"{args[1].value} is a list, CMAKE_HIP_FLAGS a string: join the flags with spaces")
            return
        new = self.cm["legacy_variables"][args[1].value]
        self.edit(cmd.start, items[0].start, f'string(APPEND {new} " ', "cmake",
                  f"FindCUDA's {args[1].value} (a list) -> {new} (a string)")
        self.ft._edit(items[-1].end, items[-1].end, '"', "cmake", "end of the flags string")

    def targets_and_names(self, cmd: Command) -> None:
        rename: dict[str, str] = self.cm["rename"]
        legacy: dict[str, str] = self.cm["legacy_variables"]
        link_cmd = cmd.lname in ("target_link_libraries", "link_libraries")
        for a in cmd.args:
            if link_cmd and a.kind == "unquoted" and a.text in self.r.libraries:
                lib = self.r.libraries[a.text]
                tgt = lib.target(self.ft.roc) or lib.lib(self.ft.roc)
                if tgt:
                    self.need_package(lib.find_package(self.ft.roc) if lib.target(self.ft.roc) else "")
                    self.edit(a.start, a.end, tgt, "lib", f"{a.text} -> {tgt}")
                continue
            for m in re.finditer(r"CUDA::[A-Za-z0-9_]+", a.text):
                s, e = a.start + m.start(), a.start + m.end()
                known = self.r.targets.get(m.group())
                if known is None or not known.target(self.ft.roc):
                    hint = f" ({known.note})" if known is not None and known.note else ""
                    self.report(ReportKind.UNKNOWN if known is None else ReportKind.MANUAL, m.group(), s, e,
                                f"{m.group()}: no HIP CMake target in hipport's table{hint}")
                    continue
                tgt = known.target(self.ft.roc)
                self.need_package(known.find_package(self.ft.roc))
                self.edit(s, e, tgt, "lib", f"{m.group()} -> {tgt}")
            for m in re.finditer(r"\b[A-Za-z_][A-Za-z0-9_]*\b", a.text):
                word = m.group()
                s, e = a.start + m.start(), a.start + m.end()
                if self._covered(s, e):
                    continue
                if word in rename:
                    self.edit(s, e, rename[word], "cmake", f"{word} -> {rename[word]}")
                elif word in legacy:
                    new = legacy[word]
                    if "::" in new:
                        owner = next((x for x in self.r.libraries.values() if new in (x.hip_target, x.roc_target)),
                                     None)
                        self.need_package(owner.find_package(self.ft.roc) if owner is not None else "")
                        pre = a.text[: m.start()]
                        if pre.endswith("${") and a.text[m.end():].startswith("}"):
                            s, e = s - 2, e + 1
                    self.edit(s, e, new, "cmake", f"FindCUDA's {word} -> {new}")
                elif word in self.r.path_variables:
                    self.edit(s, e, self.r.hip_variable, "path", f"{word} -> {self.r.hip_variable}")
            for m in _GENEX.finditer(a.text):
                s = a.start + m.start()
                new = f"$<{m.group(1)}:HIP" + (",Clang" if m.group(2) == ",NVIDIA" else "")
                self.edit(s, a.start + m.end(), new, "cmake", "generator expression: CUDA -> HIP")

    def properties(self, cmd: Command) -> None:
        args = cmd.args
        archs: dict[str, str] = self.cm["architectures"]
        unsupported: dict[str, str] = self.cm["unsupported"]
        for k, a in enumerate(args):
            v = a.value
            if v in ("LANGUAGE", "LINKER_LANGUAGE") and k + 1 < len(args) and args[k + 1].value == "CUDA":
                b = args[k + 1]
                self.edit(b.value_start, b.value_start + 4, "HIP", "cmake", f"{v} CUDA -> {v} HIP")
            elif v in archs:
                self.edit(a.value_start, a.value_start + len(v), archs[v], "arch", f"{v} -> {archs[v]}")
                self.arch_values(cmd, k)
            elif v in unsupported:
                end = args[k + 1].end if k + 1 < len(args) else a.end
                self.report(ReportKind.MANUAL, v, a.start, end, f"{v}: {unsupported[v]}")
            elif v in self.cm["separable"]:
                self.separable(cmd, k)

    def arch_values(self, cmd: Command, k: int) -> None:
        """Replace the values after an architectures name (set(), PROPERTIES, PROPERTY) by the gfx list."""
        name = cmd.args[k].value
        vals: list[Arg] = []
        props = cmd.lname == "set_target_properties" or (cmd.lname == "set_property")
        for a in cmd.args[k + 1:]:
            if a.value in _END_OF_VALUES or a.text in ("(", ")") or (
                    props and vals and cmd.lname == "set_target_properties"):
                break
            vals.append(a)
        if cmd.lname in ("if", "elseif", "while", "list", "string", "unset") or not vals:
            return
        if len(vals) == 1 and vals[0].value.upper() in ("OFF", "FALSE", "0", "NO"):
            return  # no architecture flags at all: the same for HIP
        refs = {m.group(1) for a in vals for m in re.finditer(r"\$\{(\w+)\}", a.text)}
        if refs and refs <= set(self.cm["architectures"]):  # ${CMAKE_CUDA_ARCHITECTURES}: renamed below
            for a in vals:
                for m in re.finditer(r"\$\{(\w+)\}", a.text):
                    new_name = self.cm["architectures"][m.group(1)]
                    self.edit(a.start + m.start(1), a.start + m.end(1), new_name, "arch", f"{m.group(1)} -> {new_name}")
            return
        if any("$" in a.text for a in vals):
            self.report(ReportKind.MANUAL, name, vals[0].start, vals[-1].end,
                        f"{name} takes AMD gfx names ({';'.join(self.ft.archs)}); check the value")
            return
        new = ";".join(self.ft.archs)
        new = f'"{new}"' if len(self.ft.archs) > 1 else new
        self.edit(vals[0].start, vals[-1].end, new, "arch", "the target GPU architectures (gfx)")

    def separable(self, cmd: Command, k: int) -> None:
        a = cmd.args[k]
        on = k + 1 < len(cmd.args) and cmd.args[k + 1].value.upper() in ("ON", "TRUE", "1", "YES")
        flag = self.cm["separable_flag"]
        note = f"CMake has no HIP_SEPARABLE_COMPILATION (cmake#23210): {flag} on compile and link"
        if a.value.startswith("CMAKE_") and cmd.lname == "set":
            lines = [f'string(APPEND CMAKE_HIP_FLAGS " {flag}")',
                     f'string(APPEND CMAKE_EXE_LINKER_FLAGS " {flag}")',
                     f'string(APPEND CMAKE_SHARED_LINKER_FLAGS " {flag}")'] if on else []
            nl = self.newline() + self.indent_of(cmd.start)
            self.edit(cmd.start, cmd.end, nl.join(lines), "cmake", note)
            return
        target = ""
        if cmd.lname == "set_target_properties" and cmd.args:
            target = cmd.args[0].value
        elif cmd.lname == "set_property" and len(cmd.args) > 1 and cmd.args[0].value == "TARGET":
            target = cmd.args[1].value
        if not target:
            self.report(ReportKind.MANUAL, a.value, a.start, a.end, note)
            return
        # PUBLIC: like CUDA's device link at the consumer, the executable linking this target needs it too
        lines = [f"target_compile_options({target} PUBLIC $<$<COMPILE_LANGUAGE:HIP>:{flag}>)",
                 f"target_link_options({target} PUBLIC $<$<LINK_LANGUAGE:HIP>:{flag}>)"] if on else []
        only = (cmd.lname == "set_property") or (
            len([x for x in cmd.args if x.value != "PROPERTIES"]) == 3)
        if only:
            nl = self.newline() + self.indent_of(cmd.start)
            self.edit(cmd.start, cmd.end, nl.join(lines), "cmake", note)
            return
        end = cmd.args[k + 1].end if k + 1 < len(cmd.args) else a.end
        self.edit(a.start, end, "", "cmake", note)
        self.insert_after(cmd, lines, note)

    def flags(self, cmd: Command) -> None:
        """nvcc flags in compile/link options and flag variables (also inside quoted strings and
        generator expressions; a generator expression scoped to another language, e.g.
        $<$<COMPILE_LANGUAGE:CXX>:...>, holds host-compiler flags and is left alone)."""
        if not self._flag_context(cmd):
            return
        self.ft.new_line()
        pieces: list[Word] = []
        for a in cmd.args:
            if self._covered(a.start, a.end) or a.kind == "bracket":
                continue
            for m in _PIECE.finditer(a.text):
                piece = m.group()
                if piece.startswith("$<"):
                    if _OTHER_LANGUAGE.search(piece):
                        continue
                    for f in _GENEX_WORD.finditer(piece):
                        s = a.start + m.start() + f.start()
                        pieces.append(Word(s, s + len(f.group()), f.group()))
                    continue
                if "<" not in piece:  # `--flag>`: the end of a generator expression split by a blank
                    piece = piece.rstrip(">")
                s = a.start + m.start()
                if piece:
                    pieces.append(Word(s, s + len(piece), piece))
        words: list[Word] = []
        take_next = False
        for w in pieces:
            if w.text.startswith("-") and re.match(r"-{1,2}[A-Za-z]", w.text):
                words.append(w)
                rule = self.r.flags.get(w.text)
                take_next = rule is not None and rule.value == "either"
            elif take_next:
                words.append(w)  # the value of the flag before (-gencode arch=..., -Xcompiler -O3)
                take_next = False
        if not words:
            return
        before = len(self.ft.edits)
        self.ft.words(words, check_unknown=True)
        for e in self.ft.edits[before:]:
            self.covered.append((e.start, e.end))

    def _flag_context(self, cmd: Command) -> bool:
        """Commands whose arguments are compiler/linker flags; set/string/list only for a *FLAGS*/
        *OPTIONS* variable, properties only for their flag properties."""
        name = cmd.lname
        if name in _OPTION_COMMANDS:
            return True
        if name in ("set", "string", "list", "separate_arguments"):
            var = next((a.value for a in cmd.args if a.value not in _LIST_VERBS), "")
            # compiler/linker flag variables, not e.g. MPIRUN_EXTRA_FLAGS
            return bool(re.search(r"FLAGS|OPTIONS|OPTS", var)) and bool(
                re.search(r"^CMAKE_|NVCC|CUDA|HIP|GPU|DEVICE|CXX|CFLAGS|COMPILE|LINK|LD", var))
        if name in ("set_target_properties", "set_property", "set_source_files_properties"):
            return any(a.value in _FLAG_PROPERTIES for a in cmd.args)
        return False

    def sources(self, cmd: Command) -> None:
        if cmd.lname == "file":
            if cmd.args and cmd.args[0].value in ("GLOB", "GLOB_RECURSE") and len(cmd.args) > 1:
                if any(_CU_SOURCE.search(unquote(a.text)) for a in cmd.args[2:]):
                    var = cmd.args[1].value
                    self.insert_after(cmd, [f"set_source_files_properties(${{{var}}} PROPERTIES LANGUAGE HIP)"],
                                      "globbed .cu sources compile as HIP")
            return
        cu = [a for a in cmd.args if a.kind != "bracket" and _CU_SOURCE.search(a.value)]
        if not cu:
            return
        if self.ft.sibling:
            for a in cu:
                s = a.value_start + len(a.value) - 3
                self.edit(s, s + 3, ".hip", "source", ".cu -> .hip (sibling outputs; CMake compiles .hip as HIP)")
            return
        names = " ".join(a.text for a in cu)
        self.insert_after(cmd, [f"set_source_files_properties({names} PROPERTIES LANGUAGE HIP)"],
                          ".cu sources compile as HIP (CMake picks the HIP language only for .hip by extension)")

    def unknown(self, cmd: Command) -> None:
        if cmd.lname.startswith("cuda_") and cmd.lname not in self.cm["legacy_commands"]:
            self.report(ReportKind.UNKNOWN, cmd.name, cmd.start, cmd.name_end,
                        f"{cmd.name}: a FindCUDA command with no HIP counterpart in hipport's table")
        for a in cmd.args:
            if a.value == "CUDA" and not self._covered(a.start, a.end):  # a value naming the language?
                self.report(ReportKind.MANUAL, "CUDA", a.start, a.end,
                            "CUDA as a value (a language name?): check whether the port should say HIP")
                continue
            for m in _CUDA_NAME.finditer(a.text):
                s, e = a.start + m.start(), a.start + m.end()
                if self._covered(s, e) or m.group() in self.defined:
                    continue
                note = self.cm["unsupported"].get(m.group())
                if note:
                    self.report(ReportKind.MANUAL, m.group(), s, e, f"{m.group()}: {note}")
                    continue
                self.report(ReportKind.UNKNOWN, m.group(), s, e,
                            f"{m.group()}: a CUDA CMake name with no HIP counterpart in hipport's table")

    def add_packages(self, toolkit: Command | None, first_user: Command | None) -> None:
        todo = [p for p in self.packages if p not in self.found and p != self.cm["hip_package"]]
        needs_hip = self.cm["hip_package"] not in self.found and (
            self.cm["hip_package"] in self.packages or bool(todo))
        lines = ([f"find_package({self.cm['hip_package']} REQUIRED)"] if needs_hip else []) + [
            f"find_package({p} REQUIRED)" for p in todo]
        if not lines:
            return
        note = "the HIP libraries this file links"
        if toolkit is not None:
            self.insert_after(toolkit, lines, note)
        elif first_user is not None:
            nl = self.newline()
            ind = self.indent_of(first_user.start)
            text = "".join(line + nl + ind for line in lines)
            self.ft._edit(first_user.start, first_user.start, text, "cmake", note)

    def _covered(self, s: int, e: int) -> bool:
        return any(cs <= s and e <= ce and ce > cs for cs, ce in self.covered)


def translate_cmake(text: str, ft: FlagTranslator) -> None:
    """Fill `ft` (edits, reports, stats) for a CMakeLists.txt or *.cmake file."""
    ft.make_syntax = False
    _CMake(text, ft).run()
